import ArgumentParser
import Foundation
import MotionClient
import MotionWire

/// End-to-end throughput: N springs that keep moving, one subscriber over the real socket. Reports the
/// frame rate and update rate the subscriber receives and the daemon's own tick timing.
@main
struct MotionBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motion-bench",
        abstract: "Measurements for BENCHMARKS.md.",
        subcommands: [StreamBench.self, CurvesBench.self, SwapBench.self, EngineBench.self, LatencyBench.self, ClientsBench.self, GestureBench.self], defaultSubcommand: StreamBench.self)
}

struct StreamBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Measure frames delivered to one subscriber while N springs move.")

    @Option(help: "Use a running daemon on this socket; by default a motiond from this build is started.")
    var socket: String?
    @Option(help: "Number of springs (one target each).") var springs = 1000
    @Option(help: "Components per spring (1-4).") var dimensions = 2
    @Option(help: "Seconds to measure after all springs are added.") var seconds = 5.0
    @Option(help: "Frame rate passed to the daemon this tool starts.") var rate = 120.0
    @Flag(help: "Print one JSON object instead of text.") var json = false
    @Flag(help: "Subscribe nobody: measure the daemon's tick (status.tick) with the springs alone.") var noSubscriber = false
    @Option(help: "With --no-subscriber: this many clients, each subscribed to the frames of one idle target of its own (a subscriber should cost what it receives, not what moves).")
    var filtered = 0
    @Option(help: "With --no-subscriber: while measuring, add this many Spring plans a second, each to a moving spring's property (a claim, and a read of where it is), one at a time.")
    var retarget = 0.0
    @Option(help: "The subscriber's transport: json (a reader that scans lines) or shm (libmotion-client reading every changed value from shared memory).")
    var transport = "json"

    func run() async throws {
        let daemon = try BenchDaemon(socket: socket, name: "stream", rate: rate)
        defer { daemon.stop() }
        let path = daemon.path
        let client = try await connect(path)
        try await client.hello(client: "motion-bench")
        let target = JSONValue(Array(repeating: 1000.0, count: dimensions))
        // Very low damping and a tiny threshold: the springs oscillate for the whole measurement. Sent 512
        // at a time (a request waits for the engine between ticks, so one at a time would take minutes).
        let addStart = Date()
        for batch in stride(from: 0, to: springs, by: 512) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in batch..<min(batch + 512, springs) {
                    group.addTask {
                        _ = try await client.call("plan.add", [
                            "target": .string("s\(index)"),
                            "plan": ["type": "Spring", "property": "position", "to": target, "tension": 120, "damping": 0.05,
                                     "threshold": 1e-9],
                        ])
                    }
                }
                try await group.waitForAll()
            }
        }
        // plan.add throughput over one connection, 512 requests in flight.
        let addsPerSecond = JSONValue.number((Double(springs) / Date().timeIntervalSince(addStart)).rounded())
        if noSubscriber {
            var readers: [RawFrameReader] = []
            for index in 0..<filtered {
                _ = try await client.call("plan.add", ["target": .string("idle\(index)"),
                                                       "plan": ["type": "Set", "property": "opacity", "value": [1]]])
                let reader = try RawFrameReader(path: path)
                reader.send(#"{"id":1,"method":"hello","params":{"protocol":1,"client":"motion-bench"}}"#)
                reader.send(#"{"id":2,"method":"subscribe","params":{"streams":["frames"],"targets":["idle\#(index)"]}}"#)
                readers.append(reader)
            }
            // The tick statistics cover the last ticks (status.tick): wait them out with everyone subscribed.
            var retargeted = 0
            let deadline = Date().addingTimeInterval(seconds)
            while retarget > 0, Date() < deadline {
                _ = try await client.call("plan.add", [
                    "target": .string("s\(retargeted * 7919 % springs)"),
                    "plan": ["type": "Spring", "property": "position", "to": JSONValue(Array(repeating: 900.0, count: dimensions)),
                             "tension": 120, "damping": 0.05, "threshold": 1e-9],
                ])
                retargeted += 1
                try await Task.sleep(for: .seconds(1 / retarget))
            }
            if retarget <= 0 { try await Task.sleep(for: .seconds(seconds)) }
            let status = try await client.call("status")
            for reader in readers { reader.close() }
            await client.close()
            let result: JSONValue = [
                "springs": .number(Double(springs)), "dimensions": .number(Double(dimensions)), "seconds": .number(seconds),
                "plansAddedPerSecond": addsPerSecond, "filteredSubscribers": .number(Double(filtered)),
                "retargetedWhileMeasuring": .number(Double(retargeted)),
                "animations": status["animations"] ?? .null, "daemonTick": status["tick"] ?? .null,
                "daemonRate": status["rate"] ?? .null,
            ]
            return print(json ? JSONWriter.string(result)
                : "springs \(springs) × \(dimensions)-D, \(filtered) filtered subscribers: status.animations \(status["animations"] ?? .null), tick \(JSONWriter.string(status["tick"] ?? .null))")
        }
        if transport == "shm" {
            let now = try await client.call("status")["uptime"]?.doubleValue ?? 0
            let measured = try SharedFrameReader.run(path: path, slots: springs + 16, from: now + 0.5, to: now + 0.5 + seconds)
            let status = try await client.call("status")
            await client.close()
            var raw = RawFrameReader.Result()
            raw.frames = measured.frames
            raw.updates = measured.updates
            raw.times = measured.times
            return report(raw, status: status, extra: [
                "transport": "shm", "regionBytes": .number(Double(measured.regionBytes)),
                "readerNanosecondsPerUpdate": .number((measured.readNanoseconds / Double(max(measured.updates, 1)) * 100).rounded() / 100),
            ])
        }
        // A separate subscriber that scans lines instead of parsing them. The window is in server time
        // (each frame's `t`), after a warm-up, so nothing queued while the plans were added is counted.
        let reader = try RawFrameReader(path: path)
        reader.send(#"{"id":1,"method":"hello","params":{"protocol":1,"client":"motion-bench"}}"#)
        reader.send(#"{"id":2,"method":"subscribe","params":{"streams":["frames"]}}"#)
        let now = try await client.call("status")["uptime"]?.doubleValue ?? 0
        let measured = reader.read(from: now + 0.5, to: now + 0.5 + seconds)
        reader.close()
        let status = try await client.call("status")
        await client.close()
        report(measured, status: status)
    }

    private func report(_ measured: RawFrameReader.Result, status: JSONValue, extra: [String: JSONValue] = ["transport": "json"]) {
        let intervals = zip(measured.times.dropFirst(), measured.times).map { ($0 - $1) * 1000 }.sorted()
        func percentile(_ p: Double) -> Double {
            intervals.isEmpty ? 0 : intervals[min(intervals.count - 1, Int(Double(intervals.count) * p))]
        }
        func round3(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
        var result: JSONValue = [
            "springs": .number(Double(springs)), "dimensions": .number(Double(dimensions)),
            "seconds": .number(seconds), "framesPerSecond": round3(Double(measured.frames) / seconds),
            "updatesPerSecond": .number((Double(measured.updates) / seconds).rounded()),
            "megabytesPerSecond": round3(Double(measured.bytes) / seconds / 1e6),
            "dropped": .number(Double(measured.dropped)),
            "frameIntervalP50Ms": round3(percentile(0.5)), "frameIntervalP99Ms": round3(percentile(0.99)),
            "frameIntervalMaxMs": round3(intervals.last ?? 0),
            "daemonTick": status["tick"] ?? .null, "daemonRate": status["rate"] ?? .null,
        ]
        for (key, value) in extra { result[key] = value }
        if json { return print(JSONWriter.string(result)) }
        print("springs \(springs) × \(dimensions)-D, measured \(seconds) s, daemon rate \(status["rate"]?.doubleValue ?? 0) Hz")
        print("frames/s \(result["framesPerSecond"]!.doubleValue!)  updates/s \(Int(result["updatesPerSecond"]!.doubleValue!))  MB/s \(result["megabytesPerSecond"]!.doubleValue!)  dropped \(measured.dropped)")
        print("frame interval p50 \(result["frameIntervalP50Ms"]!.doubleValue!) ms  p99 \(result["frameIntervalP99Ms"]!.doubleValue!) ms  max \(result["frameIntervalMaxMs"]!.doubleValue!) ms")
        if let cost = extra["readerNanosecondsPerUpdate"] { print("shm reader \(JSONWriter.string(cost)) ns per update") }
        print("daemon tick \(JSONWriter.string(status["tick"] ?? .null))")
    }

}

/// The daemon a measurement talks to: one already running on `socket`, or a motiond of this build
/// started on a temporary socket and stopped (SIGTERM) by `stop()`.
struct BenchDaemon {
    let path: String
    private let process: Process?

    init(socket: String?, name: String, rate: Double) throws {
        if let socket {
            path = socket
            process = nil
        } else {
            path = NSTemporaryDirectory() + "motion-bench-\(name)-\(getpid()).sock"
            process = try startBenchDaemon(socket: path, rate: rate)
        }
    }

    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}

/// Starts the motiond of this build on `socket`.
func startBenchDaemon(socket: String, rate: Double, extra: [String] = []) throws -> Process {
    let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("motiond")
    // MOTION_BENCH_LOG_LEVEL=debug shows the daemon's own timings (plugin installs, swaps) on stderr.
    let level = ProcessInfo.processInfo.environment["MOTION_BENCH_LOG_LEVEL"] ?? "warning"
    // One uid drives every spring here: its performer quota (100,000 by default) is raised to the
    // largest measurement's, as an operator would in motiond.json.
    let config = socket + ".json"
    try Data(#"{"quotas":{"performers":2000000,"animations":4000000}}"#.utf8).write(to: URL(fileURLWithPath: config))
    process.arguments = ["--socket", socket, "--rate", String(rate), "--log-level", level, "--config", config] + extra
    try process.run()
    return process
}

/// Connects once the daemon listens (up to 10 s).
func connect(_ path: String) async throws -> MotionClient {
    for _ in 0..<200 {
        if let client = try? await MotionClient.connect(path: path) { return client }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw ValidationError("cannot connect to \(path)")
}
