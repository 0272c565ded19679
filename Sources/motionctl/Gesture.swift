import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// `motionctl gesture FILE --plan JSON`: replays a recorded gesture against a plan and prints the frames.
struct GestureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Replay a recorded gesture (a JSON array of {t, position, phase?}) against a plan, printing the frames.",
        discussion: """
            The plan (e.g. '{"type":"Tossable","property":"x","snap":[[0],[300]]}') goes on TARGET in an ephemeral \
            runtime of its own; its "gesture" is set to the replayed one. Samples keep their spacing in time and are \
            pushed as they fall due, on the daemon's clock; frames and the plan's trace events print until the \
            runtime rests (or --settle seconds after the last sample).
            """)
    @OptionGroup var connection: Connection
    @Argument(help: "The recorded gesture: a JSON array of samples, or an object with \"samples\".") var file: String
    @Option(help: "The plan as JSON (a Draggable or Tossable, or any plan reading a gesture).") var plan: String
    @Option(help: "The target the plan goes on.") var target = "card"
    @Option(help: "Seconds to keep printing after the last sample, at most.") var settle = 3.0
    @Flag(help: "Print each event as raw JSON.") var json = false

    func run() async throws {
        let data = try readInputFile(file)
        let recorded: JSONValue
        do { recorded = try JSONValue.parse(Array(data)) } catch { throw ValidationError("\(file): not JSON (\(error))") }
        guard let samples = (recorded["samples"] ?? recorded).arrayValue, !samples.isEmpty else {
            throw ValidationError("\(file): expected an array of samples {t, position, phase?}")
        }
        guard let first = samples.first?["t"]?.doubleValue else { throw ValidationError("\(file): samples[0].t: expected seconds") }
        var planJSON = try parseJSONArgument(plan, name: "--plan")
        let gesture = "motionctl-replay"
        planJSON["gesture"] = .string(gesture)
        let runtime = "motionctl.gesture.\(getpid())"
        let colour = isatty(STDOUT_FILENO) == 1
        try await connection.run { client in
            let hello = try await client.call("hello", ["protocol": 1, "client": "motionctl"])
            let clockAtHello = hello["now"]?.doubleValue ?? 0
            let started = DispatchTime.now().uptimeNanoseconds
            func hostNow() -> Double { clockAtHello + Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
            _ = try await client.call("runtime.create", ["name": .string(runtime), "ephemeral": true])
            _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "runtime": .string(runtime)])
            _ = try await client.call("plan.add", ["runtime": .string(runtime), "target": .string(target), "plan": planJSON])
            let events = client.events
            let printer = Task {
                var idleAfterEnd = false
                for await event in events {
                    print(json ? JSONWriter.string(event) : EventLine.describe(event, colour: colour))
                    fflush(nil)
                    if event["kind"] == "gesture.ended" { idleAfterEnd = true }
                    if idleAfterEnd, event["kind"] == "runtime.idle" { break }
                }
            }
            let shift = hostNow() - first
            for sample in samples {
                guard case .object(var members) = sample, let t = members["t"]?.doubleValue else {
                    throw ValidationError("\(file): every sample needs t, position")
                }
                let due = t + shift
                let wait = due - hostNow()
                if wait > 0 { try await Task.sleep(for: .nanoseconds(Int(wait * 1e9))) }
                members["t"] = .number(due)
                _ = try await client.call("gesture.push", ["runtime": .string(runtime), "gesture": .string(gesture),
                                                           "samples": [.object(members)]])
            }
            let deadline = Task {
                try? await Task.sleep(for: .nanoseconds(Int(settle * 1e9)))
                printer.cancel()
            }
            _ = await printer.result
            deadline.cancel()
        }
    }
}
