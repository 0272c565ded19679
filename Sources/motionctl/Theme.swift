import ArgumentParser
import Foundation
import MotionWire

/// `motionctl theme show|set|diff` (docs/themes.md): the tokens plans name with `@`, and setting them live.
struct ThemeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "theme", abstract: "Show, set or compare motion themes (docs/themes.md).", subcommands: [Show.self, Set.self, Diff.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the tokens your plans resolve, one per line with where it comes from.")
        @OptionGroup var connection: Connection
        @Option(help: "effective (default), system or user.") var scope = "effective"
        @Flag(help: "Print the raw JSON result.") var json = false
        func run() async throws {
            try await connection.run { client in
                let theme = try await client.call("theme.get", ["scope": .string(scope)])
                if json { return print(JSONWriter.string(theme)) }
                print("system theme \(theme["system"]?.stringValue ?? "?") (\(theme["systemOrigin"]?.stringValue ?? "?"))"
                    + (theme["user"]?.stringValue.map { ", your overlay \($0)" } ?? ""))
                for kind in ["springs", "timings", "durations", "motions"] {
                    for (name, token) in (theme["tokens"]?[kind]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                        let value = token["value"].map(JSONWriter.string) ?? "?"
                        print("\(kind.dropLast()) @\(name)  \(value)  [\(token["origin"]?.stringValue ?? "?")]")
                    }
                }
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the system theme (an admin's) or your own overlay (--user): a shipped theme's name or a theme file.",
            discussion: "Running springs that use a changed token go on with it from where they are. Shipped: motiond, material3, adwaita, niri.")
        @OptionGroup var connection: Connection
        @Argument(help: "A shipped theme's name, or a theme file (JSON); with --user, 'none' removes your overlay.") var theme: String
        @Flag(help: "Set your own overlay, not the system theme.") var user = false
        func run() async throws {
            let value: JSONValue
            if user && theme == "none" {
                value = .null
            } else if FileManager.default.fileExists(atPath: theme) {
                guard let data = FileManager.default.contents(atPath: theme), let parsed = try? JSONValue.parse(Array(data)) else {
                    throw ValidationError("\(theme): not a JSON file")
                }
                value = parsed
            } else {
                value = .string(theme)
            }
            try await connection.run { client in
                let result = try await client.call("theme.set", ["theme": value, "scope": .string(user ? "user" : "system")])
                let changed = result["changed"]?.arrayValue?.compactMap(\.stringValue) ?? []
                print("\(user ? "your overlay" : "system theme") is \(result["theme"]?.stringValue ?? "?"); \(changed.count) token(s) changed"
                    + (changed.isEmpty ? "" : ": " + changed.joined(separator: ", ")))
            }
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tokens two themes (shipped names or files) differ in.")
        @Argument(help: "A shipped theme's name or a theme file.") var first: String
        @Argument(help: "Another.") var second: String
        @OptionGroup var connection: Connection
        func run() async throws {
            try await connection.run { client in
                func load(_ nameOrPath: String) async throws -> JSONValue {
                    if let data = FileManager.default.contents(atPath: nameOrPath), let parsed = try? JSONValue.parse(Array(data)) { return parsed }
                    return try await client.call("theme.get", ["shipped": .string(nameOrPath)])
                }
                let (a, b) = (try await load(first), try await load(second))
                for kind in ["springs", "timings", "durations", "motions"] {
                    let left = a[kind]?.objectValue ?? [:], right = b[kind]?.objectValue ?? [:]
                    for name in Swift.Set(left.keys).union(right.keys).sorted() where left[name] != right[name] {
                        print("\(kind.dropLast()) @\(name): \(left[name].map(JSONWriter.string) ?? "—") → \(right[name].map(JSONWriter.string) ?? "—")")
                    }
                }
            }
        }
    }
}
