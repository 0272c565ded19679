import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// Hot swap under load: N springs keep moving while every shipped plugin is replaced (a new file,
/// renamed over the old one) and `plugins.reload` swaps them, repeatedly. Reports how the frame clock
/// fared around the swaps: the longest interval between frames against 1.5× the nominal one (BENCHMARKS.md), sequence
/// gaps, and how long each reload took.
struct SwapBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swap", abstract: "Measure frame timing while plugins are hot-swapped under N moving springs.")

    @Option(help: "Number of moving springs.") var springs = 1000
    @Option(help: "Number of swaps (each replaces every shipped plugin).") var swaps = 5
    @Option(help: "Seconds between swaps.") var interval = 1.0
    @Option(help: "Frame rate passed to the daemon.") var rate = 120.0
    @Flag(help: "Print one JSON object instead of text.") var json = false

    /// BENCHMARKS.md: no frame interval above 1.5× nominal around a swap.
    static let limit = 1.5

    static let shipped = ["libSpringPlugin.so", "libTweenPlugin.so", "libDecayPlugin.so", "libSetPlugin.so", "libCurvesPlugin.so"]

    func run() async throws {
        let build = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            .deletingLastPathComponent()
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("motion-bench-swap-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in Self.shipped {
            try FileManager.default.copyItem(at: build.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = Process()
        daemon.executableURL = build.appendingPathComponent("motiond")
        daemon.arguments = ["--socket", socket, "--rate", String(rate), "--plugins", directory.path, "--no-shipped-plugins", "--log-level",
                            ProcessInfo.processInfo.environment["MOTION_BENCH_LOG_LEVEL"] ?? "warning"]
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        var client: MotionClient?
        for _ in 0..<200 where client == nil {
            client = try? await MotionClient.connect(path: socket)
            if client == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let client else { throw ValidationError("motiond did not start") }
        try await client.hello(client: "motion-bench")
        for index in 0..<springs {
            _ = try await client.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": [1000, 1000], "tension": 120, "damping": 0.05,
                         "threshold": 1e-9],
            ])
        }
        let reader = try RawFrameReader(path: socket)
        reader.send(#"{"id":1,"method":"hello","params":{"protocol":1,"client":"motion-bench"}}"#)
        reader.send(#"{"id":2,"method":"subscribe","params":{"streams":["frames"]}}"#)
        let start = (try await client.call("status")["uptime"]?.doubleValue ?? 0) + 0.5
        // Measured until every swap is done and one more interval has passed (a swap under many springs
        // takes longer than `interval`).
        let measuring = Task.detached { reader.read(from: start, to: .infinity) }
        var reloads: [Double] = [], swapTimes: [Double] = [], migrated = 0, outcomes: [String] = []
        for round in 0..<swaps {
            try await Task.sleep(for: .seconds(interval))
            for name in Self.shipped {
                var data = try Data(contentsOf: directory.appendingPathComponent(name))
                data.append(contentsOf: Array("rebuild \(round)".utf8))
                let temporary = directory.appendingPathComponent(".\(name).tmp")
                try data.write(to: temporary)
                rename(temporary.path, directory.appendingPathComponent(name).path)
            }
            swapTimes.append(try await client.call("status")["uptime"]?.doubleValue ?? 0)
            let began = Date()
            let reply = try await client.call("plugins.reload")
            reloads.append(Date().timeIntervalSince(began) * 1000)
            for result in reply["results"]?.arrayValue ?? [] {
                outcomes.append(result["outcome"]?.stringValue ?? "?")
                migrated += result["migrated"]?.intValue ?? 0
            }
        }
        try await Task.sleep(for: .seconds(interval))
        reader.stop()
        let measured = await measuring.value
        reader.close()
        let status = try await client.call("status")
        await client.close()

        let intervals = zip(measured.times.dropFirst(), measured.times).map { ($0 - $1) * 1000 }
        let nominal = 1000 / rate
        let aroundSwaps = zip(measured.times.dropFirst(), intervals).filter { time, _ in
            swapTimes.contains { time >= $0 - 0.05 && time <= $0 + 1.0 }
        }.map(\.1)
        func round3(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
        let result: JSONValue = [
            "springs": .number(Double(springs)), "swaps": .number(Double(swaps)), "rate": .number(rate),
            "pluginsSwapped": .number(Double(outcomes.filter { $0 == "swapped" }.count)),
            "otherOutcomes": .array(outcomes.filter { $0 != "swapped" }.map { .string($0) }),
            "performersMigrated": .number(Double(migrated)),
            "frames": .number(Double(measured.frames)), "seqGaps": .number(Double(measured.seqGaps)),
            "dropped": .number(Double(measured.dropped)),
            "maxIntervalMs": round3(intervals.max() ?? 0), "maxIntervalAroundSwapsMs": round3(aroundSwaps.max() ?? 0),
            "limitMs": round3(Self.limit * nominal),
            "intervalsAboveLimit": .number(Double(intervals.filter { $0 > Self.limit * nominal }.count)),
            "reloadMs": .array(reloads.map(round3)), "daemonTick": status["tick"] ?? .null,
        ]
        if json { return print(JSONWriter.string(result)) }
        print("springs \(springs), \(swaps) swaps of \(Self.shipped.count) plugins at \(rate) Hz: \(outcomes.filter { $0 == "swapped" }.count) swapped, \(migrated) performers migrated")
        print("frames \(measured.frames), seq gaps \(measured.seqGaps), dropped \(measured.dropped)")
        print("max frame interval \(result["maxIntervalMs"]!.doubleValue!) ms (around swaps \(result["maxIntervalAroundSwapsMs"]!.doubleValue!) ms), limit \(Self.limit)× = \(result["limitMs"]!.doubleValue!) ms, intervals above it: \(result["intervalsAboveLimit"]!.doubleValue!)")
        print("plugins.reload round trips (ms): \(reloads.map { String(format: "%.1f", $0) }.joined(separator: ", "))")
        print("daemon tick \(JSONWriter.string(status["tick"] ?? .null))")
    }
}
