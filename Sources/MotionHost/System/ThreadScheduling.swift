import Glibc

/// The scheduling class of the calling thread, as `motionctl top` and `status` show it
/// (`SCHED_OTHER nice 0`, `SCHED_FIFO priority 10`).
enum ThreadScheduling {
    static func current() -> String {
        let policy = sched_getscheduler(0) & ~0x4000_0000  // without SCHED_RESET_ON_FORK
        var parameters = sched_param()
        _ = sched_getparam(0, &parameters)
        let names: [Int32: String] = [SCHED_OTHER: "SCHED_OTHER", SCHED_FIFO: "SCHED_FIFO", SCHED_RR: "SCHED_RR",
                                      3: "SCHED_BATCH", 5: "SCHED_IDLE"]  // Glibc does not export these two
        let name = names[policy] ?? "policy \(policy)"
        if policy == SCHED_FIFO || policy == SCHED_RR { return "\(name) priority \(parameters.sched_priority)" }
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)  // 0: the calling thread (nice is per thread on Linux)
        return "\(name) nice \(errno == 0 ? nice : 0)"
    }
}
