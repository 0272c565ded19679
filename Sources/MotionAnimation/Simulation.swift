import MotionJSON
/// A spring or a decay integrated with classic RK4 at a fixed step (0.008 s), as Advance does (docs/vocabulary.md).
///
/// The published state interpolates between the last two internal steps, so the curve does not depend
/// on the frame rate. The settle test runs once per `advance`, on the newest step.
package struct Simulation: Sendable, Equatable, Codable {
    package enum Force: Sendable, Equatable, Codable {
        /// a = −tension·(x − target) − damping·v; settles when |v| and |x − target| are within threshold.
        case spring(target: SIMD4<Double>, tension: Double, damping: Double)
        /// a = −drag·v; rests where it is once |v| is within threshold.
        case decay(drag: Double)
    }

    package static let step = 0.008
    static let stepsPerSecond = 1 / step

    package private(set) var force: Force
    package let threshold: Double
    /// `overshootClamping` (docs/vocabulary.md): a spring that rests at its target the first time it reaches it.
    /// Optional only so that states written before it existed still read.
    private var clamps: Bool?
    package var clampsAtTarget: Bool { clamps ?? false }
    private var value: SIMD4<Double>
    private var velocity: SIMD4<Double>
    private var previousValue: SIMD4<Double>
    private var previousVelocity: SIMD4<Double>
    /// Time simulated beyond the published time, in (−step, 0].
    private var accumulator = 0.0
    package private(set) var isSettled = false

    package init(value: SIMD4<Double>, velocity: SIMD4<Double>, force: Force, threshold: Double, clampsAtTarget: Bool = false) {
        self.force = force
        self.threshold = threshold
        clamps = clampsAtTarget ? true : nil
        self.value = value
        self.velocity = velocity
        previousValue = value
        previousVelocity = velocity
        settleIfAtRest()
    }

    /// The state shown now, interpolated between internal steps.
    package var published: (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        @inline(__always) get {
        if isSettled { return (value, velocity) }
        let alpha = (Self.step + accumulator) * Self.stepsPerSecond
        return (previousValue + (value - previousValue) * alpha, previousVelocity + (velocity - previousVelocity) * alpha)
        }
    }

    /// A new force from the published value and velocity: retargeting keeps the motion continuous.
    package func retargeted(to force: Force, threshold: Double) -> Simulation {
        let shown = published
        return Simulation(value: shown.value, velocity: shown.velocity, force: force, threshold: threshold,
                          clampsAtTarget: clampsAtTarget)
    }

    /// Advances by `dt`. `components` (1–4) says how many components move: up to two, the steps run on
    /// half-width vectors (the other components are zero and stay zero).
    @inline(__always)
    package mutating func advance(by dt: Double, components: Int = 4) {
        guard !isSettled, dt > 0 else { return }
        accumulator += dt
        while accumulator > 0 {
            previousValue = value
            previousVelocity = velocity
            integrateOneStep(components: components)
            accumulator -= Self.step
            if clamps == true, case .spring(let target, _, _) = force, Self.crosses(previousValue - target, value - target) {
                rest(at: target)
                return
            }
        }
        settleIfAtRest()
    }

    /// A step from offset `before` to `after` reaches or passes the target.
    @inline(__always)
    static func crosses(_ before: SIMD4<Double>, _ after: SIMD4<Double>) -> Bool {
        (before * before).sum() > 0 && (before * after).sum() <= 0
    }

    private mutating func rest(at target: SIMD4<Double>) {
        value = target
        velocity = .zero
        previousValue = value
        previousVelocity = .zero
        accumulator = 0
        isSettled = true
    }

    @inline(__always)
    private mutating func integrateOneStep(components: Int) {
        switch force {
        case .spring(let target, let tension, let damping):
            if components <= 2 {
                let low = target.lowHalf
                (value.lowHalf, velocity.lowHalf) = Self.rk4(value.lowHalf, velocity.lowHalf) { x, v in -tension * (x - low) - damping * v }
            } else {
                (value, velocity) = Self.rk4(value, velocity) { x, v in -tension * (x - target) - damping * v }
            }
        case .decay(let drag):
            if components <= 2 {
                (value.lowHalf, velocity.lowHalf) = Self.rk4(value.lowHalf, velocity.lowHalf) { _, v in -drag * v }
            } else {
                (value, velocity) = Self.rk4(value, velocity) { _, v in -drag * v }
            }
        }
    }

    /// One classic RK4 step of `step` seconds for x' = v, v' = acceleration(x, v).
    @inline(__always)
    private static func rk4<V: SIMD>(_ x: V, _ v: V, _ acceleration: (V, V) -> V) -> (V, V) where V.Scalar == Double {
        let h = step
        let k1x = v, k1v = acceleration(x, v)
        let k2x = v + k1v * (h / 2), k2v = acceleration(x + k1x * (h / 2), v + k1v * (h / 2))
        let k3x = v + k2v * (h / 2), k3v = acceleration(x + k2x * (h / 2), v + k2v * (h / 2))
        let k4x = v + k3v * h, k4v = acceleration(x + k3x * h, v + k3v * h)
        return (x + (k1x + 2 * k2x + 2 * k3x + k4x) * (h / 6), v + (k1v + 2 * k2v + 2 * k3v + k4v) * (h / 6))
    }

    /// Inclusive, every component (L∞), as Advance 0.9.x.
    @inline(__always)
    private mutating func settleIfAtRest() {
        // Defence in depth: plans are range-checked, but a state that left the finite numbers must stop
        // (a spring at its target, a decay at zero motion), never animate NaN forever.
        if !all((value - value) .== 0) || !all((velocity - velocity) .== 0) {
            if case .spring(let target, _, _) = force { value = target } else { value = previousValue }
            if !all((value - value) .== 0) { value = .zero }
            velocity = .zero
            previousValue = value
            previousVelocity = .zero
            accumulator = 0
            isSettled = true
            return
        }
        let limit = SIMD4<Double>(repeating: threshold)
        let still = magnitude(velocity) .<= limit
        switch force {
        case .spring(let target, _, _):
            guard all(still .& (magnitude(value - target) .<= limit)) else { return }
            value = target
        case .decay:
            guard all(still) else { return }
        }
        velocity = .zero
        previousValue = value
        previousVelocity = .zero
        accumulator = 0
        isSettled = true
    }
}

/// The form `SimulationLanes` keeps: the step boundary before the newest step (`boundary`, `velocity`) and
/// the accumulator in [−step, 0], where −step means "fresh: shown as it is" (see `motion_simulation_lanes`).
extension Simulation {
    var laneForm: (boundary: SIMD4<Double>, velocity: SIMD4<Double>, accumulator: Double) {
        if isSettled || (accumulator == 0 && previousValue == value && previousVelocity == velocity) {
            return (value, velocity, -Self.step)
        }
        return (previousValue, previousVelocity, accumulator)
    }

    /// The simulation whose lane form this is (the newest step is taken again from the boundary).
    init(boundary: SIMD4<Double>, velocity: SIMD4<Double>, accumulator: Double, force: Force, threshold: Double,
         clampsAtTarget: Bool = false) {
        self.init(value: boundary, velocity: velocity, force: force, threshold: threshold, clampsAtTarget: clampsAtTarget)
        guard accumulator > -Self.step else { return }
        isSettled = false
        value = boundary
        self.velocity = velocity
        previousValue = boundary
        previousVelocity = velocity
        integrateOneStep(components: 4)
        self.accumulator = accumulator
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
        writer.raw(",\"previousValue\":")
        writer.vector(previousValue)
        writer.raw(",\"previousVelocity\":")
        writer.vector(previousVelocity)
        writer.raw(",\"accumulator\":")
        writer.number(accumulator)
        if clampsAtTarget { writer.raw(",\"clamps\":true") }
        writer.raw(isSettled ? ",\"isSettled\":true}" : ",\"isSettled\":false}")
    }

    init?(state json: JSONValue) {
        guard let threshold = json["threshold"]?.doubleValue, let value = json["value"]?.vector,
            let velocity = json["velocity"]?.vector, let previousValue = json["previousValue"]?.vector,
            let previousVelocity = json["previousVelocity"]?.vector, let accumulator = json["accumulator"]?.doubleValue,
            case .bool(let isSettled) = json["isSettled"]
        else { return nil }
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
        self.previousValue = previousValue
        self.previousVelocity = previousVelocity
        self.accumulator = accumulator
        self.isSettled = isSettled
        if case .bool(true)? = json["clamps"] { clamps = true }
    }
}
