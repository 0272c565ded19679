import MotionPluginKit

/// A plan that animates one property of its target.
package protocol AnimationPlan: Decodable {
    var property: String { get }
    /// Seconds before the animation starts; until then the property is left alone (docs/vocabulary.md). A
    /// negative delay starts it at once, that far along: a client's (CSS's negative animation-delay), a
    /// `Sequence`'s next step (the time its tick ran past the previous step's end), a retuned loop's phase.
    var delay: Double? { get }
}

extension AnimationPlan {
    package var delay: Double? { nil }
}

/// One running animation of one property, as the shipped Tween, Spring and Decay plugins define it.
package protocol PropertyAnimation {
    associatedtype Plan: AnimationPlan
    static var planType: String { get }

    /// Starts an animation on a property whose state is `current` (nil if it was never written).
    init(plan: Plan, current: PropertyState?, context: PerformerContext) throws

    /// A new plan for the same property while this animation runs. The default starts afresh from the
    /// current state; a spring keeps its velocity.
    func replaced(by plan: Plan, context: PerformerContext) throws -> Self

    /// Components the animation writes (1–4).
    var count: Int { get }
    var value: SIMD4<Double> { get }
    var velocity: SIMD4<Double> { get }
    var isFinished: Bool { get }
    /// Seconds the last advance ran past the animation's end (what a `Sequence`'s next step makes up):
    /// a tween's past its duration, a simulation's past its rest time (0 by default).
    var overrun: Double { get }
    /// Value and velocity together, computed once per frame.
    var state: (value: SIMD4<Double>, velocity: SIMD4<Double>) { get }
    mutating func advance(by dt: Double)
    /// `advance(by:)` then `state`, in one call: the tick loop's step.
    mutating func advanceAndState(by dt: Double) -> (value: SIMD4<Double>, velocity: SIMD4<Double>)

    /// Where this type's running animations live for one host (see `AnimationLaneSet`; a default exists).
    static func lanes(host: UInt) -> any AnimationLaneSet<Self>
}

extension PropertyAnimation {
    package var overrun: Double { 0 }

    package var state: (value: SIMD4<Double>, velocity: SIMD4<Double>) { (value, velocity) }

    package mutating func advanceAndState(by dt: Double) -> (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        advance(by: dt)
        return state
    }

    package func replaced(by plan: Plan, context: PerformerContext) throws -> Self {
        try Self(plan: plan, current: PropertyState(value: value, velocity: velocity, count: count), context: context)
    }
}

/// Values, velocities and parameters beyond this are refused: the maths would overflow to infinity.
package let maximumMagnitude = 1e15

/// Checks a plan's scalar parameter: finite, within `range`.
package func parameter(_ value: Double?, field: String, default fallback: Double, in range: ClosedRange<Double>) throws -> Double {
    let value = value ?? fallback
    guard value.isFinite, range.contains(value) else {
        throw PlanError("\(field): expected a number from \(range.lowerBound) to \(range.upperBound)")
    }
    return value
}

/// Reads a plan's vector, checking its length: `count` components, one per component of `reference`.
package func vector(_ components: [Double], field: String, count: Int? = nil, of reference: String = "to") throws -> SIMD4<Double> {
    guard (1...4).contains(components.count) else { throw PlanError("\(field): expected 1 to 4 numbers") }
    if let count, components.count != count {
        throw PlanError("\(field): expected \(count) \(count == 1 ? "number" : "numbers"), one per component of \(reference); found \(components.count)")
    }
    guard components.allSatisfy({ $0.isFinite && abs($0) <= maximumMagnitude }) else {
        throw PlanError("\(field): numbers must be finite and within ±1e15")
    }
    var result = SIMD4<Double>()
    for (index, component) in components.enumerated() { result[index] = component }
    return result
}

/// An animation driven by a `Simulation` (Spring, Decay): value, velocity and completion come from it.
/// Running ones live in `SimulationLanes`, which rebuilds them with `init(count:simulation:)`.
package protocol SimulatedAnimation: PropertyAnimation {
    var simulation: Simulation { get set }
    init(count: Int, simulation: Simulation)
}

extension SimulatedAnimation {
    package var value: SIMD4<Double> { simulation.published.value }
    package var velocity: SIMD4<Double> { simulation.published.velocity }
    package var isFinished: Bool { simulation.isSettled }
    package var overrun: Double { simulation.overrun }
    package var state: (value: SIMD4<Double>, velocity: SIMD4<Double>) { simulation.published }
    package mutating func advance(by dt: Double) { simulation.advance(by: dt, components: count) }

    @inline(__always)
    package mutating func advanceAndState(by dt: Double) -> (value: SIMD4<Double>, velocity: SIMD4<Double>) {
        simulation.advance(by: dt, components: count)
        return simulation.published
    }
}

/// An animation that can continue in another build of its plugin (hot swap): `snapshot` holds all of its
/// state, and `init(snapshot:context:)` picks it up where it was.
package protocol MigratableAnimation: PropertyAnimation {
    associatedtype Snapshot: Codable
    var snapshot: Snapshot { get }
    init(snapshot: Snapshot, context: PerformerContext) throws
}

/// All a simulated animation is: its component count and its simulation, mid-step included.
package struct SimulationSnapshot: Codable, Sendable {
    package var count: Int
    package var simulation: Simulation
}

extension SimulatedAnimation {
    package var snapshot: SimulationSnapshot { SimulationSnapshot(count: count, simulation: simulation) }
}
