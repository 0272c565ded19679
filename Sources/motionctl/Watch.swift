import ArgumentParser
import Foundation
import MotionClient
import MotionWire

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print frames, trace and route events as they arrive, one line each.")
    @OptionGroup var connection: Connection
    @Flag(help: "Frame events.") var frames = false
    @Flag(help: "Trace events.") var trace = false
    @Flag(help: "Router events (route.transition.start, route.update, route.transition.end).") var routes = false
    @Flag(help: "Print each event as raw JSON.") var json = false
    @Option(help: "Only this runtime.") var runtime: String?
    @Option(help: "Only this target; repeat for several.") var target: [String] = []
    @Option(help: "Stop after this many events.") var count: Int?
    @Option(help: "Stop after a trace event of this kind, e.g. runtime.idle (other trace events are shown only with --trace, or when no stream is chosen).") var until: String?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count: expected 1 or more events") }
    }

    func run() async throws {
        var streams: [JSONValue] = []
        let chosen = frames || trace || routes
        if frames || !chosen { streams.append("frames") }
        let showsTrace = trace || !chosen
        if showsTrace || until != nil { streams.append("trace") }
        if routes { streams.append("routes") }
        var params: [String: JSONValue] = ["streams": .array(streams)]
        if let runtime { params["runtime"] = .string(runtime) }
        if !target.isEmpty { params["targets"] = .array(target.map { .string($0) }) }
        let colour = isatty(STDOUT_FILENO) == 1
        var seen = 0
        var done = false
        var first = true
        // When motiond goes away (a restart, an upgrade) watch connects again with backoff and
        // subscribes again (docs/clients.md); only the first connection's failure is an error. A later
        // one that fails (the daemon went away again between the probe and the connection, or before it
        // answered) is one more reason to wait for it.
        while !done {
            if !first {
                guard reconnect else { throw ExitCode(ExitCodes.connection) }
                try await Self.waitForDaemon(at: connection.path)
            }
            let reconnecting = !first && reconnect
            first = false
            do {
                try await connection.run { client in
                    _ = try await Connection.answered(within: Connection.answerSeconds, on: client) {
                        try await client.call("subscribe", .object(params))
                    }
                    if reconnecting { printError("motiond is back; watching again") }
                    for await event in client.events {
                        // `--until` subscribes to trace; its events are shown only when asked for, but for the
                        // one it stops at.
                        if !showsTrace, event["event"] == "trace", event["kind"]?.stringValue != until { continue }
                        print(json ? JSONWriter.string(event) : EventLine.describe(event, colour: colour))
                        fflush(nil)
                        // A closing notice (server.shutting_down, …) says why; the connection ends after it.
                        if event["event"]?.stringValue == "error" { break }
                        seen += 1
                        if let count, seen >= count { done = true; break }
                        if let until, event["event"] == "trace", event["kind"]?.stringValue == until { done = true; break }
                    }
                }
            } catch let exit as ExitCode where reconnecting && (exit == ExitCode(ExitCodes.connection) || exit == ExitCode(ExitCodes.serverError)) {
                // connection.run said why; wait for the daemon again. A refusal too: the same subscribe was
                // answered before, so a daemon still stopping (`server.shutting_down` to a `hello` that
                // reached it) or a passing limit is a reason to wait, not to stop watching.
                continue
            }
            if !done { printError("motiond closed the connection; \(reconnect ? "reconnecting" : "stopping")") }
        }
    }

    @Flag(inversion: .prefixedNo, help: "Connect again (with backoff) and resubscribe when motiond goes away.")
    var reconnect = true

    /// Waits for the socket to accept a connection again: 0.1 s, doubling to 2 s between tries.
    static func waitForDaemon(at path: String) async throws {
        var delay = 0.1
        var said = ""
        while true {
            try await Task.sleep(for: .seconds(delay))
            do {
                let client = try await MotionClient.connect(path: path)
                await client.close()
                return
            } catch {
                // Said once per reason, so a long wait shows why it waits.
                let reason = "\(error)"
                if reason != said { printError("waiting for motiond: \(reason)") }
                said = reason
            }
            delay = min(delay * 2, 2)
        }
    }
}

/// One readable line per event.
enum EventLine {
    static func describe(_ event: JSONValue, colour: Bool) -> String {
        let time = event["t"]?.doubleValue.map { String(format: "%9.3f", $0) } ?? "        -"
        let kind = event["event"]?.stringValue ?? "?"
        switch kind {
        case "frame":
            let updates = (event["updates"]?.arrayValue ?? []).map { update -> String in
                let name = "\(update["target"]?.stringValue ?? "?").\(update["property"]?.stringValue ?? "?")"
                return "\(paint(name, 36, colour))=\(vector(update["value"]))"
            }
            let dropped = event["dropped"]?.intValue ?? 0
            return "\(time) \(paint("frame", 32, colour)) \(updates.joined(separator: " "))" + (dropped > 0 ? " (dropped \(dropped))" : "")
        case "trace":
            var details = event.objectValue ?? [:]
            for key in ["event", "sub", "seq", "t", "kind", "runtime", "target"] { details[key] = nil }
            let scope = [event["runtime"]?.stringValue, event["target"]?.stringValue].compactMap { $0 }.joined(separator: "/")
            let fields = details.keys.sorted().map { "\($0)=\(JSONWriter.string(details[$0]!))" }.joined(separator: " ")
            return "\(time) \(paint(event["kind"]?.stringValue ?? "trace", 33, colour)) \(scope) \(fields)"
        case "route.transition.start":
            return "\(time) \(paint(kind, 35, colour)) \(event["from"]?.stringValue ?? "?") -> \(event["to"]?.stringValue ?? "?")"
        case "route.update":
            return "\(time) \(paint(kind, 35, colour)) \(Route.Diff.describe(event["update"] ?? [:])) -> \(event["url"]?.stringValue ?? "?")"
        case "route.transition.end":
            return "\(time) \(paint(kind, 35, colour)) \(event["url"]?.stringValue ?? "?")"
        case "gap":
            return "\(time) \(paint(kind, 31, colour)) \(event["lost"]?.intValue ?? 0) trace events lost (this client read too slowly)"
        case "error":
            let error = event["error"]
            return "\(time) \(paint(kind, 31, colour)) \(error?["code"]?.stringValue ?? "?"): \(error?["message"]?.stringValue ?? "")"
        default:
            return "\(time) \(paint(kind, 31, colour)) \(JSONWriter.string(event))"
        }
    }

    private static func vector(_ value: JSONValue?) -> String {
        let components = (value?.arrayValue ?? []).compactMap(\.doubleValue).map { String(format: "%.3f", $0) }
        return "[" + components.joined(separator: ", ") + "]"
    }

    private static func paint(_ text: String, _ code: Int, _ colour: Bool) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
