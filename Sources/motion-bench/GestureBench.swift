import ArgumentParser
import Foundation
import MotionClient
import MotionEngine
import MotionWire
import Synchronization

/// Pointer sample → frame (docs/vocabulary.md#interactions, issue #19): a `Draggable` follows a gesture; each trial pushes one
/// sample that moves the pointer to a new x and times the frame that carries the property there. Also the
/// release-velocity estimator's cost per sample, in-process.
struct GestureBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture", abstract: "Measure gesture sample → frame latency over the real socket, and the estimator's cost.")

    @Option(help: "Number of samples pushed.") var trials = 500
    @Option(help: "Frame rate passed to the daemon.") var rate = 120.0
    @Flag(help: "Print one JSON object instead of text.") var json = false

    func run() async throws {
        let path = NSTemporaryDirectory() + "motion-bench-gesture-\(getpid()).sock"
        let daemon = try startBenchDaemon(socket: path, rate: rate)
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        let client = try await connect(path)
        let hello = try await client.hello(client: "motion-bench")
        let clock = hello["now"]?.doubleValue ?? 0
        let started = DispatchTime.now().uptimeNanoseconds
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Draggable", "property": "x", "gesture": "finger", "axis": "x"]])
        _ = try await client.call("subscribe", ["streams": ["frames"], "targets": ["card"]])
        let seen = Mutex<[Int: UInt64]>([:])
        let events = client.events
        let reader = Task {
            for await event in events where event["event"] == "frame" {
                let now = DispatchTime.now().uptimeNanoseconds
                for update in event["updates"]?.arrayValue ?? [] {
                    guard let x = update["value"]?.arrayValue?.first?.doubleValue else { continue }
                    seen.withLock { if $0[Int(x.rounded())] == nil { $0[Int(x.rounded())] = now } }
                }
            }
        }
        // Monotonic seconds as the daemon counts them (hello's `now` at our `started`).
        func hostTime() -> Double { clock + Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
        let began: JSONValue = ["t": .number(hostTime()), "position": [0], "phase": "began"]
        _ = try await client.call("gesture.push", ["gesture": "finger", "samples": .array([began])])
        var sent: [UInt64] = []
        for trial in 1...trials {
            try await Task.sleep(for: .microseconds(Int.random(in: 2_000...12_000)))
            sent.append(DispatchTime.now().uptimeNanoseconds)
            let sample: JSONValue = ["t": .number(hostTime()), "position": .array([.number(Double(trial))])]
            _ = try await client.call("gesture.push", ["gesture": "finger", "samples": .array([sample])])
        }
        try await Task.sleep(for: .milliseconds(200))
        reader.cancel()
        let arrivals = seen.withLock { $0 }
        var latencies: [Double] = []
        for trial in 1...trials {
            guard let arrival = arrivals[trial] else { continue }
            latencies.append(Double(arrival &- sent[trial - 1]) / 1e6)
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        await client.close()

        // The estimator: add a sample and estimate, over a 20-sample window, in-process.
        var tracker = VelocityTracker()
        let rounds = 200_000
        let begin = DispatchTime.now().uptimeNanoseconds
        var sink = 0.0
        for index in 0..<rounds {
            tracker.add(.init(time: Double(index) * 0.004, position: [Double(index), Double(index) * 0.5]))
            sink += tracker.velocity().velocity[0]
        }
        let perSample = Double(DispatchTime.now().uptimeNanoseconds - begin) / Double(rounds)

        let result: JSONValue = [
            "trials": .number(Double(trials)), "received": .number(Double(latencies.count)), "rate": .number(rate),
            "p50Ms": .number((percentile(0.5) * 1000).rounded() / 1000), "p99Ms": .number((percentile(0.99) * 1000).rounded() / 1000),
            "maxMs": .number(((latencies.last ?? .nan) * 1000).rounded() / 1000),
            "estimatorNsPerSample": .number(perSample.rounded()), "checksum": .number(sink.isFinite ? 1 : 0),
        ]
        if json { return print(JSONWriter.string(result)) }
        print("gesture sample → frame over \(latencies.count)/\(trials) samples at \(rate) Hz: p50 \(result["p50Ms"]!.doubleValue!) ms, "
              + "p99 \(result["p99Ms"]!.doubleValue!) ms, max \(result["maxMs"]!.doubleValue!) ms; estimator \(perSample.rounded()) ns per sample")
    }
}
