import Glibc
@testable import MotionEngine
@testable import MotionHost
import Testing

/// docs/operations.md#realtime-priority: an engine thread that has not blocked for 100 ms sleeps 1 ms after
/// a tick (RLIMIT_RTTIME counts a realtime thread's time without blocking); one that blocks never does.
@Suite("Blocking pause")
struct BlockingPauseTests {
    @Test func aThreadThatNeverBlocksPausesOnceItHasRunTheBusyTime() {
        var pause = BlockingPause()
        let start = WorkClock.now()
        var paused = false
        // Busy: no blocking call between two looks (up to 5 s under a loaded machine).
        while !paused && WorkClock.now() &- start < 5_000_000_000 { paused = pause.afterTick(now: WorkClock.now()) }
        #expect(paused)
        #expect(WorkClock.now() &- start >= BlockingPause.busyNanos, "not before the busy time")
        let again = pause.afterTick(now: WorkClock.now())
        #expect(!again, "the pause counts as blocking: it starts again")
    }

    @Test func aThreadThatBlocksBetweenTicksNeverPauses() {
        var pause = BlockingPause()
        let start = WorkClock.now()
        var paused = false
        while WorkClock.now() &- start < 3 * BlockingPause.busyNanos {
            paused = paused || pause.afterTick(now: WorkClock.now())
            var tick = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&tick, nil)  // the wait for the next deadline, as the engine loop's
        }
        #expect(!paused)
    }
}
