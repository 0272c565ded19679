import Logging
@testable import MotionEngine
import MotionWire
import Testing

/// The engine reads its time from the clock it is given (docs/architecture.md, "Time is a parameter"):
/// with a `ManualClock` a test sets every time the engine sees, and nothing sleeps.
@Suite("The engine's clock")
struct EngineClockTests {
    /// Events are timed on the engine's clock, from when its context began; `hello` reports the clock's now.
    @Test func eventsAndHelloReadTheEnginesClock() throws {
        let clock = ManualClock(monotonic: 5_000_000_000)
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output, clock: clock)
        #expect(output.lines.first?["result"]?["now"] == 5.0, "hello's now is the clock's: \(output.lines)")
        _ = TestContext.call(context, "subscribe", ["streams": ["frames", "trace"]], on: output)
        clock.advance(by: 2.5)
        _ = TestContext.call(context, "plan.add", ["target": "a", "plan": ["type": "Frames", "frames": 3]], on: output)
        let traces = output.lines.filter { $0["event"] == "trace" }
        #expect(!traces.isEmpty)
        #expect(traces.allSatisfy { $0["t"] == 2.5 }, "\(traces)")
        clock.advance(by: 0.25)
        context.tick(dt: 0.25)
        let frames = output.lines.filter { $0["event"] == "frame" }
        #expect(frames.count >= 1 && frames.last?["t"] == 2.75, "\(frames)")
    }

    /// Journal records carry the clock's wall time, and a replay brings the runtimes to the clock's
    /// present: a restart 10 s later finds a tween of a quarter second long finished, with no sleep to get there.
    @Test func theJournalWritesAndReplaysOnTheEnginesClock() throws {
        let journal = JournalTests.MemoryJournal()
        let clock = ManualClock(monotonic: 1_000_000_000, wall: 1_900_000_000)
        let output = RecordingOutput()
        let context = try Self.tweening(on: clock, output: output)
        context.journal.use(journal)
        _ = TestContext.call(context, "runtime.create", ["name": "work"], on: output)
        _ = TestContext.call(context, "plan.add", ["runtime": "work", "target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [5], "duration": 0.25]], on: output)
        #expect(journal.records.map { $0["t"]?.doubleValue } == [1_900_000_000, 1_900_000_000], "\(journal.records)")

        let later = ManualClock(monotonic: 7_000_000_000, wall: 1_900_000_010)
        let restarted = try Self.tweening(on: later, output: RecordingOutput())
        let (runtimes, records, problems) = restarted.journal.restoreRuntimes(from: journal)
        #expect(problems.isEmpty && runtimes == 1 && records == 2, "\(problems)")
        #expect(!restarted.engine.isActive(runtime: "0/work"), "10 s replayed: the tween has finished")
        #expect(restarted.engine.value(of: "x", target: "a", runtime: "0/work") == [5], "its last value written")
        #expect(restarted.journal.resumesAt == later.now(), "the first tick counts from the clock's present")
    }

    /// A greeted context with the shipped Tween plugin on `clock`.
    static func tweening(on clock: ManualClock, output: RecordingOutput) throws -> EngineContext {
        let context = EngineContext(engine: try ShippedPlanSchemaTests.engine(["TweenPlugin"]), settings: EngineSettings(),
                                    logger: Logger(label: "test"), clock: clock)
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        return context
    }
}
