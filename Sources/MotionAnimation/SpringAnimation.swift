import MotionPluginKit

/// `{"type":"Spring","property":"position","to":[100,200],"from"?:[..],"velocity"?:[..],"tension"?:120,
/// "damping"?:12,"threshold"?:0.1}` (SPEC §3).
public struct SpringPlan: AnimationPlan {
    public var property: String
    public var to: [Double]
    public var from: [Double]?
    public var velocity: [Double]?
    public var tension: Double?
    public var damping: Double?
    public var threshold: Double?
}

/// Without `from` a spring starts from the property's current value and velocity, so a new Spring plan
/// on a moving property (or a named replace) retargets it without a jump in value or velocity.
public struct SpringAnimation: SimulatedAnimation, MigratableAnimation {
    public static let planType = "Spring"
    public let count: Int
    public var simulation: Simulation

    public init(plan: SpringPlan, current: PropertyState?, context: PerformerContext) throws {
        let target = try vector(plan.to, field: "to")
        let components = plan.to.count
        count = components
        // RK4 at 8 ms stays stable up to about these stiffnesses; beyond them the numbers would explode.
        let tension = try parameter(plan.tension, field: "tension", default: 120, in: 1e-9...1e5)
        let damping = try parameter(plan.damping, field: "damping", default: 12, in: 0...300)
        let threshold = try parameter(plan.threshold, field: "threshold", default: 0.1, in: 1e-12...1e6)
        let from = try plan.from.map { try vector($0, field: "from", count: components) }
        let velocity = try plan.velocity.map { try vector($0, field: "velocity", count: components) }
        simulation = Simulation(
            value: from ?? current?.value ?? .zero,
            velocity: velocity ?? (from == nil ? current?.velocity ?? .zero : .zero),
            force: .spring(target: target, tension: tension, damping: damping), threshold: threshold)
    }

    public init(count: Int, simulation: Simulation) {
        self.count = count
        self.simulation = simulation
    }

    public init(snapshot: SimulationSnapshot, context: PerformerContext) throws {
        guard (1...4).contains(snapshot.count) else { throw PlanError("state.count: expected 1 to 4") }
        count = snapshot.count
        simulation = snapshot.simulation
    }
}
