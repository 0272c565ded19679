import ArgumentParser
import Foundation
import MotionDialects
import MotionWire

/// `motionctl theme show|set|diff` (docs/themes.md): the tokens plans name with `@`, and setting them live.
struct ThemeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "theme", abstract: "Show, set or compare motion themes (docs/themes.md).", subcommands: [Show.self, Set.self, Diff.self, Import.self, Export.self])

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
            } else if theme.contains("/") || theme.hasSuffix(".json") {
                // A file meant, not a shipped theme's name (the daemon would say it is not one).
                throw ValidationError("\(theme): no such file")
            } else {
                value = .string(theme)
            }
            try await connection.run { client in
                let result = try await client.call("theme.set", ["theme": value, "scope": .string(user ? "user" : "system")])
                let changed = result["changed"]?.arrayValue?.compactMap(\.stringValue) ?? []
                let now = value == .null ? "your overlay is removed" : "\(user ? "your overlay" : "system theme") is \(result["theme"]?.stringValue ?? "?")"
                print("\(now); \(changed.count) token(s) changed"
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

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read niri's animations block, Hyprland's bezier/animation lines or CSS --motion-* properties as a theme.",
            discussion: "Prints the theme (JSON); with --set, sets it (the system theme, or with --user your overlay). What the theme cannot hold is listed on stderr.")
        @Option(help: "niri, hyprland or css.") var from: String
        @Argument(help: "The file to read.") var file: String
        @Option(help: "The theme's name.") var name: String?
        @Flag(help: "Set the theme it makes.") var set = false
        @Flag(help: "With --set: your overlay, not the system theme.") var user = false
        @OptionGroup var connection: Connection

        func run() async throws {
            let data = try readInputFile(file)
            let text = String(decoding: data, as: UTF8.self)
            let result: DialectResult<JSONValue>
            do {
                switch from {
                case "niri": result = try NiriDialect.importTheme(text, name: name ?? "niri-import")
                case "hyprland": result = try HyprlandDialect.importTheme(text, name: name ?? "hyprland-import")
                case "css": result = try CSSDialect.importTheme(text, name: name ?? "css-import")
                default: throw ValidationError("--from: niri, hyprland or css")
                }
            } catch let error as DialectError {
                printError("\(file): \(error)")
                throw ExitCode.validationFailure
            }
            for line in result.unsaid { printError("not in the theme: \(line)") }
            guard set else { return print(JSONWriter.string(result.output)) }
            try await connection.run { client in
                let reply = try await client.call("theme.set", ["theme": result.output, "scope": .string(user ? "user" : "system")])
                print("\(user ? "your overlay" : "system theme") is \(reply["theme"]?.stringValue ?? "?")")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a theme in another program's terms: css, niri, hyprland or adwaita.",
            discussion: "Exports the tokens your plans resolve now, a shipped theme (--theme NAME) or a theme file (--theme FILE). What the dialect cannot say is listed on stderr.")
        @Option(help: "css, niri, hyprland or adwaita.") var to: String
        @Option(help: "A shipped theme's name or a theme file (default: the tokens your plans resolve now).") var theme: String?
        @OptionGroup var connection: Connection

        func run() async throws {
            try await connection.run { client in
                let tokens: JSONValue
                if let theme, let data = FileManager.default.contents(atPath: theme), let parsed = try? JSONValue.parse(Array(data)) {
                    tokens = parsed
                } else if let theme {
                    tokens = try await client.call("theme.get", ["shipped": .string(theme)])
                } else {
                    let effective = try await client.call("theme.get")
                    var groups: [String: JSONValue] = ["name": effective["user"] ?? effective["system"] ?? "theme"]
                    for kind in ["springs", "timings", "durations", "motions"] {
                        groups[kind] = .object((effective["tokens"]?[kind]?.objectValue ?? [:]).compactMapValues { $0["value"] })
                    }
                    tokens = .object(groups)
                }
                // Timings CSS has no words for (a desktop's easing names) are sampled by the daemon.
                var samples: [String: [Double]] = [:]
                if to == "css" {
                    let times = JSONValue.array((0...1000).map { .number(Double($0) / 1000) })
                    for (name, timing) in tokens["timings"]?.objectValue ?? [:] where timing.stringValue.map({ !CSSDialect.isCSS($0) }) ?? false {
                        let plan: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": timing]
                        let sampled = try? await client.call("plan.sample", ["plan": plan, "times": times])
                        samples[name] = sampled?["samples"]?.arrayValue?.compactMap { $0["value"]?.arrayValue?.first?.doubleValue }
                    }
                }
                guard let result = ThemeExport.export(tokens, to: to, timingSamples: samples) else {
                    throw ValidationError("--to: css, niri, hyprland or adwaita")
                }
                print(result.output, terminator: "")
                for line in result.unsaid { printError("not said in \(to): \(line)") }
            }
        }
    }
}
