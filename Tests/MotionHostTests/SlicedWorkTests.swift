import Logging
@testable import MotionEngine
import MotionWire
import Synchronization
import Testing

/// docs/protocol.md "bounded work per tick": a long `plan.sample` and a timeline replay are worked in slices
/// between ticks; other clients are answered meanwhile, the requester's later requests keep their order,
/// and nothing of the dry run reaches a subscriber.
@Suite("Sliced work")
struct SlicedWorkTests {
    /// Stands in for the engine loop: continuations queue here and the test runs them between ticks.
    final class Pump: @unchecked Sendable {
        let queue = Mutex<[@Sendable (EngineContext) -> Void]>([])
        func next() -> (@Sendable (EngineContext) -> Void)? {
            queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }

        /// Takes `context`'s continuations (what the engine loop would run next).
        func install(on context: EngineContext) {
            context.hooks.onEngineThread = { body in self.queue.withLock { $0.append(body) } }
            context.hooks.onEngineThreadFor = { _, _, body in self.queue.withLock { $0.append(body) } }
        }

        /// Runs continuations one per frame, ticking before each, until none is left; returns how many ran.
        func run(on context: EngineContext) -> Int {
            var slices = 0
            while let body = next() {
                context.tick(dt: 1.0 / 120)
                body(context)
                context.publishControlFrame()
                slices += 1
            }
            return slices
        }
    }

    let requester = RecordingOutput(), other = RecordingOutput()
    let context: EngineContext
    let pump = Pump()

    init(sliced: Bool = true) throws {
        context = try TestContext.greeted(on: requester)
        if sliced { pump.install(on: context) }
        context.openSession(2, output: other)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 2)
    }

    func send(_ session: UInt64, _ id: Int, _ method: String, _ params: JSONValue) {
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: session)
    }

    func runSlices() -> Int { pump.run(on: context) }

    static let times: JSONValue = .array((0..<10_000).map { .number(Double($0) * 0.06) })
    static let samplePlan: JSONValue = ["type": "Frames", "frames": 100_000, "property": "frames"]

    @Test func aLongSampleRunsInSlicesWhileOthersAreAnsweredInOrder() throws {
        send(2, 1, "subscribe", ["streams": ["frames", "trace"]])
        send(1, 1, "plan.sample", ["plan": Self.samplePlan, "times": Self.times])
        send(1, 2, "sync", [:])
        #expect(requester.lines.filter { $0["id"] != nil && $0["id"] != 0 }.isEmpty, "nothing answered yet: it is sliced")
        send(2, 2, "status", [:])
        #expect(other.lines.last?["id"] == 2, "another client is answered while the sample runs")
        let slices = runSlices()
        #expect(slices > 1, "worked in \(slices) slices")
        let answered = requester.lines.compactMap { $0["id"] }.filter { $0 != 0 }
        #expect(answered == [1, 2], "the requester's later request waited for it")
        let samples = try #require(requester.lines.first { $0["id"] == 1 }?["result"]?["samples"]?.arrayValue)
        #expect(samples.count == 10_000)
        #expect(other.lines.allSatisfy { $0["event"] == nil }, "no frame or event of the dry run went out: \(other.lines.prefix(3))")

        let inline = try SlicedWorkTests(sliced: false)
        inline.send(1, 1, "plan.sample", ["plan": Self.samplePlan, "times": Self.times])
        #expect(inline.requester.lines.last?["result"]?["samples"]?.arrayValue == samples, "slices change nothing in the answer")
    }

    @Test func aConnectionThatGoesAwayMidSampleLeavesNothingBehind() {
        send(1, 1, "plan.sample", ["plan": Self.samplePlan, "times": Self.times])
        context.closeSession(1)
        _ = runSlices()
        #expect(context.engine.runtimeNames.allSatisfy { !$0.hasPrefix("motiond.sample") }, "\(context.engine.runtimeNames)")
    }

    @Test func aReplayRunsInSlicesAndALaterScrubWins() throws {
        for index in 0..<50 { send(1, 100 + index, "plan.add", ["target": .string("t\(index)"), "plan": ["type": "Frames", "frames": 100_000]]) }
        send(2, 1, "subscribe", ["streams": ["frames"]])
        send(1, 1, "timeline.attach", ["offset": 20])
        send(1, 2, "timeline.scrub", ["offset": 10])
        #expect(requester.lines.last?["id"] != 1, "the replay is sliced")
        let slices = runSlices()
        #expect(slices > 1, "worked in \(slices) slices")
        #expect(requester.lines.first { $0["id"] == 1 }?["result"]?["attached"] == true)
        #expect(requester.lines.first { $0["id"] == 2 }?["result"]?["offset"] == 10)
        // Frames counts down once per frame from 100,000: at 10 s (1,200 frames) it shows 98,800.
        #expect(context.engine.value(of: "frames", target: "t7", runtime: "0/default") == [98_800])
        let shown = other.lines.last { $0["event"] == "frame" }?["updates"]?.arrayValue?.first { $0["target"] == "t7" }
        #expect(shown?["value"] == [98_800], "subscribers see the scrubbed values, named as ever: \(String(describing: shown))")
    }

    /// A replay whose runtime is destroyed meanwhile (by another connection of its uid, or root) stops at
    /// its next slice and says so; it used to replay to the end (answered 29 s later in one trial).
    @Test func aReplayOfADestroyedRuntimeStopsAtItsNextSlice() throws {
        send(1, 1, "runtime.create", ["name": "tl"])
        for index in 0..<50 {
            send(1, 100 + index, "plan.add", ["runtime": "tl", "target": .string("t\(index)"), "plan": ["type": "Frames", "frames": 100_000]])
        }
        send(1, 2, "timeline.attach", ["runtime": "tl", "offset": 60])
        #expect(requester.lines.last?["id"] != 2, "the replay is sliced")
        send(2, 1, "runtime.destroy", ["name": "tl"])
        #expect(other.lines.last?["id"] == 1 && other.lines.last?["result"] != nil, "\(other.lines.last ?? .null)")
        #expect(runSlices() == 1, "one look, and it stops")
        let answer = requester.lines.first { $0["id"] == 2 }
        #expect(answer?["error"]?["code"] == "runtime.not_found", "\(answer ?? .null)")
        #expect(context.engine.runtimeNames.allSatisfy { !$0.hasPrefix("motiond.timeline") }, "\(context.engine.runtimeNames)")
    }

    /// A connection that shuts its sending side while requests wait behind sliced work is answered all of
    /// them before it closes (it closed at the first owed reply, and the waiting requests were lost).
    @Test func aHalfClosedConnectionIsAnsweredEveryRequestBeforeItCloses() {
        send(1, 1, "plan.sample", ["plan": Self.samplePlan, "times": Self.times])
        send(1, 2, "status", [:])
        send(1, 3, "sync", [:])
        context.endOfInput(from: 1)
        #expect(!requester.isClosed)
        _ = runSlices()
        let answered = requester.lines.compactMap { $0["id"]?.doubleValue }.filter { $0 > 0 }
        #expect(answered == [1, 2, 3], "\(answered)")
        #expect(requester.isClosed, "then it closes")
    }
}
