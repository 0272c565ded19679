/// A time-based animation from `from` to `to` over `duration` along a timing curve (Advance's
/// BasicAnimation). Velocity is the rate of change at the time reached (the curve's slope, so it does not
/// depend on the steps taken), zero on the flats of a curve of steps, and zero once it has ended: a tween
/// at rest does not move (a spring started on it afterwards must not swing).
package struct Tween: Sendable {
    package let from: SIMD4<Double>
    package let to: SIMD4<Double>
    package let duration: Double
    package let curve: TimingCurve
    /// Cycles to play (`.infinity`: forever) and whether each plays forward then back (Core Animation's
    /// `repeatCount` and `autoreverses`; docs/vocabulary.md).
    package let repeatCount: Double
    package let autoreverses: Bool
    /// Set for `Keyframes`: the path each cycle follows instead of `from` → `to` along `curve`.
    package let keyframes: Keyframes?
    /// A `velocity` at the start beyond the curve's own (a Tween that carries a motion on, docs/vocabulary.md):
    /// the first cycle adds `launch · g(t)`, g(t) = t(1 − t/T)², which is 0 with a slope of 1 at the start and
    /// 0 with a slope of 0 at the end, so the tween starts at `from` with that velocity and ends as its curve does.
    package let launch: SIMD4<Double>
    /// Time since the start in nanoseconds, snapped to a whole nanosecond when within a thousandth of one:
    /// the time reached does not depend on the steps taken to reach it (a `plan.sample` at 0.25 s lands on
    /// 0.25 s exactly, asked alone, after 0.249 s, or after 30 frames of 1/120 s).
    private var elapsedNanos = 0.0
    package var elapsed: Double { elapsedNanos / 1e9 }
    package private(set) var value: SIMD4<Double>
    package private(set) var velocity = SIMD4<Double>.zero

    package init(from: SIMD4<Double>, to: SIMD4<Double>, duration: Double, curve: TimingCurve, repeatCount: Double = 1,
                autoreverses: Bool = false, keyframes: Keyframes? = nil, launch: SIMD4<Double> = .zero) {
        self.keyframes = keyframes
        self.launch = duration > 0 ? launch : .zero
        self.from = keyframes?.values.first ?? from
        self.to = keyframes?.values.last ?? to
        self.duration = duration
        self.curve = curve
        self.repeatCount = repeatCount
        self.autoreverses = autoreverses
        value = .zero
        // At its start a tween shows its curve's value at 0: `from` for most, not for `steps(n, jump-start)`.
        value = duration > 0 ? value(at: 0) : (autoreverses ? self.from : self.to)
        // And its velocity there (`startVelocity`). A plan's first frame said 0 here, then the slope one
        // frame later: a retuned tween, added again at its velocity, showed a frame at rest mid-way.
        velocity = startVelocity
    }

    /// Its velocity as it starts: the curve's slope just after 0 (a first handle on (0, 0) is 0/0 at 0
    /// itself) and any launch; where that tangent is vertical ((0, 0, 0, 1)'s, Hyprland's `default`,
    /// `ease-in-expo`'s formula: read there it came out near 1e9 a unit), the mean over its first thousandth.
    package var startVelocity: SIMD4<Double> {
        guard duration > 0 else { return .zero }
        let step = duration * 1e-3
        let mean = (value(at: step) - value(at: 0)) / step, instant = velocity(at: duration * 1e-9)
        let bound = magnitude(mean) * 10 + magnitude(to - from) / duration
        return all(magnitude(instant) .<= bound) ? instant : mean
    }

    /// The launch that starts this tween (made without one) at `wanted` instead of its own `startVelocity`
    /// (docs/vocabulary.md, `velocity`). A start slower than the curve's own, in the same direction, is
    /// launched only as far as the motion keeps going that way: `Δv · g` pulls against the curve while g
    /// rises (its first third), and where the curve is fast at first and flat later (a steep ease-out) the
    /// whole difference sent the value back past `from`, by more than the tween's range at a long duration.
    /// Scaled down there (to nothing where the curve is flat in its first third: a hold), it starts
    /// between `wanted` and the curve's own velocity and never turns back.
    package func launch(toStartAt wanted: SIMD4<Double>) -> SIMD4<Double> {
        let own = startVelocity
        var launch = wanted - own
        guard duration > 0 else { return launch }
        // Read at 64 times of the first third (and of the tween: a repeat under a third ends it sooner).
        let span = min(duration / 3, totalDuration)
        for i in 0..<4 where launch[i] != 0 && own[i] != 0 && wanted[i] * own[i] >= 0 && abs(wanted[i]) < abs(own[i]) {
            // The largest k with own(t) + k·Δv·g'(t) keeping own(t)'s sign wherever the curve goes forward,
            // kept a tenth short of it for the times between the readings (continuously: 0.9k, at most 1).
            var most = Double.infinity
            for step in 1...64 {
                let t = span * Double(step) / 65, rest = 1 - t / duration
                let pull = launch[i] * rest * (1 - 3 * t / duration)
                let forward = velocity(at: t)[i] - launched(at: t).velocity[i]
                guard pull * own[i] < 0, forward * own[i] >= 0 else { continue }
                most = min(most, abs(forward) / abs(pull))
            }
            launch[i] *= min(1, most * 0.9)
        }
        return launch
    }

    /// Every cycle, back and forth.
    package var totalDuration: Double { duration > 0 ? duration * repeatCount * (autoreverses ? 2 : 1) : 0 }
    /// Where it rests at the end: where its last (maybe partial) cycle stops — `to` after a forward one,
    /// `from` after a reversed one.
    package var endValue: SIMD4<Double> {
        guard duration > 0, repeatCount.isFinite else { return autoreverses ? from : to }
        let halves = repeatCount * (autoreverses ? 2 : 1)
        var cycle = halves.rounded(.down), progress = halves - cycle
        if progress == 0 {
            cycle -= 1
            progress = 1
        }
        if autoreverses, cycle.truncatingRemainder(dividingBy: 2) == 1 { progress = 1 - progress }
        if progress == 1 { return autoreverses && cycle.truncatingRemainder(dividingBy: 2) == 1 ? from : to }
        if let keyframes { return keyframes.value(at: progress) }
        return from + (to - from) * curve.value(at: progress)
    }
    package var isFinished: Bool { elapsed >= totalDuration }
    /// How far the last advance went past the end (0 until it ends).
    package var overrun: Double { max(0, elapsed - totalDuration) }

    /// Continues a tween another build of the plugin started (hot swap): same place, same velocity.
    package mutating func resume(elapsed: Double, value: SIMD4<Double>, velocity: SIMD4<Double>) {
        self.elapsedNanos = elapsed * 1e9
        self.value = value
        self.velocity = velocity
    }

    /// The value at `time` seconds from the start; exactly `endValue` at the end, whatever the curve
    /// returns. Each cycle runs the curve from 0 to 1; with `autoreverses` every other half runs it back.
    package func value(at time: Double) -> SIMD4<Double> {
        guard duration > 0, time < totalDuration else { return endValue }
        let phase = max(time / duration, 0)
        let cycle = phase.rounded(.down)
        var progress = phase - cycle
        if autoreverses, cycle.truncatingRemainder(dividingBy: 2) == 1 { progress = 1 - progress }
        if let keyframes { return keyframes.value(at: progress) + launched(at: time).value }
        let eased = curve.value(at: progress)
        return from + (to - from) * eased + launched(at: time).value
    }

    /// The launch's share of the value and velocity at `time` (zero after the first cycle).
    @inline(__always)
    func launched(at time: Double) -> (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        guard launch != .zero, time < duration, time > 0 else { return (.zero, time <= 0 ? launch : .zero) }
        let rest = 1 - time / duration
        return (launch * (time * rest * rest), launch * (rest * (1 - 3 * time / duration)))
    }

    package mutating func advance(by dt: Double) {
        guard dt > 0 else { return }
        elapsedNanos += dt * 1e9
        let whole = elapsedNanos.rounded()
        if abs(elapsedNanos - whole) < 1e-3 { elapsedNanos = whole }
        (value, velocity) = state(at: elapsed)
    }

    /// `value(at:)` and `velocity(at:)` together, the curve solved once.
    package func state(at time: Double) -> (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        guard duration > 0, time < totalDuration else { return (endValue, .zero) }
        let phase = max(time / duration, 0), cycle = phase.rounded(.down)
        var progress = phase - cycle, rate = 1 / duration
        if autoreverses, cycle.truncatingRemainder(dividingBy: 2) == 1 {
            progress = 1 - progress
            rate = -rate
        }
        if let keyframes {
            let (value, slope) = keyframes.valueAndSlope(at: progress)
            guard launch != .zero else { return (value, slope * rate) }
            let extra = launched(at: time)
            return (value + extra.value, slope * rate + extra.velocity)
        }
        let (eased, slope) = curve.valueAndSlope(at: progress)
        guard launch != .zero else { return (from + (to - from) * eased, (to - from) * (slope * rate)) }
        let extra = launched(at: time)
        return (from + (to - from) * eased + extra.value, (to - from) * (slope * rate) + extra.velocity)
    }

    /// The rate of change at `time`, from the curve's own slope (not a difference, which straddled jumps
    /// and the Bézier solver's tolerance): zero once ended and on the flats of steps.
    package func velocity(at time: Double) -> SIMD4<Double> {
        guard duration > 0, time < totalDuration else { return .zero }
        let phase = max(time / duration, 0), cycle = phase.rounded(.down)
        var progress = phase - cycle, rate = 1 / duration
        if autoreverses, cycle.truncatingRemainder(dividingBy: 2) == 1 {
            progress = 1 - progress
            rate = -rate
        }
        if let keyframes { return keyframes.slope(at: progress) * rate + launched(at: time).velocity }
        return (to - from) * (curve.slope(at: progress) * rate) + launched(at: time).velocity
    }
}

/// `Keyframes`' path (CAKeyframeAnimation's `values`, `keyTimes`, `timingFunctions`): segment i runs from
/// `values[i]` to `values[i + 1]` between `keyTimes[i]` and `keyTimes[i + 1]` along `curves[i]`.
package struct Keyframes: Sendable {
    package let values: [SIMD4<Double>]
    package let keyTimes: [Double]
    package let curves: [TimingCurve]

    /// `keyTimes` as many as `values`, from 0 to 1, never decreasing; `curves` one per segment.
    package init(values: [SIMD4<Double>], keyTimes: [Double], curves: [TimingCurve]) {
        self.values = values
        self.keyTimes = keyTimes
        self.curves = curves
    }

    /// `value(at:)` and `slope(at:)` from one search of the segment and one solve of its curve.
    package func valueAndSlope(at progress: Double) -> (value: SIMD4<Double>, slope: SIMD4<Double>) {
        let upper = max(keyTimes.firstIndex { $0 > progress } ?? keyTimes.count - 1, 1)
        let (start, end) = (keyTimes[upper - 1], keyTimes[upper])
        guard end > start else { return (values[upper], .zero) }
        let local = min(max((progress - start) / (end - start), 0), 1)
        let (eased, slope) = curves[upper - 1].valueAndSlope(at: local)
        let span = values[upper] - values[upper - 1]
        return (values[upper - 1] + span * eased, span * (slope / (end - start)))
    }

    /// The path's derivative by progress at `progress`: the segment's curve's slope, scaled to it.
    package func slope(at progress: Double) -> SIMD4<Double> {
        let upper = max(keyTimes.firstIndex { $0 > progress } ?? keyTimes.count - 1, 1)
        let (start, end) = (keyTimes[upper - 1], keyTimes[upper])
        guard end > start else { return .zero }
        let local = min(max((progress - start) / (end - start), 0), 1)
        return (values[upper] - values[upper - 1]) * (curves[upper - 1].slope(at: local) / (end - start))
    }

    package func value(at progress: Double) -> SIMD4<Double> {
        var upper = keyTimes.firstIndex { $0 > progress } ?? keyTimes.count - 1
        upper = max(upper, 1)
        let (start, end) = (keyTimes[upper - 1], keyTimes[upper])
        guard end > start else { return values[upper] }
        let local = min(max((progress - start) / (end - start), 0), 1)
        let eased = curves[upper - 1].value(at: local)
        return values[upper - 1] + (values[upper] - values[upper - 1]) * eased
    }
}
