import MotionPluginKit

/// `{"type":"Decay","property":"x","from"?:[..],"velocity":[1000],"drag"?:3,"threshold"?:0.1}` (docs/vocabulary.md).
package struct DecayPlan: AnimationPlan {
    package var property: String
    package var velocity: [Double]
    package var from: [Double]?
    package var drag: Double?
    package var threshold: Double?
    package var delay: Double?
}

/// Coasts with a = −drag·v and rests where it is once every component's speed is within the threshold.
/// Without `from` it starts from the property's current value.
package struct DecayAnimation: SimulatedAnimation, MigratableAnimation {
    package static let planType = "Decay"
    package let count: Int
    package var simulation: Simulation

    package init(plan: DecayPlan, current: PropertyState?, context: PerformerContext) throws {
        let velocity = try vector(plan.velocity, field: "velocity")
        let components = plan.velocity.count
        count = components
        let drag = try parameter(plan.drag, field: "drag", default: 3, in: 1e-9...300)
        let threshold = try parameter(plan.threshold, field: "threshold", default: 0.1, in: 1e-12...1e6)
        let from = try plan.from.map { try vector($0, field: "from", count: components, of: "velocity") }
        simulation = Simulation(value: from ?? current?.value ?? .zero, velocity: velocity, force: .decay(drag: drag),
                                threshold: threshold)
    }

    package init(count: Int, simulation: Simulation) {
        self.count = count
        self.simulation = simulation
    }

    package init(snapshot: SimulationSnapshot, context: PerformerContext) throws {
        guard (1...4).contains(snapshot.count) else { throw PlanError("state.count: expected 1 to 4") }
        count = snapshot.count
        simulation = snapshot.simulation
    }
}
