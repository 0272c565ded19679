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
        abstract: "Measure frames delivered to one subscriber while N springs move.")

    @Option(help: "Use a running daemon on this socket; by default a motiond from this build is started.")
    var socket: String?
    @Option(help: "Number of springs (one target each).") var springs = 1000
    @Option(help: "Components per spring (1-4).") var dimensions = 2
    @Option(help: "Seconds to measure after all springs are added.") var seconds = 5.0
    @Option(help: "Frame rate passed to the daemon this tool starts.") var rate = 120.0
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() async throws {
        var daemon: Process?
        let path: String
        if let socket {
            path = socket
        } else {
            path = NSTemporaryDirectory() + "motion-bench-\(getpid()).sock"
            daemon = try startDaemon(socket: path)
        }
        defer {
            if let daemon, daemon.isRunning {
                kill(daemon.processIdentifier, SIGTERM)
                daemon.waitUntilExit()
            }
        }
        let client = try await connect(path)
        try await client.hello(client: "motion-bench")
        _ = try await client.call("subscribe", ["streams": ["frames"]])
        let target = JSONValue(Array(repeating: 1000.0, count: dimensions))
        for index in 0..<springs {
            // Very low damping and a tiny threshold: the springs oscillate for the whole measurement.
            _ = try await client.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": target, "tension": 120, "damping": 0.05,
                         "threshold": 1e-9],
            ])
        }
        // The window is measured in server time (`t` of each frame), starting after the last plan.add, so
        // frames queued while the plans were being added are not counted.
        let windowStart = try await client.call("status")["uptime"]?.doubleValue ?? 0
        var frames = 0, updates = 0, dropped = 0
        var times: [Double] = []
        for await event in client.events {
            guard event["event"] == "frame", let t = event["t"]?.doubleValue, t > windowStart else { continue }
            if t > windowStart + seconds { break }
            frames += 1
            updates += event["updates"]?.arrayValue?.count ?? 0
            dropped += event["dropped"]?.intValue ?? 0
            times.append(t)
        }
        let status = try await client.call("status")
        await client.close()
        report(frames: frames, updates: updates, dropped: dropped, times: times, status: status)
    }

    private func report(frames: Int, updates: Int, dropped: Int, times: [Double], status: JSONValue) {
        let intervals = zip(times.dropFirst(), times).map { ($0 - $1) * 1000 }.sorted()
        func percentile(_ p: Double) -> Double {
            intervals.isEmpty ? 0 : intervals[min(intervals.count - 1, Int(Double(intervals.count) * p))]
        }
        let result: JSONValue = [
            "springs": .number(Double(springs)), "dimensions": .number(Double(dimensions)),
            "seconds": .number(seconds), "framesPerSecond": .number((Double(frames) / seconds * 10).rounded() / 10),
            "updatesPerSecond": .number((Double(updates) / seconds).rounded()),
            "dropped": .number(Double(dropped)),
            "frameIntervalP50Ms": .number((percentile(0.5) * 1000).rounded() / 1000),
            "frameIntervalP99Ms": .number((percentile(0.99) * 1000).rounded() / 1000),
            "daemonTick": status["tick"] ?? .null, "daemonRate": status["rate"] ?? .null,
        ]
        if json { return print(JSONWriter.string(result)) }
        print("springs \(springs) × \(dimensions)-D, measured \(seconds) s, daemon rate \(status["rate"]?.doubleValue ?? 0) Hz")
        print("frames/s received \(result["framesPerSecond"]!.doubleValue!)  updates/s \(Int(result["updatesPerSecond"]!.doubleValue!))  dropped \(dropped)")
        print("frame interval p50 \(result["frameIntervalP50Ms"]!.doubleValue!) ms  p99 \(result["frameIntervalP99Ms"]!.doubleValue!) ms")
        print("daemon tick \(JSONWriter.string(status["tick"] ?? .null))")
    }

    private func startDaemon(socket: String) throws -> Process {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("motiond")
        process.arguments = ["--socket", socket, "--rate", String(rate), "--log-level", "warning"]
        try process.run()
        return process
    }

    private func connect(_ path: String) async throws -> MotionClient {
        for _ in 0..<200 {
            if let client = try? await MotionClient.connect(path: path) { return client }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ValidationError("cannot connect to \(path)")
    }
}
