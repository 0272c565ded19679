/// Calls into plugins that held the engine thread too long (docs/protocol.md: no one may stall the shared frame
/// clock; a plugin's advance is no exception). Every call is timed; one that takes longer than `limit`
/// (the host sets a frame interval) is noted, and reported at once the first time for its plugin and
/// function, then at most every `interval` with how many more were slow meanwhile: an operator learns
/// which plugin freezes the frames without a flood of lines at 120 Hz.
package struct SlowCalls {
    struct Key: Hashable {
        let label: UInt
        let function: UInt
    }

    struct Report: Equatable {
        /// Calls of this plugin and function slower than the limit since the last report, this one included.
        var calls: Int
        /// The slowest of them, in nanoseconds.
        var slowest: UInt64
    }

    /// The engine thread's CPU time and context switches (getrusage), when the host can tell them.
    package struct ThreadUsage: Sendable, Equatable {
        package var cpuNanos: UInt64
        /// It blocked (a sleep, I/O).
        package var voluntary: Int
        /// It was preempted.
        package var involuntary: Int
        package init(cpuNanos: UInt64, voluntary: Int, involuntary: Int) {
            self.cpuNanos = cpuNanos
            self.voluntary = voluntary
            self.involuntary = involuntary
        }
    }

    /// Nanoseconds a call may take; 0: calls are not timed.
    var limit: UInt64 = 0
    /// Nanoseconds spent in each plugin's calls (by its crash-marker label), when calls are timed: the
    /// `motiond_plugin_call_seconds_total` metric.
    package var callNanos: [UInt: UInt64] = [:]
    /// Reads the engine thread's usage (set by the host); nil: every slow call is reported.
    var usage: (() -> ThreadUsage)?
    /// The usage at the start of the current tick (`markTick`).
    private(set) var mark: ThreadUsage?
    /// Nanoseconds between two reports of the same plugin and function.
    var interval: UInt64 = 10_000_000_000
    private var pending: [Key: (calls: Int, slowest: UInt64, reported: UInt64?)] = [:]

    /// At the start of a tick: what a slow call in it is measured against (one getrusage a tick).
    mutating func markTick() {
        if limit > 0, let usage { mark = usage() }
    }

    /// Whether a call slower than the limit was a busy machine's doing, not the plugin's: since the tick
    /// began, the thread was preempted, never blocked, and ran for less than the limit.
    func wasPreempted(now current: ThreadUsage) -> Bool {
        guard let mark else { return false }
        return current.involuntary > mark.involuntary && current.voluntary == mark.voluntary
            && current.cpuNanos &- mark.cpuNanos < limit
    }

    /// Notes a call of `nanoseconds` that ended at `now`; returns what to report, if it is time to.
    mutating func note(_ key: Key, nanoseconds: UInt64, now: UInt64) -> Report? {
        guard limit > 0, nanoseconds > limit else { return nil }
        var entry = pending[key] ?? (0, 0, nil)
        entry.calls += 1
        entry.slowest = max(entry.slowest, nanoseconds)
        defer { pending[key] = entry }
        if let reported = entry.reported, now &- reported < interval { return nil }
        let report = Report(calls: entry.calls, slowest: entry.slowest)
        entry = (0, 0, now)
        return report
    }
}
