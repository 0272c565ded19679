import ArgumentParser
import Foundation
import MotionWire

/// `motionctl runtime create|destroy|state|speed` and `motionctl sample`.
struct RuntimeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runtime", abstract: "Create, destroy or inspect runtimes.", subcommands: [Create.self, Destroy.self, State.self, Speed.self])

    struct Speed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play one of your runtimes in slow motion (0.25: a quarter speed; 1: its normal pace).")
        @OptionGroup var connection: Connection
        @Argument(help: "The runtime.") var name: String
        @Argument(help: "Its speed, 0.01 to 10 (the global speed multiplies it).") var speed: Double
        func run() async throws {
            try await connection.run { client in
                _ = try await client.call("runtime.speed", ["runtime": .string(name), "speed": .number(speed)])
                print("\(name) at speed \(speed)")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a runtime (with --ephemeral it ends with this command's connection).")
        @OptionGroup var connection: Connection
        @Argument(help: "The runtime's name.") var name: String
        @Flag(help: "End the runtime when the connection closes.") var ephemeral = false
        func run() async throws {
            try await connection.run { client in
                _ = try await client.call("runtime.create", ["name": .string(name), "ephemeral": .bool(ephemeral)])
                print("created \(name)")
            }
        }
    }

    struct Destroy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Destroy a runtime and everything in it.")
        @OptionGroup var connection: Connection
        @Argument(help: "The runtime's name.") var name: String
        func run() async throws {
            try await connection.run { client in
                _ = try await client.call("runtime.destroy", ["name": .string(name)])
                print("destroyed \(name)")
            }
        }
    }

    struct State: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a runtime's targets, performers and property values as JSON (every page of them).")
        @OptionGroup var connection: Connection
        @Argument(help: "The runtime (default: default; another uid's shared runtime: <uid>/<name>).") var name: String?
        func run() async throws {
            try await connection.run { client in
                var state = try await client.call("runtime.state", name.map { ["runtime": .string($0)] } ?? [:])
                var targets = state["targets"]?.objectValue ?? [:]
                // runtime.state pages large runtimes (docs/protocol.md): follow `next` to the end.
                while let after = state["next"]?.stringValue {
                    var params: JSONValue = ["after": .string(after), "limit": 1000]
                    if let name { params["runtime"] = .string(name) }
                    state = try await client.call("runtime.state", params)
                    targets.merge(state["targets"]?.objectValue ?? [:]) { first, _ in first }
                }
                state["targets"] = .object(targets)
                state["next"] = nil
                print(JSONWriter.string(state))
            }
        }
    }
}

struct Sample: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the values and velocities a plan would have at the given times (a dry run).")
    @OptionGroup var connection: Connection
    @Argument(help: "The plan as JSON.") var plan: String
    @Argument(help: "Times in seconds from the plan's start.") var times: [Double]

    func run() async throws {
        let planJSON = try parseJSONArgument(plan, name: "PLAN_JSON")
        guard !times.isEmpty else { throw ValidationError("give at least one time") }
        try await connection.run { client in
            let result = try await client.call("plan.sample", ["plan": planJSON, "times": .array(times.map { .number($0) })])
            for sample in result["samples"]?.arrayValue ?? [] {
                print("t=\(sample["t"]?.doubleValue ?? 0)  value=\(JSONWriter.string(sample["value"] ?? .null))  velocity=\(JSONWriter.string(sample["velocity"] ?? .null))")
            }
        }
    }
}
