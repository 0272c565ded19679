import ArgumentParser
import Foundation
import MotionWire

/// `motionctl route go|diff|resolve|state` and `motionctl router configure FILE` (docs/routes.md).
struct Route: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move a router, or ask where a URL or path leads.",
        subcommands: [Go.self, Diff.self, Resolve.self, State.self])

    struct Go: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Perform a transition and wait for it to end, e.g. motionctl route go tv 'tv://home/show::2'.")
        @OptionGroup var connection: Connection
        @Argument(help: "The router's scheme.") var scheme: String
        @Argument(help: "A URL of that scheme or a DeepTransition path (show, ../x, !player, ^/top, up(n=2)).") var to: String
        @Flag(help: "Queue behind a running transition instead of failing with router.busy.") var enqueue = false
        @Flag(help: "Complete every update at once, with no transition plans.") var unanimated = false
        @Flag(help: "Pop back to the nearest equal screen if the stack has one, else push (Reinstate).") var reuse = false
        @Flag(help: "Record the destination without performing it (the UI already moved there).") var record = false
        @Flag(help: "Print the raw JSON result.") var json = false

        func run() async throws {
            let params: JSONValue = ["scheme": .string(scheme), "to": .string(to), "mode": enqueue ? "enqueue" : "start",
                                     "animated": .bool(!unanimated), "reuse": .bool(reuse), "perform": .bool(!record)]
            try await connection.run { client in
                let result = try await client.call("route.go", params)
                if json { return print(JSONWriter.string(result)) }
                print(result["url"]?.stringValue ?? "?")
            }
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the updates from one URL to another (a dry run).")
        @OptionGroup var connection: Connection
        @Argument(help: "The scheme.") var scheme: String
        @Argument(help: "The URL to start from.") var from: String
        @Argument(help: "The destination URL.") var to: String
        @Flag(help: "Print the raw JSON result.") var json = false

        func run() async throws {
            try await connection.run { client in
                let result = try await client.call("route.diff", ["scheme": .string(scheme), "from": .string(from), "to": .string(to)])
                if json { return print(JSONWriter.string(result)) }
                for update in result["updates"]?.arrayValue ?? [] { print(Self.describe(update)) }
            }
        }

        static func describe(_ update: JSONValue) -> String {
            var text = "\(update["op"]?.stringValue ?? "?") \(update["key"]?.stringValue ?? "?")"
            if let data = update["data"]?.stringValue { text += " data=\(data)" }
            if let depth = update["depth"]?.intValue { text += " depth=\(depth)" }
            if let options = update["options"]?.intValue { text += " options=\(options)" }
            if let params = update["params"]?.objectValue {
                text += " " + params.keys.sorted().map { "\($0)=\(params[$0]?.stringValue ?? "")" }.joined(separator: ",")
            }
            return text
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print where a DeepTransition path leads, without going there.")
        @OptionGroup var connection: Connection
        @Argument(help: "The scheme.") var scheme: String
        @Argument(help: "The path, e.g. ../profile or !player(autoplay=1).") var path: String
        @Option(help: "Resolve from this URL instead of the router's current state.") var from: String?

        func run() async throws {
            var params: [String: JSONValue] = ["scheme": .string(scheme), "path": .string(path)]
            if let from { params["from"] = .string(from) }
            try await connection.run { client in
                print(try await client.call("route.resolve", .object(params))["url"]?.stringValue ?? "?")
            }
        }
    }

    struct State: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a router's URL (every router's without a scheme).")
        @OptionGroup var connection: Connection
        @Argument(help: "The scheme.") var scheme: String?
        @Flag(help: "Print the raw JSON result.") var json = false

        func run() async throws {
            try await connection.run { client in
                let result = try await client.call("route.state", scheme.map { ["scheme": .string($0)] } ?? [:])
                if json { return print(JSONWriter.string(result)) }
                for router in result["routers"]?.arrayValue ?? [result] {
                    let busy = router["transitioning"] == true ? "  (transitioning to \(router["to"]?.stringValue ?? "?"))" : ""
                    print((router["url"]?.stringValue ?? "?") + busy)
                }
            }
        }
    }
}

struct RouterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "router", abstract: "Declare a router's routes.", subcommands: [Configure.self])

    struct Configure: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send FILE (JSON: {scheme, routes, transitions?}) as router.configure.")
        @OptionGroup var connection: Connection
        @Argument(help: "The JSON file; - reads standard input.") var file: String

        func run() async throws {
            let data = try readInputFile(file)
            let params = try parseJSONArgument(String(decoding: data, as: UTF8.self), name: "FILE")
            try await connection.run { client in
                let result = try await client.call("router.configure", params)
                print("\(result["scheme"]?.stringValue ?? "?"):// \(result["routes"]?.intValue ?? 0) routes at \(result["url"]?.stringValue ?? "?")")
            }
        }
    }
}
