@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/operations.md#metrics: `motiond_uid_tick_seconds_total` shares each tick's work out among the uids
/// by the animations their runtimes hold.
@Suite("Tick shares per uid")
struct TickSharesTests {
    @Test func aTickIsSharedOutByTheAnimationsEachUidHolds() throws {
        let context = try TestContext.greeted(on: RecordingOutput(), plugins: ["SpringPlugin"], role: .admin)
        try context.engine.createRuntime("1000/work")
        let spring: JSONValue = ["type": "Spring", "property": "x", "from": [0], "to": [1], "stiffness": 1, "dampingRatio": 1]
        _ = try context.engine.addPlan(spring, to: "a", in: "0/default")
        for target in ["a", "b", "c"] { _ = try context.engine.addPlan(spring, to: target, in: "1000/work") }
        #expect(context.engine.animations(of: 0) == 1 && context.engine.animations(of: 1000) == 3)
        context.ticks.shareOut(1_000_000)
        context.ticks.shareOut(1_000_000)
        #expect(context.ticks.shares == [0: 500_000, 1000: 1_500_000], "\(context.ticks.shares)")
        let counters = context.metricCounters().filter { $0.0.name == "motiond_uid_tick_seconds_total" }
        #expect(counters.map(\.1) == [0.0005, 0.0015] && counters.map { $0.0.labels.first?.1 } == ["0", "1000"], "\(counters)")
        // Nobody animating: nobody is charged.
        try context.engine.destroyRuntime("1000/work")
        context.engine.continueTeardowns(until: .max)
        let before = context.ticks.shares
        context.tick(dt: 10)  // the last spring comes to rest
        context.ticks.shareOut(1_000_000)
        #expect(context.engine.animations(of: 0) == 0 && context.ticks.shares == before, "\(context.ticks.shares)")
    }
}
