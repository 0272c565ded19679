import Foundation
import Logging
import MotionEngine
import MotionWire

/// Motion themes on disk (docs/themes.md#where-tokens-come-from): the system theme an admin set live
/// (`<state-dir>/themes/system.json`) and each uid's overlay (`<state-dir>/themes/user-<uid>.json`),
/// replaced atomically and durably before `theme.set` is answered. The system theme set live wins over
/// the config file's `theme` until `theme.set` changes it again, as live settings do.
struct ThemeStore: Sendable {
    let directory: String

    init(stateDirectory: String) throws {
        directory = stateDirectory + "/themes"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    private func file(for uid: UInt32?) -> String { directory + "/" + (uid.map { "user-\($0).json" } ?? "system.json") }

    func save(uid: UInt32?, theme: JSONValue?) throws {
        let path = file(for: uid)
        guard let theme else {
            guard unlink(path) == 0 || errno == ENOENT else { throw RouterStore.Failure("unlink \(path)", errno) }
            return try RouterStore.syncDirectory(directory)
        }
        var bytes = JSONWriter.bytes(theme)
        bytes.append(UInt8(ascii: "\n"))
        let temporary = path + ".tmp"
        do {
            try RouterStore.writeDurably(bytes, to: temporary)
            guard rename(temporary, path) == 0 else { throw RouterStore.Failure("rename to \(path)", errno) }
            try RouterStore.syncDirectory(directory)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The system theme set live (nil: none) and every overlay; files that do not read are logged and
    /// left out (the next `theme.set` replaces them).
    func load(logger: Logger) -> (system: Theme?, overlays: [UInt32: Theme]) {
        var system: Theme?, overlays: [UInt32: Theme] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") {
            let uid: UInt32?
            if name == "system.json" {
                uid = nil
            } else if name.hasPrefix("user-"), let number = UInt32(name.dropFirst(5).dropLast(5)) {
                uid = number
            } else {
                continue
            }
            do {
                let theme = try Self.read(path: directory + "/" + name)
                if let uid { overlays[uid] = theme } else { system = theme }
            } catch {
                logger.warning("a saved theme does not read; left out", metadata: ["path": "\(directory)/\(name)", "error": "\(error)"])
            }
        }
        return (system, overlays)
    }

    /// A theme file (or a shipped theme's name, for config `theme`).
    static func theme(named nameOrPath: String) throws -> Theme {
        if let shipped = ShippedThemes.all[nameOrPath] { return shipped }
        return try read(path: nameOrPath)
    }

    static func read(path: String) throws -> Theme {
        guard let data = FileManager.default.contents(atPath: path) else { throw RouterStore.Failure("cannot read \(path)", 0) }
        let json: JSONValue
        do { json = try JSONValue.parse(Array(data)) } catch { throw RouterStore.Failure("\(path): \(error)", 0) }
        do { return try Theme(json: json) } catch { throw RouterStore.Failure("\(path): \(error.message)", 0) }
    }
}
