import Foundation
import MotionEngine
import MotionWire

/// The optional JSON config file (`--config`). Command-line options override it; SIGHUP re-reads it.
/// Documented in README and docs/operations.md.
///
/// ```json
/// {"socket": "/run/motiond/motiond.sock", "plugins": ["/usr/lib/motiond/plugins"], "rate": 120,
///  "stateDir": "/var/lib/motiond", "logLevel": "info", "maxLineLength": 1048576, "maxSubscriptions": 64,
///  "adminGroup": "motion-admin", "maxConnections": 2048, "maxConnectionsPerUser": 1024,
///  "quotas": {"performers": 100000, "animations": 250000, "runtimes": 256, "routers": 64, "gestures": 64, "stateBytes": 16777216,
///             "journalBytes": 16777216, "filterTargets": 65536, "properties": 500000,
///             "shmSlots": 4194304, "subscriptions": 1024, "shmRegions": 64, "inputBytes": 16777216,
///             "outputBytes": 67108864, "themeTokens": 256, "enginePercent": 50}}
/// ```
package struct ConfigFile: Sendable {
    package var socket: String?
    package var plugins: [String]?
    package var rate: Double?
    package var stateDirectory: String?
    package var logLevel: String?
    package var maximumLineLength: Int?
    package var maximumSubscriptions: Int?
    package var adminGroup: String?
    package var maximumConnections: Int?
    package var maximumConnectionsPerUser: Int?
    /// Seconds one plugin call may last before the process ends and the plugin is quarantined (0: never).
    package var hangSeconds: Int?
    package var realtime: Bool?
    /// Per-uid quotas; members left out keep their defaults.
    package var quotas: Quotas?
    package var speed: Double?
    package var reduceMotion: Bool?
    /// False: load only the `plugins` directories, not the plugins shipped next to the executable.
    package var shippedPlugins: Bool?
    /// The system motion theme: a shipped theme's name or a theme file's path (docs/themes.md).
    package var theme: String?

    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    package init() {}

    static let keys: Set<String> = ["socket", "plugins", "rate", "stateDir", "logLevel", "maxLineLength", "maxSubscriptions",
                                    "adminGroup", "maxConnections", "maxConnectionsPerUser", "hangSeconds", "realtime", "quotas", "speed", "reduceMotion", "shippedPlugins", "theme"]

    package static func load(path: String) throws -> ConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            // Why, in the system's words: a folder, a missing file, a permission.
            var isFolder: ObjCBool = false
            let reason = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
                ? "a folder, not a file" : ErrorSentence.describe(error).replacingOccurrences(of: path + ": ", with: "")
            throw Invalid(description: "\(path): cannot read the config file (\(reason))")
        }
        guard let json = try? JSONValue.parse(Array(data)), case .object(let members) = json else {
            throw Invalid(description: "\(path): not a JSON object")
        }
        if let unknown = members.keys.sorted().first(where: { !keys.contains($0) }) {
            throw Invalid(description: "\(path): unknown key \"\(unknown)\" (known: \(keys.sorted().joined(separator: ", ")))")
        }
        func field<T>(_ key: String, _ read: (JSONValue) -> T?) throws -> T? {
            guard let value = members[key], value != .null else { return nil }
            guard let typed = read(value) else { throw Invalid(description: "\(path): \(key) has the wrong type") }
            return typed
        }
        var file = ConfigFile()
        file.socket = try field("socket") { $0.stringValue }
        file.plugins = try field("plugins") { value in
            value.arrayValue.flatMap { elements in
                let strings = elements.compactMap(\.stringValue)
                return strings.count == elements.count ? strings : nil
            }
        }
        file.rate = try field("rate") { $0.doubleValue }
        file.stateDirectory = try field("stateDir") { $0.stringValue }
        file.logLevel = try field("logLevel") { $0.stringValue }
        file.maximumLineLength = try field("maxLineLength") { $0.intValue }
        file.maximumSubscriptions = try field("maxSubscriptions") { $0.intValue }
        file.adminGroup = try field("adminGroup") { $0.stringValue }
        file.maximumConnections = try field("maxConnections") { $0.intValue.flatMap { $0 > 0 ? $0 : nil } }
        file.maximumConnectionsPerUser = try field("maxConnectionsPerUser") { $0.intValue.flatMap { $0 > 0 ? $0 : nil } }
        file.hangSeconds = try field("hangSeconds") { $0.intValue.flatMap { (0...60).contains($0) ? $0 : nil } }
        file.speed = try field("speed") { $0.doubleValue.flatMap { EngineSettings.isValid(speed: $0) ? $0 : nil } }
        file.reduceMotion = try field("reduceMotion") { if case .bool(let on) = $0 { on } else { nil } }
        file.shippedPlugins = try field("shippedPlugins") { if case .bool(let on) = $0 { on } else { nil } }
        file.theme = try field("theme") { $0.stringValue }
        file.realtime = try field("realtime") { if case .bool(let on) = $0 { on } else { nil } }
        if case .object(let members)? = members["quotas"] {
            var quotas = Quotas()
            for (name, value) in members.sorted(by: { $0.key < $1.key }) {
                guard quotas[name] != nil else {
                    throw Invalid(description: "\(path): unknown quota \"\(name)\" (known: \(Quotas.names.joined(separator: ", ")))")
                }
                guard let limit = value.intValue, limit >= 0 else {
                    throw Invalid(description: "\(path): quotas.\(name) must be a non-negative integer")
                }
                guard name != "enginePercent" || (1...100).contains(limit) else {
                    throw Invalid(description: "\(path): quotas.enginePercent must be 1–100 (percent of each frame interval)")
                }
                quotas[name] = limit
            }
            file.quotas = quotas
        } else if let value = members["quotas"], value != .null {
            throw Invalid(description: "\(path): quotas has the wrong type (an object)")
        }
        return file
    }
}
