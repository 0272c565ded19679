import Foundation
import MotionKernels

/// When a spring or a decay first meets its rest rule (docs/vocabulary.md#when-a-spring-rests): the time,
/// exactly, found once when the motion starts or is retargeted. The motion rests there whatever the
/// frames: the value is the closed form before it and the resting value from it, so a tick, a sample and
/// a scrub agree at every time (a rule tested only at the times asked missed the moments a fast spring
/// met it between two of them, and rested up to half a period later).
///
/// A spring rests when every component's offset x and velocity v are within the threshold E. Between two
/// consecutive zeros of any component's v or acceleration, every x and v is monotone, so in each such piece
/// each condition |f| ≤ E holds on one interval; the first piece in which the intervals meet holds the
/// answer, the latest of their starts. The zeros are known in closed form (a sequence every π/ω when
/// underdamped, at most one each otherwise); the starts are found by Newton's method inside their piece.
/// Underdamped, the search starts at a lower bound of the time the energy k·x² + v² (which never grows)
/// first allows the rule, and ends where the envelope guarantees it. Undamped, one period is searched
/// (the motion repeats).
///
/// Bounds (the cost of a start stays below about a millisecond, on the engine thread): the search goes no
/// further than 2²⁰ quarter turns (where sin and cos lose their exactness) or 10⁹ s, and a spring whose rule
/// is first met only past them never rests (infinity); after 2,048 pieces without a hold — lightly damped springs of several components
/// whose components meet the rule at different phases — it rests where the envelope guarantees the
/// rule, a time at which it holds though maybe not the first.
package enum RestTime {
    /// A spring's: offsets from the target and velocities (unused components zero), tension k and
    /// damping c per unit of mass, threshold E. 0 when the rule holds now; infinity when it never will.
    package static func spring(offset: SIMD4<Double>, velocity: SIMD4<Double>, tension k: Double, damping c: Double,
                               threshold: Double) -> Double {
        let motion = Motion(offset: offset, velocity: velocity, tension: k, damping: c, threshold: threshold)
        guard motion.isFinite, threshold > 0, k >= 0, c >= 0 else { return 0 }
        if motion.holds(motion.start) { return 0 }
        let alpha = c / 2, q = k - alpha * alpha
        guard c > 0 else { return k > 0 ? motion.undamped(omega: k.squareRoot()) : .infinity }
        return q > 0 ? motion.underdamped(alpha: alpha, omega: q.squareRoot()) : motion.damped(alpha: alpha, gamma: (-q).squareRoot())
    }

    /// A decay's: it rests once every component's speed is within E, at ln(|v|/E)/drag.
    package static func decay(velocity: SIMD4<Double>, drag: Double, threshold: Double) -> Double {
        let speed = Swift.max(Swift.max(abs(velocity.x), abs(velocity.y)), Swift.max(abs(velocity.z), abs(velocity.w)))
        guard speed.isFinite, threshold > 0, speed > threshold else { return 0 }
        guard drag > 0 else { return .infinity }
        return log(speed / threshold) / drag
    }

    /// A decay's resting place: where it is at `time` (the closed form with k = 0).
    package static func decayRest(value: SIMD4<Double>, velocity: SIMD4<Double>, drag: Double, after time: Double) -> SIMD4<Double> {
        value + Motion.transition(0, drag, time).1 * velocity
    }
}

/// The state (x, v) at any time from a starting one, and the rule's conditions on it: condition i < 4 is
/// |x_i| ≤ E, i ≥ 4 is |v_(i−4)| ≤ E. No allocations: a retarget on the engine thread costs arithmetic only.
private struct Motion {
    typealias State = (x: SIMD4<Double>, v: SIMD4<Double>)
    let offset: SIMD4<Double>, velocity: SIMD4<Double>, k: Double, c: Double, limit: Double
    /// Bit d: component d moves (the others are zero and stay zero).
    let moving: UInt8

    init(offset: SIMD4<Double>, velocity: SIMD4<Double>, tension: Double, damping: Double, threshold: Double) {
        (self.offset, self.velocity, k, c, limit) = (offset, velocity, tension, damping, threshold)
        var moving: UInt8 = 0
        for d in 0..<4 where offset[d] != 0 || velocity[d] != 0 { moving |= 1 << d }
        self.moving = moving
    }

    func moves(_ d: Int) -> Bool { moving & (1 << d) != 0 }

    var isFinite: Bool {
        (0..<4).allSatisfy { !moves($0) || (offset[$0].isFinite && velocity[$0].isFinite) } && k.isFinite && c.isFinite && limit.isFinite
    }

    var start: State { (offset, velocity) }

    static func transition(_ k: Double, _ c: Double, _ t: Double) -> (Double, Double, Double, Double) {
        var matrix = (0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &matrix) { entries in
            motion_simulation_transition(k, c, t, entries.baseAddress!.assumingMemoryBound(to: Double.self))
        }
        return matrix
    }

    func state(at t: Double) -> State {
        let m = Self.transition(k, c, t)
        return (m.0 * offset + m.1 * velocity, m.2 * offset + m.3 * velocity)
    }

    /// Whether condition i (0..<8) is one of a moving component.
    func counts(_ i: Int) -> Bool { moves(i & 3) }

    /// Condition i's function and its time derivative in `state`.
    func condition(_ i: Int, _ state: State) -> (value: Double, slope: Double) {
        i < 4 ? (state.x[i], state.v[i]) : (state.v[i - 4], -k * state.x[i - 4] - c * state.v[i - 4])
    }

    func holds(_ state: State) -> Bool {
        (0..<4).allSatisfy { !moves($0) || (abs(state.x[$0]) <= limit && abs(state.v[$0]) <= limit) }
    }

    /// Function j (0..<8) whose zeros bound the pieces, as (f(0), f′(0)): j < 4 component j's velocity
    /// (x's turning points), j ≥ 4 its acceleration (v's).
    func turning(_ j: Int) -> (Double, Double) {
        let d = j & 3, acceleration = -k * offset[d] - c * velocity[d]
        return j < 4 ? (velocity[d], acceleration) : (acceleration, -k * velocity[d] - c * acceleration)
    }

    // MARK: Underdamped

    /// ω = √(k − α²) > 0: every f is e^(−αt)·(A·cos ωt + B·sin ωt), zero every π/ω.
    func underdamped(alpha: Double, omega: Double) -> Double {
        // Beyond `end` the envelope e^(−αt)·√(A² + B²) of every x and v is within E: the rule holds.
        var end = 0.0
        for i in 0..<8 where counts(i) {
            let (f0, f1) = condition(i, start)
            let b = (f1 + alpha * f0) / omega, amplitude = (f0 * f0 + b * b).squareRoot()
            if amplitude > limit { end = Swift.max(end, log(amplitude / limit) / alpha) }
        }
        guard !end.isNaN else { return .infinity }
        // The search goes no further than 2²⁰ quarter turns or 10⁹ s: a rule first met only past them
        // is taken never to be (one met earlier is found, however far `end` is).
        let horizon = Swift.min(Motion.longestTime, Motion.longestTurn / omega), stop = Swift.min(end, horizon)
        // Before `from` some component's energy k·x² + v² is above (k + 1)·E², which the rule needs. With
        // x = e^(−αt)·p·u and v = e^(−αt)·q·u (u = (cos ωt, sin ωt)), the energy is e^(−2αt)·uᵀ(k·ppᵀ + qqᵀ)u,
        // at least e^(−2αt) times that matrix's smaller eigenvalue: no evaluation needed.
        let allowed = (k + 1) * limit * limit
        var from = 0.0
        for d in 0..<4 where moves(d) {
            let (a, b) = (offset[d], (velocity[d] + alpha * offset[d]) / omega)
            let (qa, qb) = (b * omega - alpha * a, -(a * omega + alpha * b))
            let trace = k * (a * a + b * b) + qa * qa + qb * qb, cross = a * qb - b * qa
            let determinant = k * cross * cross
            let smallest = 2 * determinant / (trace + Swift.max(trace * trace - 4 * determinant, 0).squareRoot())
            if smallest > allowed, smallest.isFinite { from = Swift.max(from, log(smallest / allowed) / (2 * alpha)) }
        }
        guard from < stop else { return end <= horizon ? end : .infinity }
        let points = turningPoints(alpha: alpha, omega: omega, end: stop)
        return scan(from: from, end: stop) { points.next(after: $0) } ?? (end <= horizon ? end : .infinity)
    }

    /// Undamped: the energy never falls, the motion repeats every 2π/ω: a period is searched.
    func undamped(omega: Double) -> Double {
        let period = 2 * Double.pi / omega
        guard period.isFinite, period < Motion.longestTime else { return .infinity }
        let points = turningPoints(alpha: 0, omega: omega, end: period)
        return scan(from: 0, end: period) { points.next(after: $0) } ?? .infinity
    }

    /// The turning functions' zeros, each e^(−αt)·(A·cos ωt + B·sin ωt): (θ + nπ)/ω, θ in [0, π).
    struct TurningPoints {
        var phases = SIMD8<Double>(repeating: .infinity)     // infinity: a function that is zero
        let omega: Double, end: Double

        /// The next zero after t of any of them; `end` past the last.
        func next(after t: Double) -> Double {
            var nearest = end
            for j in 0..<8 where phases[j].isFinite {
                let n = ((omega * t - phases[j]) / .pi).rounded(.down) + 1
                // Rounding may put the first candidate at or before t: the next one is past it.
                var zero = (phases[j] + n * .pi) / omega
                if zero <= t { zero = (phases[j] + (n + 1) * .pi) / omega }
                if zero > t { nearest = Swift.min(nearest, zero) }
            }
            return nearest
        }
    }

    func turningPoints(alpha: Double, omega: Double, end: Double) -> TurningPoints {
        var points = TurningPoints(omega: omega, end: end)
        for j in 0..<8 where counts(j) {
            let (f0, f1) = turning(j)
            guard f0 != 0 || f1 != 0 else { continue }
            var theta = atan2(-f0, (f1 + alpha * f0) / omega)
            if theta < 0 { theta += .pi }
            points.phases[j] = theta >= .pi ? 0 : theta
        }
        return points
    }

    // MARK: Critically and overdamped

    /// γ = √(α² − k) ≥ 0: every f is p·e^(−s₁t) + r·e^(−s₂t) (or (p + r·t)·e^(−αt)), zero at most once.
    func damped(alpha: Double, gamma: Double) -> Double {
        let fast = alpha + gamma, slow = k / fast
        var zeros = SIMD8<Double>(repeating: .infinity), last = 0.0
        for j in 0..<8 where counts(j) {
            let (f0, f1) = turning(j)
            // e^(2γt) = 1 + 2γ·z with z = −f(0)/(f′(0) + s₂·f(0)) (z itself when critical).
            let z = -f0 / (f1 + fast * f0), x = 2 * gamma * z
            let t = abs(x) < 1e-8 ? z * (1 - x / 2) : log1p(x) / (2 * gamma)
            if t > 0, t.isFinite { zeros[j] = t; last = Swift.max(last, t) }
        }
        // After the last zero every |f| falls to 0: doubled until the rule holds there, or to 10⁹ s (then
        // searched to there: a rule first met only later is taken never to be).
        var end = Swift.min(last + (slow > 0 ? 1 / slow : 1), Motion.longestTime), doublings = 0
        while !holds(state(at: end)) && end < Motion.longestTime && doublings < 64 {
            end = Swift.min(last + 2 * (end - last), Motion.longestTime)
            doublings += 1
        }
        guard end.isFinite else { return .infinity }
        let bounded = holds(state(at: end))
        return scan(from: 0, end: end) { t in
            var nearest = end
            for j in 0..<8 where zeros[j] > t { nearest = Swift.min(nearest, zeros[j]) }
            return nearest
        } ?? (bounded ? end : .infinity)
    }

    // MARK: The pieces

    /// Past 2²⁰ quarter turns `motion_sincos` is no longer exact; past 10⁹ s a spring is taken never to rest.
    static let longestTurn = Double(1 << 20) * .pi / 2
    static let longestTime = 1e9
    /// Pieces searched before settling for the end of the search (see `RestTime`).
    static let mostPieces = 2048

    /// The first time in [from, end] the rule holds, piece by piece (`next(t)`: the next piece's start);
    /// nil if it does not within `end` or `mostPieces`.
    private func scan(from: Double, end: Double, next: (Double) -> Double) -> Double? {
        var t0 = from, s0 = state(at: from)
        for _ in 0..<Self.mostPieces {
            let t1 = Swift.min(next(t0), end), s1 = state(at: t1)
            if let first = firstHold(t0, s0, t1, s1) { return first }
            if t1 >= end || t1 <= t0 { break }
            (t0, s0) = (t1, s1)
        }
        return nil
    }

    /// Within one piece (every condition monotone): the latest time a condition enters |f| ≤ E, if at it
    /// all hold.
    private func firstHold(_ t0: Double, _ s0: State, _ t1: Double, _ s1: State) -> Double? {
        var latest = t0, decided = -1
        for i in 0..<8 where counts(i) {
            let f0 = condition(i, s0).value, f1 = condition(i, s1).value
            if abs(f0) <= limit { continue }
            let level = f0 > 0 ? limit : -limit
            if f0 > 0 ? f1 > limit : f1 < -limit { return nil }   // outside all this piece
            let entry = root(i, level: level, t0, f0, t1)
            if entry > latest { (latest, decided) = (entry, i) }
        }
        let state = state(at: latest)
        for i in 0..<8 where counts(i) && i != decided {
            let (value, slope) = condition(i, state)
            if abs(value) > limit * (1 + 1e-9) + abs(slope) * 1e-12 { return nil }
        }
        return latest
    }

    /// The time in [t0, t1] at which condition i's function, monotone there and outside `level` at t0,
    /// reaches it: Newton's method, kept inside the bracket by halving.
    private func root(_ i: Int, level: Double, _ t0: Double, _ f0: Double, _ t1: Double) -> Double {
        var low = t0, high = t1, t = (t0 + t1) / 2
        let outside = f0 > level
        for _ in 0..<200 {
            let (value, slope) = condition(i, state(at: t))
            let g = value - level
            if g == 0 { return t }
            if (g > 0) == outside { low = t } else { high = t }
            var next = slope != 0 ? t - g / slope : (low + high) / 2
            if !(next > low && next < high) { next = (low + high) / 2 }
            if abs(next - t) <= 1e-13 * Swift.max(t, 1e-9) || high - low <= 1e-15 * Swift.max(high, 1e-9) { return next }
            t = next
        }
        return high
    }
}
