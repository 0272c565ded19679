/// A subscription's `maxRate`: when its next frame may go out. Due times step by `interval` along a
/// schedule, not from the tick that sent: on a 120 Hz clock whose ticks jitter, "at least 1/120 s since
/// the last frame" refused every tick that came 8.2 ms after one, and maxRate 120 gave 78 frames/s. A
/// quarter interval of tolerance takes the jitter; a subscriber behind by more than an interval (after an
/// idle spell) starts a new schedule, its next frame a whole interval after this one.
struct RateLimit {
    /// Seconds between frames; 0: no limit.
    let interval: Double
    private(set) var nextDue = -Double.infinity

    init(interval: Double) { self.interval = interval }

    func isDue(at time: Double) -> Bool { interval <= 0 || time >= nextDue - interval / 4 }

    mutating func sent(at time: Double) {
        guard interval > 0 else { return }
        nextDue = (nextDue.isFinite && time - nextDue < interval ? nextDue : time) + interval
    }
}
