/// A damped spring integrated with classic RK4 at a fixed step, as Advance does (SPEC §3).
///
/// The published state interpolates between the last two steps, so the curve does not depend on the
/// frame rate; the settle test runs once per advance, on the newest step.
struct SpringSolver {
    static let step = 0.008

    var target: SIMD4<Double>
    var tension: Double
    var damping: Double
    var threshold: Double

    private(set) var value: SIMD4<Double>
    private(set) var velocity: SIMD4<Double>
    private var previousValue: SIMD4<Double>
    private var previousVelocity: SIMD4<Double>
    /// Time simulated beyond the published time, in (−step, 0].
    private var accumulator = 0.0
    private(set) var isSettled = false

    init(value: SIMD4<Double>, velocity: SIMD4<Double>, target: SIMD4<Double>, tension: Double, damping: Double,
         threshold: Double) {
        self.target = target
        self.tension = tension
        self.damping = damping
        self.threshold = threshold
        self.value = value
        self.velocity = velocity
        previousValue = value
        previousVelocity = velocity
        settleIfAtRest()
    }

    /// The state the spring shows now (interpolated between internal steps).
    var published: (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        if isSettled { return (value, velocity) }
        let alpha = (Self.step + accumulator) / Self.step
        return (previousValue + (value - previousValue) * alpha, previousVelocity + (velocity - previousVelocity) * alpha)
    }

    /// Points the running spring somewhere else, keeping its published value and velocity.
    mutating func retarget(to newTarget: SIMD4<Double>, tension: Double, damping: Double, threshold: Double) {
        let (shownValue, shownVelocity) = published
        self = SpringSolver(value: shownValue, velocity: shownVelocity, target: newTarget, tension: tension,
                            damping: damping, threshold: threshold)
    }

    mutating func advance(by dt: Double) {
        guard !isSettled, dt > 0 else { return }
        accumulator += dt
        while accumulator > 0 {
            previousValue = value
            previousVelocity = velocity
            integrateOneStep()
            accumulator -= Self.step
        }
        settleIfAtRest()
    }

    private func acceleration(_ x: SIMD4<Double>, _ v: SIMD4<Double>) -> SIMD4<Double> {
        -tension * (x - target) - damping * v
    }

    private mutating func integrateOneStep() {
        let h = Self.step
        let x = value, v = velocity
        let k1x = v, k1v = acceleration(x, v)
        let k2x = v + k1v * (h / 2), k2v = acceleration(x + k1x * (h / 2), v + k1v * (h / 2))
        let k3x = v + k2v * (h / 2), k3v = acceleration(x + k2x * (h / 2), v + k2v * (h / 2))
        let k4x = v + k3v * h, k4v = acceleration(x + k3x * h, v + k3v * h)
        value = x + (k1x + 2 * k2x + 2 * k3x + k4x) * (h / 6)
        velocity = v + (k1v + 2 * k2v + 2 * k3v + k4v) * (h / 6)
    }

    /// Every component within `threshold` of rest (inclusive): snap to the target with zero velocity.
    private mutating func settleIfAtRest() {
        let limit = SIMD4<Double>(repeating: threshold)
        let still = abs(velocity) .<= limit
        let there = abs(value - target) .<= limit
        if all(still .& there) {
            value = target
            velocity = .zero
            previousValue = target
            previousVelocity = .zero
            accumulator = 0
            isSettled = true
        }
    }
}

private func abs(_ vector: SIMD4<Double>) -> SIMD4<Double> {
    vector.replacing(with: -vector, where: vector .< 0)
}
