import MotionJSON
import MotionKernels

/// A spring or a decay evaluated exactly (docs/vocabulary.md#exact-motion): each `advance` applies the
/// closed form over the time asked (`motion_simulation_transition`, the formula the lanes use), so the
/// state at any time equals the analytic solution whatever steps led there. It rests at the time its rest
/// rule first holds (`RestTime`, found from the state it starts or is retargeted with, when first needed),
/// whatever the steps: the first `advance` that reaches that time ends on the resting value.
package struct Simulation: Sendable, Equatable, Codable {
    package enum Force: Sendable, Equatable, Codable {
        /// a = −tension·(x − target) − damping·v; settles when |v| and |x − target| are within threshold.
        case spring(target: SIMD4<Double>, tension: Double, damping: Double)
        /// a = −drag·v; rests where it is once |v| is within threshold.
        case decay(drag: Double)
    }

    package private(set) var force: Force
    package let threshold: Double
    /// `overshootClamping` (docs/vocabulary.md): a spring that rests at its target the first time it reaches it.
    /// Optional only so that states written before it existed still read.
    private var clamps: Bool?
    package var clampsAtTarget: Bool { clamps ?? false }
    private var value: SIMD4<Double>
    private var velocity: SIMD4<Double>
    package private(set) var isSettled = false
    /// Seconds from the state shown to the time the rest rule first holds (`RestTime`; infinity: never).
    /// nil until first needed (a plan built only to be checked, a delayed one's, never pays for the search;
    /// neither does a state written before it existed, until it moves).
    private var restsIn: Double?

    package init(value: SIMD4<Double>, velocity: SIMD4<Double>, force: Force, threshold: Double, clampsAtTarget: Bool = false) {
        self.init(value: value, velocity: velocity, force: force, threshold: threshold, restsIn: nil, clampsAtTarget: clampsAtTarget)
    }

    /// With `restsIn` known (a lane's, as it was found when the motion started); nil: found when needed.
    package init(value: SIMD4<Double>, velocity: SIMD4<Double>, force: Force, threshold: Double, restsIn: Double?,
                 clampsAtTarget: Bool = false) {
        self.force = force
        self.threshold = threshold
        clamps = clampsAtTarget ? true : nil
        self.value = value
        self.velocity = velocity
        // At rest already: settled here (a cheap test); else the search waits until the time is needed.
        self.restsIn = restsIn ?? (Self.holds(value: value, velocity: velocity, force: force, threshold: threshold) ? 0 : nil)
        settleIfAtRest()
    }

    /// The rule now: every component's distance (a spring's) and speed within the threshold.
    static func holds(value: SIMD4<Double>, velocity: SIMD4<Double>, force: Force, threshold: Double) -> Bool {
        let limit = SIMD4<Double>(repeating: threshold)
        guard all(magnitude(velocity) .<= limit) else { return false }
        if case .spring(let target, _, _) = force { return all(magnitude(value - target) .<= limit) }
        return true
    }

    /// `restsIn`, searched for now if it was not yet.
    private var remaining: Double {
        restsIn ?? Self.restTime(value: value, velocity: velocity, force: force, threshold: threshold)
    }

    /// When the rule first holds from this state (docs/vocabulary.md#when-a-spring-rests).
    static func restTime(value: SIMD4<Double>, velocity: SIMD4<Double>, force: Force, threshold: Double) -> Double {
        switch force {
        case .spring(let target, let tension, let damping):
            RestTime.spring(offset: value - target, velocity: velocity, tension: tension, damping: damping, threshold: threshold)
        case .decay(let drag):
            RestTime.decay(velocity: velocity, drag: drag, threshold: threshold)
        }
    }

    /// Seconds until it rests (0 once it has).
    package var timeToRest: Double { isSettled ? 0 : remaining }

    /// How far past its rest time the advance that rested it went: a `Sequence`'s next step starts that far
    /// along (docs/vocabulary.md#when-a-spring-rests).
    package var overrun: Double { isSettled ? Swift.max(0, -(restsIn ?? 0)) : 0 }

    /// The state shown now.
    package var published: (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        @inline(__always) get { (value, velocity) }
    }

    /// A new force from the published value and velocity: retargeting keeps the motion continuous.
    package func retargeted(to force: Force, threshold: Double) -> Simulation {
        Simulation(value: value, velocity: velocity, force: force, threshold: threshold, clampsAtTarget: clampsAtTarget)
    }

    /// The force as the transition's k and c, and the point its offsets are taken from.
    private var dynamics: (tension: Double, damping: Double, target: SIMD4<Double>) {
        switch force {
        case .spring(let target, let tension, let damping): (tension, damping, target)
        case .decay(let drag): (0, drag, .zero)
        }
    }

    /// Advances by `dt`, exactly. `components` is kept for callers that name it (every component moves by
    /// the same matrix; the unused ones are zero and stay zero).
    @inline(__always)
    package mutating func advance(by dt: Double, components: Int = 4) {
        guard !isSettled, dt > 0 else { return }
        let (tension, damping, target) = dynamics
        let remaining = self.remaining
        // A decay rests where it is at its rest time, not past it.
        let step = Swift.min(dt, remaining)
        var matrix = (0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &matrix) { entries in
            motion_simulation_transition(tension, damping, step, entries.baseAddress!.assumingMemoryBound(to: Double.self))
        }
        let before = value - target
        let offset = matrix.0 * before + matrix.1 * velocity
        velocity = matrix.2 * before + matrix.3 * velocity
        value = target + offset
        restsIn = remaining - dt
        if clamps == true, case .spring = force, Self.crosses(before, offset) {
            rest(at: target)
            return
        }
        settleIfAtRest()
    }

    /// From offset `before` to `after` the motion reached or passed the target.
    @inline(__always)
    static func crosses(_ before: SIMD4<Double>, _ after: SIMD4<Double>) -> Bool {
        (before * before).sum() > 0 && (before * after).sum() <= 0
    }

    private mutating func rest(at target: SIMD4<Double>) {
        value = target
        velocity = .zero
        isSettled = true
    }

    /// At its rest time (docs/vocabulary.md#when-a-spring-rests: every component's distance and speed within
    /// the threshold, first).
    @inline(__always)
    private mutating func settleIfAtRest() {
        // Defence in depth: plans are range-checked, but a state that left the finite numbers must stop
        // (a spring at its target, a decay at zero motion), never animate NaN forever.
        if !all((value - value) .== 0) || !all((velocity - velocity) .== 0) {
            if case .spring(let target, _, _) = force { value = target }
            if !all((value - value) .== 0) { value = .zero }
            velocity = .zero
            isSettled = true
            return
        }
        guard let restsIn, restsIn <= 0 else { return }
        if case .spring(let target, _, _) = force { value = target }
        velocity = .zero
        isSettled = true
    }
}

@inline(__always)
func magnitude(_ vector: SIMD4<Double>) -> SIMD4<Double> {
    vector.replacing(with: -vector, where: vector .< 0)
}

/// Hot-swap states without Foundation's coders: the JSON Codable's synthesized form reads and writes
/// (`{"force":{"spring":{"target":[…],"tension":…,"damping":…}},"threshold":…,"value":[…],…}`), so that
/// builds with either coder read each other's states.
extension Simulation {
    func write(into writer: inout StateWriter) {
        writer.raw("{\"force\":")
        switch force {
        case .spring(let target, let tension, let damping):
            writer.raw("{\"spring\":{\"target\":")
            writer.vector(target)
            writer.raw(",\"tension\":")
            writer.number(tension)
            writer.raw(",\"damping\":")
            writer.number(damping)
            writer.raw("}}")
        case .decay(let drag):
            writer.raw("{\"decay\":{\"drag\":")
            writer.number(drag)
            writer.raw("}}")
        }
        writer.raw(",\"threshold\":")
        writer.number(threshold)
        writer.raw(",\"value\":")
        writer.vector(value)
        writer.raw(",\"velocity\":")
        writer.vector(velocity)
        // The form states had when they were stepped (a build from before exact motion reads this one as
        // "shown as it is").
        writer.raw(",\"previousValue\":")
        writer.vector(value)
        writer.raw(",\"previousVelocity\":")
        writer.vector(velocity)
        writer.raw(",\"accumulator\":0")
        if clampsAtTarget { writer.raw(",\"clamps\":true") }
        // Infinity (never) is left out: a reader finds it again.
        if let restsIn, restsIn.isFinite {
            writer.raw(",\"restsIn\":")
            writer.number(restsIn)
        }
        writer.raw(isSettled ? ",\"isSettled\":true}" : ",\"isSettled\":false}")
    }

    init?(state json: JSONValue) {
        guard let threshold = json["threshold"]?.doubleValue, var value = json["value"]?.vector,
            var velocity = json["velocity"]?.vector, case .bool(let isSettled) = json["isSettled"]
        else { return nil }
        // A state from a build that stepped (8 ms steps, interpolated): what it showed.
        if !isSettled, let previousValue = json["previousValue"]?.vector, let previousVelocity = json["previousVelocity"]?.vector,
           let accumulator = json["accumulator"]?.doubleValue, accumulator < 0 {
            let alpha = (0.008 + accumulator) / 0.008
            value = previousValue + (value - previousValue) * alpha
            velocity = previousVelocity + (velocity - previousVelocity) * alpha
        }
        if let spring = json["force"]?["spring"], let target = spring["target"]?.vector,
            let tension = spring["tension"]?.doubleValue, let damping = spring["damping"]?.doubleValue
        {
            force = .spring(target: target, tension: tension, damping: damping)
        } else if let drag = json["force"]?["decay"]?["drag"]?.doubleValue {
            force = .decay(drag: drag)
        } else {
            return nil
        }
        self.threshold = threshold
        self.value = value
        self.velocity = velocity
        self.isSettled = isSettled
        if case .bool(true)? = json["clamps"] { clamps = true }
        restsIn = json["restsIn"]?.doubleValue
    }
}
