import Foundation
import MotionWire

/// The optional JSON config file (`--config`). Command-line options override it. Documented in README.
///
/// ```json
/// {"socket": "/run/motiond/motiond.sock", "plugins": ["/usr/lib/motiond/plugins"], "rate": 120,
///  "stateDir": "/var/lib/motiond", "logLevel": "info", "maxLineLength": 1048576, "maxSubscriptions": 64}
/// ```
struct ConfigFile {
    var socket: String?
    var plugins: [String]?
    var rate: Double?
    var stateDirectory: String?
    var logLevel: String?
    var maximumLineLength: Int?
    var maximumSubscriptions: Int?

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static let keys: Set<String> = ["socket", "plugins", "rate", "stateDir", "logLevel", "maxLineLength", "maxSubscriptions"]

    static func load(path: String) throws -> ConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "\(path): cannot read the config file")
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
        return try ConfigFile(
            socket: field("socket") { $0.stringValue },
            plugins: field("plugins") { value in
                value.arrayValue.flatMap { elements in
                    let strings = elements.compactMap(\.stringValue)
                    return strings.count == elements.count ? strings : nil
                }
            },
            rate: field("rate") { $0.doubleValue },
            stateDirectory: field("stateDir") { $0.stringValue },
            logLevel: field("logLevel") { $0.stringValue },
            maximumLineLength: field("maxLineLength") { $0.intValue },
            maximumSubscriptions: field("maxSubscriptions") { $0.intValue })
    }
}
