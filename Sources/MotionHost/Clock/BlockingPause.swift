import CHostSupport
import Glibc
import MotionEngine

/// The engine thread at realtime priority loses it to RLIMIT_RTTIME once it runs
/// `RealtimePriority.softMicroseconds` without blocking (docs/operations.md#realtime-priority). Clients'
/// work within its budgets leaves a share of each interval idle, but ticks past their interval do not: one
/// uid's 16 shared-memory subscribers over its 20,000 springs while it destroyed and made the runtime again
/// kept the thread busy for 500 ms, and at SCHED_OTHER beside a CPU-bound process another uid's frames then
/// had gaps of 44–60 ms. So a thread that has not blocked for `busyNanos` sleeps `pauseNanos` after a
/// tick (a tick that late was late anyway). A plugin call that never returns still trips the limit.
struct BlockingPause {
    static let busyNanos: UInt64 = 100_000_000
    static let pauseNanos = 1_000_000

    private var switches = -1
    private var since: UInt64 = 0

    /// After a tick: sleeps if the thread has not blocked for `busyNanos`. Returns whether it slept. The
    /// thread's count of blocks is read once per `busyNanos` at most, not at every tick: a block seen at
    /// one look starts the stretch again, so no stretch without one passes 2 × `busyNanos` unnoticed.
    @discardableResult
    mutating func afterTick(now: UInt64) -> Bool {
        guard switches < 0 || now &- since >= Self.busyNanos else { return false }
        let count = motion_thread_voluntary_switches()
        if count != switches || count < 0 {
            switches = count
            since = now
            return false
        }
        var pause = timespec(tv_sec: 0, tv_nsec: Self.pauseNanos)
        nanosleep(&pause, nil)
        switches = motion_thread_voluntary_switches()
        since = WorkClock.now()
        return true
    }
}
