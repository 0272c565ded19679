import Glibc
import MotionEngine

/// Keeps the engine thread from holding a core whole (docs/operations.md#realtime-priority). At realtime
/// priority two limits stop a thread that does: RLIMIT_RTTIME once it runs
/// `RealtimePriority.softMicroseconds` without blocking, and, on Linux 6.12 and later, the kernel's fair
/// server, which runs the other threads of a core for up to 50 ms once they have waited most of a second
/// (the frame clock then stops for those 50 ms). Clients' work within its budgets leaves a share of each
/// interval idle, but ticks past their interval and work that is nobody's do not: one uid's 16 shared-memory
/// subscribers over its 20,000 springs while it destroyed and made the runtime again kept the thread busy for
/// 500 ms, and staggered springs re-added back to back beside a CPU-bound process kept it busy enough for the
/// fair server to stop it for 74 ms. So once a look at the thread's own CPU time (every `windowNanos`) finds
/// it busy more than `busyShare` of that time, it sleeps `pauseNanos` after a tick, at most once every
/// `pauseEveryNanos` (an eighth of the core for the others, whatever the frame rate), until a look finds it
/// less busy. A plugin call that never returns still trips the limit.
struct BlockingPause {
    static let windowNanos: UInt64 = 100_000_000
    static let busyShare = 0.9
    static let pauseNanos = 1_000_000
    static let pauseEveryNanos: UInt64 = 8_000_000

    /// When the current window began, by the monotonic clock and by the thread's CPU clock (nil: not yet).
    private var window: (wall: UInt64, cpu: UInt64)?
    private var isBusy = false
    private var lastPause: UInt64 = 0
    /// The thread's CPU time (tests give their own).
    private let cpuNanos: () -> UInt64

    init(cpuNanos: @escaping () -> UInt64 = BlockingPause.threadCPUNanos) {
        self.cpuNanos = cpuNanos
    }

    /// After a tick: sleeps if the thread was busy past `busyShare` at the last look and has not slept in
    /// the last `pauseEveryNanos`. Returns whether it slept.
    @discardableResult
    mutating func afterTick(now: UInt64) -> Bool {
        guard let window else {
            self.window = (now, cpuNanos())
            return false
        }
        if now &- window.wall >= Self.windowNanos {
            let cpu = cpuNanos()
            isBusy = Double(cpu &- window.cpu) > Self.busyShare * Double(now &- window.wall)
            self.window = (now, cpu)
        }
        guard isBusy, now &- lastPause >= Self.pauseEveryNanos else { return false }
        var pause = timespec(tv_sec: 0, tv_nsec: Self.pauseNanos)
        nanosleep(&pause, nil)
        lastPause = now
        return true
    }

    /// The calling thread's CPU time, nanoseconds.
    static func threadCPUNanos() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
