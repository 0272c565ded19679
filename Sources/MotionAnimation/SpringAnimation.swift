import MotionPluginKit

/// `{"type":"Spring","property":"position","to":[100,200],"from"?:[..],"velocity"?:[..],"threshold"?:0.1}`
/// with the spring in one of the forms users know (docs/vocabulary.md): `tension`/`damping` (docs/vocabulary.md, defaults 120
/// and 12), `stiffness`/`damping`/`mass` (Android, Compose, Flutter, CASpringAnimation), `dampingRatio` +
/// `response` (UIKit, SwiftUI) or `duration` + `bounce` (SwiftUI, Flutter). All the same physics.
package struct SpringPlan: AnimationPlan {
    package var property: String
    package var to: [Double]
    package var from: [Double]?
    package var velocity: [Double]?
    package var tension: Double?
    package var damping: Double?
    package var threshold: Double?
    /// The rest rule relative to the motion's own scale (docs/vocabulary.md#springs; niri's and
    /// libadwaita's `epsilon`, default 0.001).
    package var epsilon: Double?
    package var delay: Double?
    package var stiffness: Double?
    package var mass: Double?
    package var dampingRatio: Double?
    package var response: Double?
    package var duration: Double?
    package var bounce: Double?
    /// Ends the spring the first time it reaches its target (no overshoot).
    package var overshootClamping: Bool?
}

/// A spring's parameters in any of its forms, as the acceleration `−tension·(x − target) − damping·v`
/// the simulation integrates (mass folded in).
package struct SpringParameters: Equatable, Sendable {
    package var tension: Double
    package var damping: Double

    /// The forms and the keys that select them; `damping` belongs to the first two.
    static let forms: [(name: String, keys: [String])] = [
        ("tension/damping", ["tension"]), ("stiffness/damping/mass", ["stiffness", "mass"]),
        ("dampingRatio/response", ["dampingRatio", "response"]), ("duration/bounce", ["duration", "bounce"]),
    ]

    package init(_ plan: SpringPlan) throws {
        // libadwaita's, niri's, Compose's and Android's form: stiffness + dampingRatio (+ mass, default 1);
        // damping = 2·dampingRatio·√(stiffness·mass).
        if plan.stiffness != nil, plan.dampingRatio != nil, plan.damping == nil, plan.response == nil, plan.tension == nil,
           plan.duration == nil, plan.bounce == nil {
            let mass = try parameter(plan.mass, field: "mass", default: 1, in: 1e-6...1e6)
            let stiffness = try parameter(plan.stiffness, field: "stiffness", default: 120, in: 1e-9...1e9)
            let ratio = try parameter(plan.dampingRatio, field: "dampingRatio", default: 1, in: 0...100)
            tension = stiffness / mass
            damping = 2 * ratio * (stiffness * mass).squareRoot() / mass
            guard tension <= 1e5, damping <= 300 else {
                throw PlanError("stiffness, dampingRatio, mass: a spring stiffer than tension 1e5 or damped more than 300 per unit of mass; "
                    + "this one is tension \(tension), damping \(damping)")
            }
            return
        }
        let given: [String: Double?] = [
            "tension": plan.tension, "stiffness": plan.stiffness, "mass": plan.mass, "dampingRatio": plan.dampingRatio,
            "response": plan.response, "duration": plan.duration, "bounce": plan.bounce,
        ]
        let used = Self.forms.filter { form in form.keys.contains { given[$0] ?? nil != nil } }
        if used.count > 1 || (plan.damping != nil && used.contains { $0.name.hasPrefix("dampingRatio") || $0.name.hasPrefix("duration") }) {
            let keys = (used.flatMap(\.keys) + ["damping"]).filter { given[$0] ?? nil != nil || ($0 == "damping" && plan.damping != nil) }
            throw PlanError("\(keys.joined(separator: ", ")): one spring form per plan (tension/damping, stiffness/damping/mass, "
                + "stiffness/dampingRatio/mass, dampingRatio/response or duration/bounce)")
        }
        switch used.first?.name {
        case "stiffness/damping/mass"?:
            let mass = try parameter(plan.mass, field: "mass", default: 1, in: 1e-6...1e6)
            let stiffness = try parameter(plan.stiffness, field: "stiffness", default: 120, in: 1e-9...1e9)
            let damping = try parameter(plan.damping, field: "damping", default: 12, in: 0...1e9)
            tension = stiffness / mass
            self.damping = damping / mass
        case "dampingRatio/response"?:
            let ratio = try parameter(plan.dampingRatio, field: "dampingRatio", default: 0.825, in: 0...100)
            let response = try parameter(plan.response, field: "response", default: 0.5, in: 0.001...1000)
            (tension, damping) = Self.from(ratio: ratio, response: response)
        case "duration/bounce"?:
            let duration = try parameter(plan.duration, field: "duration", default: 0.5, in: 0.001...1000)
            let bounce = try parameter(plan.bounce, field: "bounce", default: 0, in: -0.999999...0.999999)
            (tension, damping) = Self.from(ratio: bounce >= 0 ? 1 - bounce : 1 / (1 + bounce), response: duration)
        default:
            tension = try parameter(plan.tension, field: "tension", default: 120, in: 1e-9...1e5)
            damping = try parameter(plan.damping, field: "damping", default: 12, in: 0...300)
            return
        }
        // RK4 at 8 ms stays stable up to about these; beyond them the numbers would explode.
        guard tension <= 1e5, damping <= 300 else {
            throw PlanError("\(used.first!.keys.joined(separator: ", ")): a spring stiffer than tension 1e5 or damped more than 300 per unit of mass; "
                + "this one is tension \(tension), damping \(damping)")
        }
    }

    /// UIKit/SwiftUI: stiffness = (2π/response)²·mass, damping = 4π·dampingRatio·mass/response (mass 1).
    static func from(ratio: Double, response: Double) -> (tension: Double, damping: Double) {
        let omega = 2 * Double.pi / response
        return (omega * omega, 4 * Double.pi * ratio / response)
    }
}

/// Without `from` a spring starts from the property's current value and velocity, so a new Spring plan
/// on a moving property (or a named replace) retargets it without a jump in value or velocity.
package struct SpringAnimation: SimulatedAnimation, MigratableAnimation {
    package static let planType = "Spring"
    package let count: Int
    package var simulation: Simulation

    package init(plan: SpringPlan, current: PropertyState?, context: PerformerContext) throws {
        let target = try vector(plan.to, field: "to")
        let components = plan.to.count
        count = components
        let spring = try SpringParameters(plan)
        let (tension, damping) = (spring.tension, spring.damping)
        let from = try plan.from.map { try vector($0, field: "from", count: components) }
        let velocity = try plan.velocity.map { try vector($0, field: "velocity", count: components) }
        let start = from ?? current?.value ?? .zero
        let startVelocity = velocity ?? (from == nil ? current?.velocity ?? .zero : .zero)
        let threshold: Double
        if let absolute = plan.threshold {
            guard plan.epsilon == nil else { throw PlanError("threshold, epsilon: one rest rule per plan (threshold absolute, epsilon relative)") }
            threshold = try parameter(absolute, field: "threshold", default: 0.1, in: 1e-12...1e6)
        } else {
            let epsilon = try parameter(plan.epsilon, field: "epsilon", default: 0.001, in: 1e-9...0.5)
            threshold = Self.restThreshold(epsilon: epsilon, from: start, to: target, velocity: startVelocity,
                                           tension: tension, count: components)
        }
        simulation = Simulation(
            value: start, velocity: startVelocity,
            force: .spring(target: target, tension: tension, damping: damping), threshold: threshold,
            clampsAtTarget: plan.overshootClamping ?? false)
    }

    /// The rest rule relative to the motion (docs/vocabulary.md#springs): `epsilon` of its scale — the
    /// travel (largest component of |to − from|), or for a spring that starts at its target with a velocity
    /// the amplitude |v₀|/ω. A spring from 0.9 to 1 rests within 1e-4 of its target; one from 0 to 400
    /// within 0.4, so it does not run longer than one from 0 to 1 (an absolute 0.1 snapped the first and
    /// made the second's time depend on the unit).
    static func restThreshold(epsilon: Double, from: SIMD4<Double>, to: SIMD4<Double>, velocity: SIMD4<Double>,
                              tension: Double, count: Int) -> Double {
        var travel = 0.0, speed = 0.0
        for axis in 0..<count {
            travel = Swift.max(travel, abs(to[axis] - from[axis]))
            speed = Swift.max(speed, abs(velocity[axis]))
        }
        let scale = travel > 0 ? travel : speed / tension.squareRoot()
        return Swift.min(Swift.max(epsilon * scale, 1e-12), 1e6)
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
