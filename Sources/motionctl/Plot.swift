import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// `motionctl plot PLAN_JSON --out FILE.svg`: the plan's value over time, from `plan.sample`; an array of
/// plans draws them in one chart (to compare forms and parameters), each target marked.
struct Plot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw plans' values over time as an SVG (axes, units, one curve per component, targets, settle times).",
        discussion: """
            e.g. motionctl plot '{"type":"Spring","property":"position","from":[0,0],"to":[100,50]}' --out spring.svg
                 motionctl plot '[{"type":"Spring","property":"x","from":[0],"to":[1]},{"type":"Tween","property":"x","from":[0],"to":[1]}]' --out both.svg
            """)
    @OptionGroup var connection: Connection
    @Argument(help: "The plan as JSON, with a \"type\" and a \"property\"; or an array of plans, drawn in one chart.") var plan: String?
    @Option(help: "The SVG file to write (.svg; other formats are refused).") var out: String
    @Option(help: "Seconds to draw (default: until the animations settle, plus a margin).") var duration: Double?
    @Option(help: "Which property of a Sequence or Group to draw (default: its first plan's).") var property: String?
    @Option(name: .customLong("gesture"), help: "NAME=FILE: a recorded gesture ([{t, position, phase?}], t from the plan's start) replayed against Draggable and Tossable plans; repeatable.")
    var gestures: [String] = []
    @Option(help: "A JSON lines file of frames that went out (the inspector's download, motionctl watch --frames --json): drawn instead of a plan.")
    var frames: String?
    @Flag(help: "With --frames: draw velocities instead of values.") var velocity = false
    @Flag(help: "With --frames: draw each curve as progress from its first value (0) to its last (1), to compare shapes.") var normalize = false
    @Option(help: "With --frames: only this target's properties (repeatable).") var target: [String] = []

    func run() async throws {
        if let frames {
            guard plan == nil else { throw ValidationError("PLAN_JSON or --frames FILE, not both") }
            return try plotFrames(from: frames)
        }
        guard !velocity, !normalize, target.isEmpty else { throw ValidationError("--velocity, --normalize and --target go with --frames FILE") }
        guard let plan else { throw ValidationError("a PLAN_JSON to sample, or --frames FILE to draw frames that went out") }
        let json = try parseJSONArgument(plan, name: "PLAN_JSON")
        let plans = json.arrayValue ?? [json]
        guard !plans.isEmpty, plans.count <= 8, plans.allSatisfy({ $0["type"] != nil || $0["motion"] != nil }) else {
            throw ValidationError("PLAN_JSON: a plan with a \"type\" (or a \"motion\" token), or an array of 1 to 8 of them")
        }
        // Only SVG is written: a .png name would otherwise get SVG bytes under a PNG name.
        guard out.lowercased().hasSuffix(".svg") else {
            throw ValidationError("--out: \(out) is not an .svg file; motionctl plot writes SVG only (convert it with rsvg-convert or a browser)")
        }
        var recorded: [String: JSONValue] = [:]
        for entry in gestures {
            guard let equals = entry.firstIndex(of: "=") else { throw ValidationError("--gesture: expected NAME=FILE, got \(entry)") }
            let file = String(entry[entry.index(after: equals)...])
            let data = try readInputFile(file, label: "--gesture")
            recorded[String(entry[..<equals])] = try parseJSONArgument(String(decoding: data, as: UTF8.self), name: file)
        }
        let gestureParams: JSONValue? = recorded.isEmpty ? nil : .object(recorded)
        try await connection.run { client in
            // plan.sample says when each animation rests (`settlingDuration`, docs/vocabulary.md): delays, repeats
            // and springs included, and which property it samples (a composite's first plan's, unless asked).
            var probes: [(property: String, settle: Double?)] = []
            for plan in plans {
                var probeParams: JSONValue = ["plan": plan, "times": [0]]
                if let property { probeParams["property"] = .string(property) }
                if let gestureParams { probeParams["gestures"] = gestureParams }
                let probe = try await client.call("plan.sample", probeParams)
                guard let sampled = probe["property"]?.stringValue else { throw ValidationError("PLAN_JSON: nothing to sample") }
                probes.append((sampled, probe["settlingDuration"]?.doubleValue))
            }
            let settles = probes.map { $0.settle ?? 20 }
            let end = duration ?? max(0.25, (settles.max() ?? 20) * 1.15)
            let times = stride(from: 0.0, through: end, by: end / 400).map { $0 }
            var series: [PlotChart.Series] = []
            for (plan, probe) in zip(plans, probes) {
                let samples = try await Self.sample(client, plan, times, property: probe.property, gestures: gestureParams)
                // Before a `delay` ends the property has no value yet: those times are left out.
                let drawn = zip(times, samples).filter { !$0.1.value.isEmpty }
                series.append(PlotChart.Series(label: Self.label(of: plan), property: probe.property, times: drawn.map(\.0),
                                               values: drawn.map(\.1.value), settleTime: probe.settle,
                                               target: PlotChart.target(of: plan)))
            }
            let drawnProperty = probes[0].property
            let title = plans.count == 1 ? "\(Self.label(of: plans[0])) on \(drawnProperty)" : "\(plans.count) plans on \(drawnProperty)"
            let chart = PlotChart(title: title, property: drawnProperty, series: series)
            try write(chart)
            let curves = series.reduce(0) { $0 + ($1.values.first?.count ?? 0) }
            let settled = probes.compactMap(\.settle).map { String(format: "%.3g", $0) }
            print("wrote \(out): \(curves) curve(s) of \(plans.count) plan(s) over \(String(format: "%.3g", end)) s" +
                  (settled.count == probes.count ? ", settles at \(settled.joined(separator: ", ")) s" : ", still moving at the end"))
        }
    }

    /// Writes the chart to `--out`; a write that fails is a sentence, not a Foundation domain dump.
    func write(_ chart: PlotChart) throws {
        do {
            try Data(chart.svg.utf8).write(to: URL(fileURLWithPath: out))
        } catch {
            let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
            let reason = underlying?.domain == NSPOSIXErrorDomain ? String(cString: strerror(Int32(underlying!.code))) : "\(error)"
            printError("cannot write \(out): \(reason)\(reason.contains("No such file") ? " (does its folder exist?)" : "")")
            throw ExitCode(ExitCodes.serverError)
        }
    }

    /// A series' name in the legend: the plan's type and the theme tokens it names (`Spring @spatial.fast`),
    /// so a theme's pictures say which curve is which token.
    static func label(of plan: JSONValue) -> String {
        let tokens = ["spring", "motion", "timing", "duration"].compactMap { key -> String? in
            guard let name = plan[key]?.stringValue, name.hasPrefix("@") else { return nil }
            return name
        }
        // A plan whose type comes from its motion token is named by the token alone.
        let type = (plan["type"]?.stringValue).map { [$0] } ?? (tokens.isEmpty ? ["plan"] : [])
        return (type + tokens).joined(separator: " ")
    }

    static func sample(_ client: MotionClient, _ plan: JSONValue, _ times: [Double], property: String? = nil,
                       gestures: JSONValue? = nil) async throws -> [(value: [Double], velocity: [Double])] {
        var params: JSONValue = ["plan": plan, "times": .array(times.map { .number($0) })]
        if let property { params["property"] = .string(property) }
        if let gestures { params["gestures"] = gestures }
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

/// `motionctl timeline attach|scrub|detach`: scrub a runtime's animations (docs/protocol.md).
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
