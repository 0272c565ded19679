import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/vocabulary.md#interactions: the LSQ2 release-velocity estimator exactly as pinned, with synthesised gestures, and
/// `gesture.push` / `gesture.velocity` over an in-process session.
@Suite("Gestures")
struct GestureTests {
    /// Samples every `step` seconds ending at `end`, positions from `x(t)`.
    static func samples(from start: Double, to end: Double, step: Double, _ x: (Double) -> Double) -> [VelocityTracker.Sample] {
        stride(from: start, through: end + 1e-12, by: step).map { VelocityTracker.Sample(time: $0, position: [x($0), 2 * x($0)]) }
    }

    static func velocity(_ samples: [VelocityTracker.Sample]) -> (velocity: [Double], used: Int) {
        var tracker = VelocityTracker()
        for sample in samples { tracker.add(sample) }
        return tracker.velocity()
    }

    @Test func aConstantVelocityIsFoundExactly() {
        let (velocity, used) = Self.velocity(Self.samples(from: 1, to: 1.08, step: 0.008) { 100 + 500 * ($0 - 1) })
        #expect(abs(velocity[0] - 500) < 1e-6 && abs(velocity[1] - 1000) < 1e-6, "\(velocity)")
        #expect(used == 11)
    }

    /// A parabola is fitted exactly: the velocity is its slope at the newest sample.
    @Test func anAccelerationGivesTheSlopeAtTheNewestSample() {
        let end = 2.0
        let (velocity, _) = Self.velocity(Self.samples(from: 1.93, to: end, step: 0.01) { 1 + 3 * ($0 - end) + 200 * ($0 - end) * ($0 - end) })
        #expect(abs(velocity[0] - 3) < 1e-6, "\(velocity)")
    }

    @Test func onlyTheLast100MillisecondsAndTwentySamplesCount() {
        #expect(Self.velocity(Self.samples(from: 0, to: 0.2, step: 0.008) { 7 * $0 }).used == 13, "0 to 96 ms back")
        #expect(Self.velocity(Self.samples(from: 0, to: 0.06, step: 0.002) { 7 * $0 }).used == 20, "at most 20")
    }

    /// A finger that stopped before it lifted: the newest sample is more than 40 ms after the one before,
    /// so it stands alone and the velocity is 0.
    @Test func aStopBeforeReleaseGivesZero() {
        var samples = Self.samples(from: 0, to: 0.05, step: 0.01) { 900 * $0 }
        samples.append(.init(time: 0.1, position: [45, 90]))
        let (velocity, used) = Self.velocity(samples)
        #expect(used == 1 && velocity == [0, 0])
    }

    @Test func aGapOver40MillisecondsCutsTheWindow() {
        var samples = Self.samples(from: 0, to: 0.03, step: 0.01) { -1000 * $0 }   // fast, then a pause
        samples += Self.samples(from: 0.075, to: 0.095, step: 0.01) { 50 * $0 }    // slow after the gap
        let (velocity, used) = Self.velocity(samples)
        #expect(used == 3 && abs(velocity[0] - 50) < 1e-6, "only the samples after the 45 ms gap: \(velocity), \(used)")
        #expect(Self.velocity(Array(samples.suffix(2))).velocity == [0, 0], "fewer than 3 samples: 0")
    }

    @Test func pushDryRunTraceAndRefusals() throws {
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output)
        #expect(output.lines.first?["result"]?["clock"] == "monotonic")
        #expect((output.lines.first?["result"]?["now"]?.doubleValue ?? 0) > 0)
        func call(_ method: String, _ params: JSONValue) -> JSONValue {
            context.receive(line: JSONWriter.bytes(["id": 1, "method": .string(method), "params": params]), from: 1)
            return output.lines.last { $0["id"] == 1 }?["result"] ?? output.lines.last { $0["id"] == 1 }?["error"] ?? .null
        }
        _ = call("subscribe", ["streams": ["trace"]])
        let moves: [JSONValue] = (0...10).map { index in
            ["t": .number(5 + Double(index) * 0.008), "position": [.number(10 + Double(index) * 4), 0], "phase": index == 0 ? "began" : "moved"]
        }
        #expect(call("gesture.push", ["gesture": "drag", "samples": .array(moves)])["phase"] == "moved")
        let ended = call("gesture.push", ["gesture": "drag", "samples": [["t": 5.09, "position": [999, 999], "phase": "ended"]]])
        let vx = ended["velocity"]?.arrayValue?.first?.doubleValue ?? 0
        #expect(abs(vx - 500) < 1e-6, "4 units per 8 ms; the ended position is not added: \(ended)")
        #expect(output.lines.contains { $0["kind"] == "gesture.began" && $0["gesture"] == "drag" })
        #expect(output.lines.last { $0["kind"] == "gesture.ended" }?["velocity"] == ended["velocity"])
        // A finger that stops, rests 100 ms, then lifts flings nothing.
        _ = call("gesture.push", ["gesture": "rest", "samples": .array(moves)])
        let rested = call("gesture.push", ["gesture": "rest", "samples": [["t": 5.18, "position": [50, 0], "phase": "ended"]]])
        #expect(rested["velocity"] == [0, 0], "\(rested)")
        let dry = call("gesture.velocity", ["samples": .array(moves)])
        #expect(dry["velocity"] == ended["velocity"] && dry["samples_used"] == 11)

        #expect(call("gesture.push", ["gesture": "drag", "samples": [["t": 1, "position": [0]]]])["code"] == "request.invalid", "time going back")
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 1, "position": [0]], ["t": 0.5, "position": [0]]]])["code"] == "request.invalid")
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 1, "position": [0, 1, 2]]]])["code"] == "request.invalid")
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 1, "position": [0], "phase": "lifted"]]])["code"] == "request.invalid")
        #expect(call("gesture.push", ["gesture": "g", "samples": .array((0...256).map { ["t": .number(Double($0)), "position": [0]] })])["code"] == "request.invalid")
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 1, "position": [0], "pressure": 1]]])["code"] == "request.invalid")
        // One dimension per gesture (a missing y was taken as 0 and made a velocity up); a began starts afresh.
        let mixed: JSONValue = [["t": 0, "position": [0, 0]], ["t": 0.01, "position": [1]], ["t": 0.02, "position": [2, 2]]]
        #expect(call("gesture.velocity", ["samples": mixed])["message"]
                == "samples[1].position: expected 2 coordinates, as samples[0] (a gesture keeps its dimension)")
        #expect(call("gesture.push", ["gesture": "drag", "samples": [["t": 6, "position": [1]]]])["message"]
                == "samples[0].position: expected 2 coordinates, as the gesture's earlier samples (a gesture keeps its dimension; a began starts it afresh)")
        #expect(call("gesture.push", ["gesture": "drag", "samples": [["t": 6, "position": [1], "phase": "began"]]])["phase"] == "began")
    }

    @Test func gesturesHaveAQuotaAndEndWithTheirRuntime() throws {
        let output = RecordingOutput()
        var configuration = DaemonConfiguration(socketPath: "/unused")
        configuration.quotas.gestures = 2
        let context = EngineContext(engine: try EngineHarness().engine, settings: configuration.engineSettings, logger: Logger(label: "test"))
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        func push(_ gesture: String, runtime: String = "default") -> JSONValue {
            context.receive(line: JSONWriter.bytes(["id": 1, "method": "gesture.push", "params": [
                "runtime": .string(runtime), "gesture": .string(gesture), "samples": [["t": 1, "position": [0]]]]]), from: 1)
            return output.lines.last?["result"] ?? output.lines.last?["error"] ?? .null
        }
        _ = push("a")
        _ = push("b")
        #expect(push("c")["code"] == "quota.exceeded")
        #expect(push("a")["gesture"] == "a", "pushing to one it has is fine")
        context.receive(line: Array(#"{"id":2,"method":"runtime.create","params":{"name":"r"}}"#.utf8), from: 1)
        #expect(push("c", runtime: "r")["code"] == "quota.exceeded", "the quota is per uid, across runtimes")
    }

    /// Issue #46: a sample timed far past the daemon's clock is refused (t: 1e300 made every later push to
    /// the gesture, `began` included, "go back in time" for good); a lone release is at rest in the
    /// gesture's dimension, not `[]`.
    @Test func absurdTimesAreRefusedAndALoneReleaseIsAtRest() throws {
        let output = RecordingOutput()
        let clock = ManualClock(monotonic: 100_000_000_000)   // 100 s
        let context = EngineContext(engine: try EngineHarness().engine, settings: EngineSettings(), logger: Logger(label: "test"), clock: clock)
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        func call(_ method: String, _ params: JSONValue) -> JSONValue {
            context.receive(line: JSONWriter.bytes(["id": 1, "method": .string(method), "params": params]), from: 1)
            return output.lines.last { $0["id"] == 1 }?["result"] ?? output.lines.last { $0["id"] == 1 }?["error"] ?? .null
        }
        let far = call("gesture.push", ["gesture": "g", "samples": [["t": 1e300, "position": [0], "phase": "began"]]])
        #expect(far["code"] == "request.invalid" && far["message"]?.stringValue?.contains("after the daemon's clock") == true, "\(far)")
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 111, "position": [0], "phase": "began"]]])["code"] == "request.invalid")
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 109, "position": [0], "phase": "began"]]])["phase"] == "began",
                "a moment ahead of the daemon's clock is fine")
        clock.advance(by: 20)
        #expect(call("gesture.push", ["gesture": "g", "samples": [["t": 115, "position": [0], "phase": "began"]]])["phase"] == "began",
                "later samples keep coming once the clock has moved")
        let lone = call("gesture.push", ["gesture": "h", "samples": [["t": 110, "position": [3, 4], "phase": "ended"]]])
        #expect(lone["velocity"] == [0, 0], "\(lone)")
        let dry = call("gesture.velocity", ["samples": [["t": 1, "position": [3, 4], "phase": "ended"]]])
        #expect(dry["velocity"] == [0, 0] && dry["samples_used"] == 0, "\(dry)")
    }
}
