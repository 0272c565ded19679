import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// `motionctl plot PLAN_JSON --out FILE.svg`: the plan's value over time, from `plan.sample`.
struct Plot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a plan's value over time as an SVG (axes, units, one curve per component, settle time).",
        discussion: "e.g. motionctl plot '{\"type\":\"Spring\",\"property\":\"position\",\"from\":[0,0],\"to\":[100,50]}' --out spring.svg")
    @OptionGroup var connection: Connection
    @Argument(help: "The plan as JSON, with a \"type\" and a \"property\".") var plan: String
    @Option(help: "The SVG file to write (.svg; other formats are refused).") var out: String
    @Option(help: "Seconds to draw (default: until the animation settles, plus a margin).") var duration: Double?
    @Option(help: "Which property of a Sequence or Group to draw (default: its first plan's).") var property: String?

    func run() async throws {
        let planJSON = try parseJSONArgument(plan, name: "PLAN_JSON")
        guard planJSON["type"] != nil else { throw ValidationError("PLAN_JSON: needs a \"type\"") }
        // Only SVG is written: a .png name would otherwise get SVG bytes under a PNG name.
        guard out.lowercased().hasSuffix(".svg") else {
            throw ValidationError("--out: \(out) is not an .svg file; motionctl plot writes SVG only (convert it with rsvg-convert or a browser)")
        }
        try await connection.run { client in
            // plan.sample says when the animation rests (`settlingDuration`, SPEC §10): delays, repeats
            // and springs included.
            var probeParams: JSONValue = ["plan": planJSON, "times": [0]]
            if let property { probeParams["property"] = .string(property) }
            let probe = try await client.call("plan.sample", probeParams)
            // The daemon names the property it samples (a composite's first plan's, unless one is asked).
            guard let property = probe["property"]?.stringValue else { throw ValidationError("PLAN_JSON: nothing to sample") }
            let settle = probe["settlingDuration"]?.doubleValue
            let probeTimes = [20.0]
            let end = duration ?? max(0.25, (settle ?? probeTimes.last!) * 1.15)
            let times = stride(from: 0.0, through: end, by: end / 400).map { $0 }
            let samples = try await Self.sample(client, planJSON, times, property: property)
            // Before a `delay` ends the property has no value yet: those times are left out.
            let drawn = zip(times, samples).filter { !$0.1.value.isEmpty }
            let chart = PlotChart(title: "\(planJSON["type"]?.stringValue ?? "plan") on \(property)", property: property,
                                  times: drawn.map(\.0), values: drawn.map(\.1.value), settleTime: settle)
            try Data(chart.svg.utf8).write(to: URL(fileURLWithPath: out))
            print("wrote \(out): \(drawn.first?.1.value.count ?? 0) curve(s) over \(String(format: "%.3g", end)) s" +
                  (settle.map { ", settles at \(String(format: "%.3g", $0)) s" } ?? ", still moving at the end"))
        }
    }

    static func sample(_ client: MotionClient, _ plan: JSONValue, _ times: [Double],
                       property: String? = nil) async throws -> [(value: [Double], velocity: [Double])] {
        var params: JSONValue = ["plan": plan, "times": .array(times.map { .number($0) })]
        if let property { params["property"] = .string(property) }
        let result = try await client.call("plan.sample", params)
        return (result["samples"]?.arrayValue ?? []).map { sample in
            ((sample["value"]?.arrayValue ?? []).compactMap(\.doubleValue), (sample["velocity"]?.arrayValue ?? []).compactMap(\.doubleValue))
        }
    }

    /// The first time from which every later sample equals the final value within `threshold` and moves
    /// slower than it: nil if still moving at the last sample.
    static func settleTime(times: [Double], samples: [(value: [Double], velocity: [Double])], threshold: Double) -> Double? {
        guard let last = samples.last, last.velocity.allSatisfy({ abs($0) <= threshold }) else { return nil }
        var settled = times.count - 1
        while settled > 0 {
            let sample = samples[settled - 1]
            let still = zip(sample.value, last.value).allSatisfy { abs($0 - $1) <= threshold }
                && sample.velocity.allSatisfy { abs($0) <= threshold }
            if !still { break }
            settled -= 1
        }
        return times[settled]
    }
}

/// `motionctl timeline attach|scrub|detach`: scrub a runtime's animations (SPEC §2).
struct TimelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline", abstract: "Pause a runtime on a scrubber, scrub it to an offset, let it go.",
        subcommands: [Attach.self, Scrub.self, Detach.self])

    struct Attach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Attach a scrubber: the runtime's clock stops while this command runs.",
            discussion: "A scrubber ends with the connection that attached it, so this command holds its connection (until Ctrl-C, or for --hold seconds); scrub and detach from another terminal.")
        @OptionGroup var connection: Connection
        @Option(help: "Seconds from the runtime's start (default 0).") var offset: Double?
        @Option(help: "The runtime (default: default).") var runtime: String?
        @Option(help: "Detach after this many seconds (default: hold until interrupted).") var hold: Double?
        func run() async throws { try await timeline(connection, "timeline.attach", runtime, offset, hold: hold ?? .infinity) }
    }

    struct Scrub: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every animation of the runtime at OFFSET seconds.")
        @OptionGroup var connection: Connection
        @Argument(help: "Seconds from the runtime's start.") var offset: Double
        @Option(help: "The runtime (default: default).") var runtime: String?
        func run() async throws { try await timeline(connection, "timeline.scrub", runtime, offset) }
    }

    struct Detach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Detach the scrubber: live values return, the clock runs on.")
        @OptionGroup var connection: Connection
        @Option(help: "The runtime (default: default).") var runtime: String?
        func run() async throws { try await timeline(connection, "timeline.detach", runtime, nil) }
    }
}

private func timeline(_ connection: Connection, _ method: String, _ runtime: String?, _ offset: Double?,
                      hold: Double = 0) async throws {
    var params: [String: JSONValue] = [:]
    if let runtime { params["runtime"] = .string(runtime) }
    if let offset { params["offset"] = .number(offset) }
    try await connection.run { client in
        let result = try await client.call(method, .object(params))
        let state = result["attached"] == true ? "attached at \(result["offset"]?.doubleValue ?? 0) s" : "detached"
        print("\(result["runtime"]?.stringValue ?? "?"): \(state) (clock \(result["clock"]?.doubleValue ?? 0) s)")
        // Out now, not when the buffer fills: a held scrubber ends with a signal, which loses the buffer.
        fflush(nil)
        guard hold > 0 else { return }
        if hold.isFinite {
            try await Task.sleep(for: .seconds(hold))
        } else {
            print("holding the scrubber; Ctrl-C detaches")
            fflush(nil)
            for await _ in client.events {}  // until interrupted, or the daemon closes the connection
        }
    }
}
