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
/// it busy more than `busyShare` of the time it was awake, it sleeps after a tick, at most once every
/// `pauseEveryNanos`, an eighth of the time since its last pause (1–2 ms: an eighth of the core for the
/// others at 60 Hz and above), until a look finds it less busy. A plugin call that never returns still trips the limit.
struct BlockingPause {
    static let windowNanos: UInt64 = 100_000_000
    static let busyShare = 0.9
    static let pauseNanos = 1_000_000
    static let pauseEveryNanos: UInt64 = 8_000_000

    /// When the current window began, by the monotonic clock and by the thread's CPU clock (nil: not yet).
    private var window: (wall: UInt64, cpu: UInt64)?
    private var isBusy = false
    private var lastPause: UInt64?
    /// Time slept in pauses since the window began: not the thread's work, so not counted against it (else
    /// the pauses themselves ended the pausing every other window).
    private var pausedInWindow: UInt64 = 0
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
            let awake = (now &- window.wall) &- min(pausedInWindow, now &- window.wall)
            isBusy = Double(cpu &- window.cpu) > Self.busyShare * Double(awake)
            self.window = (now, cpu)
            pausedInWindow = 0
        }
        guard isBusy else {
            lastPause = nil
            return false
        }
        let since = lastPause.map { now &- $0 }
        if let since, since < Self.pauseEveryNanos { return false }
        // An eighth of the time since the last pause (1 ms after 8 ms at 120 Hz, 2 ms after 16.7 ms at 60
        // Hz), at most 2 ms: the same share of the core at 60 Hz and above.
        let nanos = since.map { min(max($0 / 8, UInt64(Self.pauseNanos)), 2 * UInt64(Self.pauseNanos)) } ?? UInt64(Self.pauseNanos)
        var pause = timespec(tv_sec: 0, tv_nsec: Int(nanos))
        nanosleep(&pause, nil)
        lastPause = now
        pausedInWindow &+= nanos
        return true
    }

    /// The calling thread's CPU time, nanoseconds.
    static func threadCPUNanos() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
