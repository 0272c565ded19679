import ArgumentParser
import Foundation
import MotionClient
import MotionWire
import Synchronization

/// Plan → first frame: the time from sending `plan.add` (a Spring on a new target) to receiving the
/// first frame that carries that target, over many trials at random phases of the frame clock.
struct LatencyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency", abstract: "Measure plan.add → first frame latency over the real socket.")

    @Option(help: "Number of trials.") var trials = 300
    @Option(help: "Frame rate passed to the daemon.") var rate = 120.0
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() async throws {
        let path = NSTemporaryDirectory() + "motion-bench-latency-\(getpid()).sock"
        let daemon = try startBenchDaemon(socket: path, rate: rate)
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        let client = try await connect(path)
        try await client.hello(client: "motion-bench")
        _ = try await client.call("subscribe", ["streams": ["frames"]])
        let firstSeen = Mutex<[String: UInt64]>([:])
        let events = client.events
        let reader = Task {
            for await event in events where event["event"] == "frame" {
                let now = DispatchTime.now().uptimeNanoseconds
                for update in event["updates"]?.arrayValue ?? [] {
                    guard let target = update["target"]?.stringValue, target.hasPrefix("probe") else { continue }
                    firstSeen.withLock { if $0[target] == nil { $0[target] = now } }
                }
            }
        }
        var sent: [UInt64] = []
        for trial in 0..<trials {
            try await Task.sleep(for: .microseconds(Int.random(in: 5_000...25_000)))
            sent.append(DispatchTime.now().uptimeNanoseconds)
            _ = try await client.call("plan.add", ["target": .string("probe\(trial)"), "plan": [
                "type": "Spring", "property": "x", "from": [0], "to": [100], "threshold": 1]])
        }
        try await Task.sleep(for: .milliseconds(300))
        reader.cancel()
        let seen = firstSeen.withLock { $0 }
        let latencies = (0..<trials).compactMap { trial in seen["probe\(trial)"].map { Double($0 - sent[trial]) / 1e6 } }.sorted()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        let result: JSONValue = [
            "trials": .number(Double(trials)), "received": .number(Double(latencies.count)), "rate": .number(rate),
            "p50Ms": .number((percentile(0.5) * 1000).rounded() / 1000), "p99Ms": .number((percentile(0.99) * 1000).rounded() / 1000),
            "maxMs": .number(((latencies.last ?? .nan) * 1000).rounded() / 1000),
        ]
        await client.close()
        if json { return print(JSONWriter.string(result)) }
        print("plan.add → first frame over \(latencies.count)/\(trials) trials at \(rate) Hz: p50 \(result["p50Ms"]!.doubleValue!) ms, p99 \(result["p99Ms"]!.doubleValue!) ms, max \(result["maxMs"]!.doubleValue!) ms")
    }
}
