import Foundation
import Logging
import MotionEngine
import MotionWire

/// Speed and reduce motion as an admin last set them live (`settings.set`), kept in
/// `<state-dir>/settings.json` so that a restart or a SIGHUP does not undo them (docs/operations.md#live-settings: an
/// accessibility setting is not forgotten). They win over the config file's `speed` and `reduceMotion`
/// until `settings.set` changes them again (docs/operations.md#live-settings).
struct LiveSettings: Sendable {
    let path: String

    init(stateDirectory: String) {
        path = stateDirectory + "/settings.json"
    }

    /// The configuration with the live values in place of the file's; a file that does not read is
    /// logged and left alone (the next `settings.set` replaces it).
    func applied(to configuration: DaemonConfiguration, logger: Logger) -> DaemonConfiguration {
        guard let bytes = FileManager.default.contents(atPath: path) else { return configuration }
        var configuration = configuration
        do {
            let document = try JSONValue.parse(Array(bytes))
            if let speed = document["speed"]?.doubleValue, EngineSettings.isValid(speed: speed) { configuration.speed = speed }
            if case .bool(let on)? = document["reduceMotion"] { configuration.reduceMotion = on }
        } catch {
            logger.warning("the live settings file does not read; the config file's speed and reduceMotion apply",
                           metadata: ["path": "\(path)", "error": "\(error)"])
        }
        return configuration
    }

    /// Replaces the file atomically and durably (as routers' files are).
    func save(speed: Double, reduceMotion: Bool) throws {
        var bytes = JSONWriter.bytes(["speed": .number(speed), "reduceMotion": .bool(reduceMotion)])
        bytes.append(UInt8(ascii: "\n"))
        let temporary = path + ".tmp"
        do {
            try RouterStore.writeDurably(bytes, to: temporary)
            guard rename(temporary, path) == 0 else { throw RouterStore.Failure("rename to \(path)", errno) }
            try RouterStore.syncDirectory((path as NSString).deletingLastPathComponent)
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
