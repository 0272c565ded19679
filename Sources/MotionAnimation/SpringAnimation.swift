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
/// the simulation evaluates (mass folded in).
package struct SpringParameters: Equatable, Sendable {
    package var tension: Double
    package var damping: Double

    /// Each key's range: the one source of both the schema (`PlanSchemas`, what `plugins.list` documents)
    /// and the checks below. Exact motion has no stability limit, so each key's range is the whole story
    /// (docs/vocabulary.md#springs).
    package static let ranges: [String: ClosedRange<Double>] = [
        "tension": 1e-9...1e9, "damping": 0...1e9, "stiffness": 1e-9...1e9, "mass": 1e-6...1e6,
        "dampingRatio": 0...100, "response": 0.001...1000, "duration": 0.001...1000, "bounce": -0.999999...0.999999,
    ]

    static let formNames = "tension/damping, stiffness/damping/mass, stiffness/dampingRatio/mass, dampingRatio/response or duration/bounce"

    package init(_ plan: SpringPlan) throws {
        func value(_ given: Double?, _ field: String, _ fallback: Double) throws -> Double {
            try parameter(given, field: field, default: fallback, in: Self.ranges[field]!)
        }
        // Which form each given key selects; `damping` and `mass` are shared and checked after.
        let stiffnessForm = plan.stiffness != nil || (plan.mass != nil && plan.response == nil && plan.dampingRatio == nil)
        let forms: [(given: Bool, keys: [(String, Double?)])] = [
            (plan.tension != nil, [("tension", plan.tension)]),
            (stiffnessForm, [("stiffness", plan.stiffness), ("mass", plan.mass)]),
            // `dampingRatio` also completes the stiffness form; `response` never does (beside `stiffness` it was
            // dropped without a word).
            (plan.response != nil || (plan.stiffness == nil && plan.dampingRatio != nil), [("dampingRatio", plan.dampingRatio), ("response", plan.response)]),
            (plan.duration != nil || plan.bounce != nil, [("duration", plan.duration), ("bounce", plan.bounce)]),
        ]
        let used = forms.filter(\.given)
        // `damping` belongs to tension/damping and stiffness/damping/mass only.
        let dampingMisplaced = plan.damping != nil && (plan.dampingRatio != nil || plan.response != nil || plan.duration != nil || plan.bounce != nil)
        if used.count > 1 || dampingMisplaced {
            var keys = used.flatMap { $0.keys.filter { $0.1 != nil }.map(\.0) }
            if plan.dampingRatio != nil, !keys.contains("dampingRatio") { keys.append("dampingRatio") }
            if plan.damping != nil { keys.append("damping") }
            throw PlanError("\(keys.joined(separator: ", ")): one spring form per plan (\(Self.formNames))")
        }
        if stiffnessForm {
            let mass = try value(plan.mass, "mass", 1)
            let stiffness = try value(plan.stiffness, "stiffness", 120)
            tension = stiffness / mass
            if plan.dampingRatio != nil {
                // libadwaita's, niri's, Compose's and Android's form: damping = 2·dampingRatio·√(stiffness·mass).
                let ratio = try value(plan.dampingRatio, "dampingRatio", 1)
                damping = 2 * ratio * (stiffness * mass).squareRoot() / mass
            } else {
                damping = try value(plan.damping, "damping", 12) / mass
            }
        } else if plan.response != nil || plan.dampingRatio != nil {
            // `mass` is allowed and changes nothing: stiffness and damping both scale with it.
            _ = try value(plan.mass, "mass", 1)
            (tension, damping) = Self.from(ratio: try value(plan.dampingRatio, "dampingRatio", 0.825),
                                           response: try value(plan.response, "response", 0.5))
        } else if plan.duration != nil || plan.bounce != nil {
            let duration = try value(plan.duration, "duration", 0.5), bounce = try value(plan.bounce, "bounce", 0)
            (tension, damping) = Self.from(ratio: bounce >= 0 ? 1 - bounce : 1 / (1 + bounce), response: duration)
        } else {
            tension = try value(plan.tension, "tension", 120)
            damping = try value(plan.damping, "damping", 12)
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
