import Foundation
import MotionClient
import MotionWire
import Testing

/// Issue #22: a moving tween never repeats a value in consecutive frames, and its frames are evenly paced
/// — on a daemon with a journal (`--state-dir`, as the shipped unit runs it), where each plan is applied
/// once written, and from rest, when the clock starts for it.
@Suite("Frame pacing")
struct FramePacingTests {
    @Test func aTweenStartedFromRestRepeatsNoValueAndTicksEvenly() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let daemon = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let client = try await daemon.client()
        let collector = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["bar"]])
        var repeats: [String] = [], intervals: [Double] = []
        for round in 0..<12 {
            await collector.clear()
            let tween: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [100], "duration": 0.1, "timing": "linear"]
            _ = try await client.call("plan.add", ["target": "bar", "plan": tween])
            let events = try await collector.waitFor(isTrace("runtime.idle"))
            // Each frame's value of bar.x, with the frame's time.
            let frames: [(t: Double, x: Double)] = events.compactMap { event in
                guard event["event"] == "frame", let t = event["t"]?.doubleValue,
                      let update = event["updates"]?.arrayValue?.first(where: { $0["target"] == "bar" }),
                      let x = update["value"]?.arrayValue?.first?.doubleValue else { return nil }
                return (t, x)
            }
            #expect(frames.first?.x == 0 && frames.last?.x == 100, "round \(round): \(frames)")
            for (previous, next) in zip(frames, frames.dropFirst()) {
                if next.x == previous.x { repeats.append("round \(round): \(previous) then \(next)") }
                intervals.append(next.t - previous.t)
            }
            // Real time on purpose: the clock goes idle between rounds, so each round's first tick is a start.
            try await Task.sleep(for: .milliseconds(30))
        }
        #expect(repeats.isEmpty, "\(repeats)")
        // 120 Hz: 8.3 ms apart. Before, every start sent its first values twice, microseconds apart (one
        // such pair a round, 12 in all); a late tick on a loaded machine may still come within a
        // millisecond of its successor now and then (3 such in 144 intervals beside a CPU-bound process).
        let doubled = intervals.filter { $0 < 0.0002 }, close = intervals.filter { $0 < 0.001 }
        let median = intervals.sorted()[intervals.count / 2]
        #expect(doubled.count <= 2 && close.count <= intervals.count / 10 && abs(median - 1.0 / 120) < 0.001,
                "median \(median) s, close: \(close)")
        await client.close()
        _ = await daemon.stop()
    }
}
