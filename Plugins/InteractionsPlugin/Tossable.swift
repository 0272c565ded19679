import Foundation  // log
import MotionJSON
import MotionPluginAPI
import MotionAnimation
import MotionPluginKit

/// `Tossable {property, gesture, axis?, bounds?, rubberBand?, snap?: [[..], ..], decelerationRate?: 0.998,
/// spring?: {Spring parameters}}` (docs/vocabulary.md#interactions): the property follows the gesture like a Draggable; at `ended`
/// it takes the release velocity v, projects the rest point `value + v·r/(1000·(1 − r))` (r =
/// decelerationRate per millisecond, as UIKit) and springs to the nearest snap point starting with v.
/// Without snap points it decays with v (drag = −1000·ln r per second); given `bounds` that the decay
/// would cross, a spring takes over where and when it crosses, with the decay's velocity there (Flutter's
/// BouncingScrollSimulation): the crossing is solved exactly and the spring added with that `delay`.
/// `cancelled` springs back to the value at `began`. The hand-overs are `Spring` and `Decay` plans emitted
/// on the performer's own target, each starting from the value and velocity before it: no jump in either.
final class Tossable: Performer {
    struct Plan: Decodable, DescribedPlan {
        var drag: DragPlan
        var snap: [[Double]]?
        var decelerationRate: Double?
        var spring: SpringParameters?

        struct SpringParameters: Decodable {
            var tension, damping, stiffness, mass, dampingRatio, response, duration, bounce, threshold, epsilon: Double?

            var json: [String: JSONValue] {
                var members: [String: JSONValue] = [:]
                for (key, value) in [("tension", tension), ("damping", damping), ("stiffness", stiffness), ("mass", mass),
                                     ("dampingRatio", dampingRatio), ("response", response), ("duration", duration),
                                     ("bounce", bounce), ("threshold", threshold), ("epsilon", epsilon)] {
                    if let value { members[key] = .number(value) }
                }
                return members
            }
        }

        private enum Keys: String, CodingKey { case snap, decelerationRate, spring }

        init(from decoder: any Decoder) throws {
            drag = try DragPlan(from: decoder)
            let container = try decoder.container(keyedBy: Keys.self)
            snap = try container.decodeIfPresent([[Double]].self, forKey: .snap)
            decelerationRate = try container.decodeIfPresent(Double.self, forKey: .decelerationRate)
            spring = try container.decodeIfPresent(SpringParameters.self, forKey: .spring)
        }

        static var schema: PlanSchema {
            var properties = DragPlan.schema
            properties["snap"] = PlanSchema.array(of: .vector, minItems: 1, maxItems: 1000)
                .described("Points it may come to rest at: the one nearest the projected rest point is taken.")
            properties["decelerationRate"] = PlanSchema.number(minimum: 0.5, maximum: 0.99999)
                .described("UIKit's deceleration per millisecond, for the projection and the decay (default 0.998).")
            // Each key's range from the Spring's own table (`MotionAnimation.SpringParameters.ranges`).
            var keys = MotionAnimation.SpringParameters.ranges.mapValues { PlanSchema.number(minimum: $0.lowerBound, maximum: $0.upperBound) }
            keys["threshold"] = PlanSchema.number(minimum: 1e-12, maximum: 1e6)
            keys["epsilon"] = PlanSchema.number(minimum: 1e-9, maximum: 0.5)
            properties["spring"] = .object(keys)
                .described("The spring it hands over to, in any one Spring form (default: the Spring's, tension 120 and damping 12).")
            return PlanSchema.plan(properties, required: ["property", "gesture"])
        }
    }

    static let planType = "Tossable"
    static let isContinuous = true
    private let follower: DragFollower
    private var plan: Plan?

    init(context: PerformerContext, target: String) {
        follower = DragFollower(context: context)
        follower.released = { [unowned self] state, value in handOver(state, value) }
    }

    func add(_ plan: Plan) throws {
        if let snap = plan.snap, !snap.allSatisfy({ (1...4).contains($0.count) && $0.allSatisfy(\.isFinite) }) {
            throw PlanError("snap: expected points of 1 to 4 finite numbers")
        }
        // One dimension for every point (a missing coordinate was taken as 0: `[[0], [1, 2]]` snapped y to 0).
        if let snap = plan.snap, let first = snap.first, let index = snap.firstIndex(where: { $0.count != first.count }) {
            throw PlanError("snap[\(index)]: expected \(first.count) number\(first.count == 1 ? "" : "s"), as snap[0] (every point has one dimension)")
        }
        // The spring it hands over to is checked now, as a Spring plan would be: refused at release, the
        // property stopped dead and only the daemon's log said why.
        if let parameters = plan.spring {
            var members = parameters.json
            members["property"] = "x"
            members["to"] = [0]
            do {
                _ = try SpringParameters(try JSONValueDecoder().decode(SpringPlan.self, from: .object(members)))
            } catch let error as PlanError {
                throw PlanError("spring.\(error.description)")
            }
        }
        self.plan = plan
        try follower.follow(plan.drag)
    }

    func advance(by dt: Double) { follower.update() }
    func yield(_ property: PropertyHandle) { follower.yield(property) }

    private func handOver(_ state: GestureState, _ value: SIMD4<Double>) {
        guard let plan, let rule = follower.rule, let property = follower.property else { return }
        let cancelled = state.phase == .cancelled
        let velocity = cancelled ? SIMD4<Double>() : follower.mapped(state.velocity)
        let rate = plan.decelerationRate ?? 0.998
        let projected = value + velocity * (rate / (1000 * (1 - rate)))
        var plans: [[String: JSONValue]] = []
        if cancelled {
            plans = [spring(to: follower.start, plan, from: value, velocity: velocity)]
        } else if let snap = plan.snap, !snap.isEmpty {
            let points = snap.map { point in SIMD4<Double>((0..<4).map { $0 < point.count ? point[$0] : 0 }) }
            let nearest = points.min { distance($0, projected) < distance($1, projected) }!
            plans = [spring(to: nearest, plan, from: value, velocity: velocity)]
        } else if rule.clamped(value) != value {
            // Released past a bound (rubber-banded): back to it at once, with the release velocity.
            plans = [spring(to: rule.clamped(value), plan, from: value, velocity: velocity)]
        } else {
            let drag = -1000 * log(rate)
            var decay: [String: JSONValue] = ["type": "Decay", "drag": .number(drag)]
            decay["from"] = .array(follower.json(value).map { .number($0) })
            decay["velocity"] = .array(follower.json(velocity).map { .number($0) })
            plans = [decay]
            if let crossing = crossing(from: value, velocity: velocity, drag: drag, rule: rule) {
                // x(t) = x₀ + v/d·(1 − e^(−d·t)), v(t) = v·e^(−d·t): where and how fast it reaches the bound.
                let fade = exp(-drag * crossing)
                let at = value + velocity / drag * (1 - fade)
                var handOver = spring(to: rule.clamped(value + velocity / drag), plan, from: at, velocity: velocity * fade)
                handOver["delay"] = .number(crossing)
                plans.append(handOver)
            }
        }
        follower.isHandingOver = true
        defer {
            follower.isHandingOver = false
            follower.finish(reason: cancelled ? "interrupted" : "finished")
        }
        do {
            for var next in plans {
                next["property"] = .string(plan.drag.property)
                try follower.context.emit(planJSON: JSONWriter.string(.object(next)))
            }
        } catch {
            follower.context.write(property, value: value, velocity: SIMD4(), count: follower.components)
            follower.context.log("Tossable could not hand over: \(error)",
                                 level: Int32(MOTION_LOG_WARNING))
        }
    }

    private func spring(to target: SIMD4<Double>, _ plan: Plan, from: SIMD4<Double>, velocity: SIMD4<Double>) -> [String: JSONValue] {
        var members = plan.spring?.json ?? [:]
        members["type"] = "Spring"
        members["to"] = .array(follower.json(target).map { .number($0) })
        members["from"] = .array(follower.json(from).map { .number($0) })
        members["velocity"] = .array(follower.json(velocity).map { .number($0) })
        return members
    }

    /// When a decay from `value` with `velocity` first reaches a bound it would pass (nil: it rests
    /// within them): for each component heading past its bound, t = −ln(1 − (bound − x₀)·d/v)/d.
    private func crossing(from value: SIMD4<Double>, velocity: SIMD4<Double>, drag: Double, rule: DragRule) -> Double? {
        guard let minimum = rule.minimum, let maximum = rule.maximum else { return nil }
        var earliest: Double?
        for index in 0..<follower.components where velocity[index] != 0 {
            let bound = velocity[index] > 0 ? maximum[index] : minimum[index]
            guard bound.isFinite else { continue }
            let fraction = (bound - value[index]) * drag / velocity[index]
            guard fraction >= 0, fraction < 1 else { continue }
            let time = -log(1 - fraction) / drag
            earliest = min(earliest ?? time, time)
        }
        return earliest
    }

    private func distance(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double {
        var sum = 0.0
        for index in 0..<follower.components { sum += (a[index] - b[index]) * (a[index] - b[index]) }
        return sum
    }
}
