@testable import MotionEngine
@testable import MotionHost
import Testing

/// docs/operations.md#realtime-priority: an engine thread busy more than 90 % of a look's 100 ms sleeps 1 ms
/// after a tick, at most once every 8 ms, until a look finds it less busy; one that leaves a tenth of its
/// core to others never does. The thread's CPU time is given (the logic, not the machine's load, is tested).
@Suite("Blocking pause")
struct BlockingPauseTests {
    /// A clock for the thread's CPU time that the test moves.
    final class CPU: @unchecked Sendable { var nanos: UInt64 = 0 }

    /// Ticks every `interval` ns for `duration` ns from `start`, the thread busy `busy` of each interval;
    /// the times it paused.
    static func run(_ pause: inout BlockingPause, cpu: CPU, from start: UInt64, for duration: UInt64,
                    interval: UInt64 = 8_333_333, busy: Double) -> [UInt64] {
        var paused: [UInt64] = []
        var now = start
        while now < start + duration {
            now += interval
            cpu.nanos += UInt64(Double(interval) * busy)
            if pause.afterTick(now: now) { paused.append(now) }
        }
        return paused
    }

    @Test func aThreadBusyPastNinetyPercentPausesAfterALookAndAtMostEveryEightMilliseconds() {
        let cpu = CPU()
        var pause = BlockingPause { cpu.nanos }
        let start: UInt64 = 1_000_000_000
        let paused = Self.run(&pause, cpu: cpu, from: start, for: 400_000_000, busy: 1)
        #expect(paused.first.map { $0 - start >= BlockingPause.windowNanos } == true, "not before a look: \(paused.prefix(3))")
        #expect(paused.count > 30, "after every tick at 120 Hz once busy: \(paused.count)")
        #expect(zip(paused, paused.dropFirst()).allSatisfy { $1 - $0 >= BlockingPause.pauseEveryNanos })
        // At 480 Hz, one pause per 8 ms (every fourth tick), not one per tick.
        let fast = Self.run(&pause, cpu: cpu, from: start + 400_000_000, for: 200_000_000, interval: 2_083_333, busy: 1)
        #expect(fast.count <= 25 && fast.count >= 20, "\(fast.count)")
        // Busy half the time from now: the next look ends the pauses.
        let calm = Self.run(&pause, cpu: cpu, from: start + 600_000_000, for: 400_000_000, busy: 0.5)
        #expect(calm.allSatisfy { $0 <= start + 600_000_000 + 2 * BlockingPause.windowNanos }, "\(calm)")
        #expect(calm.count < 20)
    }

    @Test func aThreadThatLeavesMoreThanATenthOfItsCoreNeverPauses() {
        let cpu = CPU()
        var pause = BlockingPause { cpu.nanos }
        #expect(Self.run(&pause, cpu: cpu, from: 5_000_000_000, for: 1_000_000_000, busy: 0.85).isEmpty)
    }

    @Test func theThreadsOwnCPUClockMovesWithItsWork() {
        let before = BlockingPause.threadCPUNanos()
        var sum = 0.0
        for index in 0..<2_000_000 { sum += Double(index).squareRoot() }
        #expect(sum > 0 && BlockingPause.threadCPUNanos() > before)
    }

    /// The pauses are not counted against the thread: one that stays busy whenever awake keeps pausing after
    /// every tick, not every other window (its pauses made the next look find it under 90 %).
    @Test func aThreadThatStaysBusyWhenAwakeKeepsPausing() {
        let cpu = CPU()
        var pause = BlockingPause { cpu.nanos }
        var now: UInt64 = 9_000_000_000
        var paused = 0
        var lastPaused = false
        for _ in 0..<120 {  // one second at 120 Hz
            now += 8_333_333
            // Busy the whole interval but for the pause after the last tick (its CPU clock stands still).
            cpu.nanos += 8_333_333 - (lastPaused ? 1_041_666 : 0)
            lastPaused = pause.afterTick(now: now)
            if lastPaused { paused += 1 }
        }
        #expect(paused >= 100, "every tick after the first look: \(paused)")
    }
}
