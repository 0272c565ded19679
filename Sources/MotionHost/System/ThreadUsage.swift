import CHostSupport
import MotionEngine

/// The calling thread's CPU time and context switches (getrusage RUSAGE_THREAD): the engine and the
/// validator tell a plugin that held the thread from a machine that preempted it.
enum ThreadUsage {
    static func now() -> SlowCalls.ThreadUsage {
        var usage = motion_thread_usage_t()
        guard motion_thread_usage(&usage) == 0 else { return SlowCalls.ThreadUsage(cpuNanos: 0, voluntary: 0, involuntary: 0) }
        return SlowCalls.ThreadUsage(cpuNanos: usage.cpu_ns, voluntary: usage.voluntary, involuntary: usage.involuntary)
    }
}
