import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// Exit codes a script can rely on: 0 success, 1 the server answered with an error, 3 the daemon could
/// not be reached or closed the connection, 64 a usage error (from ArgumentParser).
enum ExitCodes {
    static let serverError: Int32 = 1
    static let connection: Int32 = 3
}

@main
enum Entry {
    /// `motionctl [--socket PATH] SUBCOMMAND ...` (docs/operations.md): the global option may come first.
    static func main() async {
        let arguments = GlobalOptions.hoisted(Array(CommandLine.arguments.dropFirst()))
        var command: ParsableCommand
        do { command = try Motionctl.parseAsRoot(arguments) } catch { Motionctl.exit(withError: error) }
        do {
            if var asynchronous = command as? AsyncParsableCommand { try await asynchronous.run() } else { try command.run() }
        } catch let error as ValidationError {
            // A usage error found while running (a plan that is not JSON): the subcommand's usage, not the
            // root's "motionctl <subcommand>".
            let usage = Motionctl.usageString(for: type(of: command))
            let path = usage.split(separator: " ").prefix { !$0.hasPrefix("[") && !$0.hasPrefix("<") }.joined(separator: " ")
            FileHandle.standardError.write(Data("Error: \(error.message)\nUsage: \(usage)\n  See '\(path) --help' for more information.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        } catch {
            Motionctl.exit(withError: error)
        }
    }
}

enum GlobalOptions {
    /// Moves `--socket PATH` / `--socket=PATH` written before the subcommand to the end, where every
    /// subcommand's `Connection` options parse it.
    static func hoisted(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--socket") {
            if first == "--socket", rest.count >= 2 {
                leading += rest.prefix(2)
                rest = rest.dropFirst(2)
            } else if first.hasPrefix("--socket=") {
                leading.append(first)
                rest = rest.dropFirst()
            } else {
                break
            }
        }
        return Array(rest) + leading
    }
}

struct Motionctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Talk to a running motiond.",
        discussion: """
            Usage: motionctl [--socket PATH] SUBCOMMAND ...

            --socket PATH: motiond's socket, before or after the subcommand (default: $MOTIOND_SOCKET, \
            else $RUNTIME_DIRECTORY, $XDG_RUNTIME_DIR or /run/motiond, + /motiond.sock).

            Exit status: 0 success, 1 error reply from motiond, 3 cannot reach motiond, 64 usage error.
            """,
        version: "motionctl \(WireProtocol.softwareVersion) (protocol \(WireProtocol.version))",
        subcommands: [Status.self, Plan.self, RuntimeCommand.self, Sample.self, Route.self, RouterCommand.self, TimelineCommand.self, Plot.self, Watch.self, GestureCommand.self,
                      Plugins.self, ThemeCommand.self, MetricsCommand.self, Top.self, Inspect.self, Call.self])
}

struct Connection: ParsableArguments {
    @Option(help: "motiond's socket (default: $MOTIOND_SOCKET, else $RUNTIME_DIRECTORY, $XDG_RUNTIME_DIR or /run/motiond, + /motiond.sock).")
    var socket: String?

    var path: String {
        socket ?? WireProtocol.defaultSocketPath(environment: ProcessInfo.processInfo.environment)
    }

    /// Connects, says hello, runs `body`, and maps failures to the documented exit codes.
    func run(_ body: (MotionClient) async throws -> Void) async throws {
        let client: MotionClient
        do {
            client = try await MotionClient.connect(path: path)
        } catch let error as MotionClientError {
            printError(error.description)
            throw ExitCode(ExitCodes.connection)
        } catch {
            printError("cannot connect to motiond at \(path): \(error)")
            throw ExitCode(ExitCodes.connection)
        }
        do {
            try await Self.answered(within: Self.answerSeconds, on: client) { try await client.hello(client: "motionctl") }
            try await body(client)
            await client.close()
        } catch let error as MotionClientError {
            await client.close()
            printError(error.description)
            throw ExitCode(error == .connectionClosed ? ExitCodes.connection : ExitCodes.serverError)
        }
    }
}

extension Connection {
    /// How long motionctl waits for motiond to answer `hello` (and `watch` its `subscribe`).
    static let answerSeconds = 10.0

    /// Runs `call` on `client`; a server that has not answered within `seconds` has the connection
    /// closed, so the call ends with `connectionClosed` instead of waiting for ever (a listener that
    /// accepts and never answers).
    static func answered<Value: Sendable>(within seconds: Double, on client: MotionClient,
                                          _ call: () async throws -> Value) async throws -> Value {
        let deadline = Task {
            try await Task.sleep(for: .seconds(seconds))
            await client.close()
        }
        defer { deadline.cancel() }
        return try await call()
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("motionctl: \(message)\n".utf8))
}

func parseJSONArgument(_ text: String, name: String) throws -> JSONValue {
    guard let value = try? JSONValue.parse(text) else { throw ValidationError("\(name): not valid JSON: \(text)") }
    return value
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's status.")
    @OptionGroup var connection: Connection
    @Flag(help: "Print the raw JSON result.") var json = false

    func run() async throws {
        try await connection.run { client in
            let status = try await client.call("status")
            if json { return print(JSONWriter.string(status)) }
            let tick = status["tick"] ?? [:]
            func number(_ value: JSONValue?) -> String {
                guard let value = value?.doubleValue else { return "-" }
                return value.rounded() == value ? String(Int(value)) : String(value)
            }
            print("motiond \(status["version"]?.stringValue ?? "?")  uptime \(number(status["uptime"])) s  rate \(number(status["rate"])) Hz")
            print("clients \(number(status["clients"]))  plugins \(number(status["plugins"]))  runtimes \(number(status["runtimes"]))  animations \(number(status["animations"]))")
            print("tick p50 \(number(tick["p50_ms"])) ms  p99 \(number(tick["p99_ms"])) ms  overruns \(number(tick["overruns"]))")
        }
    }
}

struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add or remove plans.", subcommands: [Add.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a plan to a target, e.g. motionctl plan add box '{\"type\":\"Spring\",\"property\":\"position\",\"to\":[100,200]}'.")
        @OptionGroup var connection: Connection
        @Argument(help: "The target id.") var target: String
        @Argument(help: "The plan as JSON, with a \"type\".") var plan: String
        @Option(help: "Add it as a named plan (replacing one of the same name).") var name: String?
        @Option(help: "The runtime (default: default).") var runtime: String?

        func run() async throws {
            var params: [String: JSONValue] = ["target": .string(target), "plan": try parseJSONArgument(plan, name: "PLAN")]
            if let name { params["name"] = .string(name) }
            if let runtime { params["runtime"] = .string(runtime) }
            try await connection.run { client in
                let result = try await client.call("plan.add", .object(params))
                print("added to \(target) (performer \(result["performer"]?.intValue.map(String.init) ?? "?"))")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a named plan from a target.")
        @OptionGroup var connection: Connection
        @Argument(help: "The target id.") var target: String
        @Argument(help: "The plan's name.") var name: String
        @Option(help: "The runtime (default: default).") var runtime: String?

        func run() async throws {
            var params: [String: JSONValue] = ["target": .string(target), "name": .string(name)]
            if let runtime { params["runtime"] = .string(runtime) }
            try await connection.run { client in
                let result = try await client.call("plan.remove", .object(params))
                print(result["removed"]?.boolValue == true ? "removed \(name) from \(target)" : "no plan named \(name) on \(target)")
            }
        }
    }
}

struct Plugins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List or reload plugins.", subcommands: [List.self, Reload.self])

    struct Reload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load new plugin files and hot-swap changed ones (admin only): all, or the plugin ID.")
        @OptionGroup var connection: Connection
        @Argument(help: "A plugin id, e.g. org.motiond.spring.") var id: String?
        @Flag(help: "Print the raw JSON result.") var json = false

        func run() async throws {
            try await connection.run { client in
                let result = try await client.call("plugins.reload", id.map { ["id": .string($0)] } ?? [:])
                if json { return print(JSONWriter.string(result)) }
                for entry in result["results"]?.arrayValue ?? [] {
                    let file = entry["file"]?.stringValue ?? "?"
                    switch entry["outcome"]?.stringValue {
                    case "swapped":
                        print("swapped \(entry["id"]?.stringValue ?? "?") \(entry["fromVersion"]?.stringValue ?? "?") -> \(entry["toVersion"]?.stringValue ?? "?") (generation \(entry["generation"]?.intValue ?? 0), \(entry["migrated"]?.intValue ?? 0) performers migrated)  [\(file)]")
                    case "loaded": print("loaded \(entry["id"]?.stringValue ?? "?") \(entry["version"]?.stringValue ?? "?")  [\(file)]")
                    default: print("rejected \(file): \(entry["reason"]?.stringValue ?? "?")")
                    }
                }
                print("\(result["unchanged"]?.intValue ?? 0) unchanged")
                // A refused file is a failed reload, for scripts too.
                let rejected = (result["results"]?.arrayValue ?? []).filter { $0["outcome"] == "rejected" }.count
                if rejected > 0 {
                    printError("\(rejected) file\(rejected == 1 ? " was" : "s were") rejected")
                    throw ExitCode(ExitCodes.serverError)
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List plugins, plan types, conflicts and rejected files.")
        @OptionGroup var connection: Connection
        @Flag(help: "Print the raw JSON result.") var json = false

        func run() async throws {
            try await connection.run { client in
                let list = try await client.call("plugins.list")
                if json { return print(JSONWriter.string(list)) }
                if list["plugins"]?.arrayValue?.isEmpty ?? true {
                    print("no plugins loaded (the daemon's log says where it looked; --plugins DIR adds a directory)")
                }
                for plugin in list["plugins"]?.arrayValue ?? [] {
                    let planTypes = (plugin["planTypes"]?.arrayValue ?? []).compactMap(\.stringValue)
                    let curves = (plugin["functions"]?.arrayValue ?? []).map { function in
                        "curve \(function["name"]?.stringValue ?? "?") \(function["signature"]?.stringValue ?? "")"
                    }
                    let types = (planTypes + curves).joined(separator: ", ")
                    let old = plugin["current"] == false ? " (previous build)" : ""
                    print("\(plugin["id"]?.stringValue ?? "?") \(plugin["version"]?.stringValue ?? "?") generation \(plugin["generation"]?.intValue ?? 0)\(old): \(types)  [\(plugin["file"]?.stringValue ?? "")]")
                }
                for conflict in list["conflicts"]?.arrayValue ?? [] {
                    print("conflict: \(conflict["planType"]?.stringValue ?? "?") kept by \(conflict["kept"]?["plugin"]?.stringValue ?? "?"), ignored in \(conflict["ignored"]?["plugin"]?.stringValue ?? "?")")
                }
                for rejected in list["rejected"]?.arrayValue ?? [] {
                    print("rejected: \(rejected["file"]?.stringValue ?? "?"): \(rejected["reason"]?.stringValue ?? "?")")
                }
            }
        }
    }
}

struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Call any protocol method and print its JSON result.")
    @OptionGroup var connection: Connection
    @Argument(help: "The method, e.g. runtime.state.") var method: String
    @Argument(help: "The params as a JSON object.") var params: String = "{}"

    func run() async throws {
        let parameters = try parseJSONArgument(params, name: "PARAMS")
        try await connection.run { client in
            print(JSONWriter.string(try await client.call(method, parameters)))
        }
    }
}
