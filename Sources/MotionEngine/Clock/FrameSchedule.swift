/// Absolute tick deadlines at a fixed rate: deadline n is start + n·period, so error never accumulates.
/// A tick that ends past its successor's deadline skips the missed ones and counts an overrun.
package struct FrameSchedule {
    let period: UInt64
    package private(set) var nextDeadline: UInt64
    private(set) var lastTick: UInt64

    /// `previous`: when the time the first tick's dt counts from began (a replay's end: the first tick
    /// is due at once, to catch up). Without it nothing moved before `start`, when the first animation
    /// began and its first values went out in a control frame: the first tick is a period later (at once,
    /// it repeated those values microseconds after them, and the frames were not evenly paced).
    package init(rate: Double, start: UInt64, previous: UInt64? = nil) {
        period = UInt64((1e9 / rate).rounded())
        nextDeadline = previous == nil ? start &+ period : start
        lastTick = min(previous ?? start, start)
    }

    package func isDue(at now: UInt64) -> Bool { now >= nextDeadline }

    /// Starts the tick due at `now`: returns dt in seconds since the previous tick and the lateness.
    package mutating func begin(at now: UInt64) -> (dt: Double, lateness: UInt64) {
        let dt = Double(now &- lastTick) / 1e9
        lastTick = now
        return (dt, now &- nextDeadline)
    }

    /// Ends the tick at `end`; returns true if one or more deadlines were missed.
    package mutating func finish(at end: UInt64) -> Bool {
        nextDeadline &+= period
        guard end >= nextDeadline else { return false }
        let missed = (end - nextDeadline) / period + 1
        nextDeadline &+= missed * period
        return true
    }
}
