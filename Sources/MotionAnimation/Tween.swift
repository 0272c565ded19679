/// A time-based animation from `from` to `to` over `duration` along a timing curve (Advance's
/// BasicAnimation). Velocity is the finite difference over the last frame while it runs, and zero once it
/// has ended: a tween at rest does not move (a spring started on it afterwards must not swing).
public struct Tween: Sendable {
    public let from: SIMD4<Double>
    public let to: SIMD4<Double>
    public let duration: Double
    public let curve: TimingCurve
    /// Time since the start in nanoseconds, snapped to a whole nanosecond when within a thousandth of one:
    /// the time reached does not depend on the steps taken to reach it (a `plan.sample` at 0.25 s lands on
    /// 0.25 s exactly, asked alone, after 0.249 s, or after 30 frames of 1/120 s).
    private var elapsedNanos = 0.0
    public var elapsed: Double { elapsedNanos / 1e9 }
    public private(set) var value: SIMD4<Double>
    public private(set) var velocity = SIMD4<Double>.zero

    public init(from: SIMD4<Double>, to: SIMD4<Double>, duration: Double, curve: TimingCurve) {
        self.from = from
        self.to = to
        self.duration = duration
        self.curve = curve
        value = duration > 0 ? from : to
    }

    public var isFinished: Bool { elapsed >= duration }

    /// Continues a tween another build of the plugin started (hot swap): same place, same velocity.
    public mutating func resume(elapsed: Double, value: SIMD4<Double>, velocity: SIMD4<Double>) {
        self.elapsedNanos = elapsed * 1e9
        self.value = value
        self.velocity = velocity
    }

    /// The value at `time` seconds from the start; exactly `to` at the end, whatever the curve returns.
    public func value(at time: Double) -> SIMD4<Double> {
        guard duration > 0, time < duration else { return to }
        let progress = max(time / duration, 0)
        let eased = curve.value(at: progress)
        return from + (to - from) * eased
    }

    public mutating func advance(by dt: Double) {
        guard dt > 0 else { return }
        elapsedNanos += dt * 1e9
        let whole = elapsedNanos.rounded()
        if abs(elapsedNanos - whole) < 1e-3 { elapsedNanos = whole }
        let next = value(at: elapsed)
        velocity = elapsed >= duration ? .zero : (next - value) / dt
        value = next
    }
}
