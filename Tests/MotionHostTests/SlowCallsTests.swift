@testable import MotionEngine
import Testing

/// The rate limit of slow plugin-call reports: the first at once, then at most one per interval per
/// plugin and function, carrying how many were slow since the last and the slowest of them.
@Suite("Slow plugin calls")
struct SlowCallsTests {
    @Test func reportsFirstThenAtMostOncePerInterval() {
        var calls = SlowCalls()
        calls.limit = 8_000_000
        calls.interval = 10_000_000_000
        let advance = SlowCalls.Key(label: 1, function: 10), add = SlowCalls.Key(label: 1, function: 20)
        #expect(calls.note(advance, nanoseconds: 7_000_000, now: 1_000_000_000) == nil, "within the limit")
        #expect(calls.note(advance, nanoseconds: 9_000_000, now: 2_000_000_000) == SlowCalls.Report(calls: 1, slowest: 9_000_000))
        #expect(calls.note(advance, nanoseconds: 30_000_000, now: 3_000_000_000) == nil)
        #expect(calls.note(advance, nanoseconds: 12_000_000, now: 4_000_000_000) == nil)
        #expect(calls.note(add, nanoseconds: 9_000_000, now: 4_000_000_000) == SlowCalls.Report(calls: 1, slowest: 9_000_000),
                "another function of the same plugin is its own")
        #expect(calls.note(advance, nanoseconds: 10_000_000, now: 12_000_000_000) == SlowCalls.Report(calls: 3, slowest: 30_000_000))
        #expect(calls.note(advance, nanoseconds: 10_000_000, now: 13_000_000_000) == nil)
    }

    /// A call made slow by a busy machine (the thread preempted since the tick began, never blocked, and
    /// running less than the limit) is not the plugin's; one that blocked or computed that long is.
    @Test func preemptionAloneIsNotBlamedOnThePlugin() {
        var calls = SlowCalls()
        calls.limit = 8_000_000
        let start = SlowCalls.ThreadUsage(cpuNanos: 1_000_000_000, voluntary: 10, involuntary: 5)
        calls.usage = { start }
        calls.markTick()
        #expect(calls.wasPreempted(now: .init(cpuNanos: 1_002_000_000, voluntary: 10, involuntary: 6)))
        #expect(!calls.wasPreempted(now: .init(cpuNanos: 1_002_000_000, voluntary: 11, involuntary: 6)), "it blocked (a sleep)")
        #expect(!calls.wasPreempted(now: .init(cpuNanos: 1_030_000_000, voluntary: 10, involuntary: 6)), "it computed 30 ms")
        #expect(!calls.wasPreempted(now: .init(cpuNanos: 1_002_000_000, voluntary: 10, involuntary: 5)), "never preempted")
    }

    @Test func aLimitOfZeroTimesNothing() {
        var calls = SlowCalls()
        #expect(calls.note(SlowCalls.Key(label: 1, function: 1), nanoseconds: 1_000_000_000, now: 1) == nil)
    }
}
