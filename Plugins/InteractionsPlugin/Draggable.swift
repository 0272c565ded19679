import MotionPluginKit

/// `Draggable {property, gesture, axis?, bounds?, rubberBand?: 0.55}` (docs/vocabulary.md#interactions): the property follows the
/// gesture (see `DragFollower`); when the gesture ends it rests where it was left (`animation.ended`
/// `finished`).
final class Draggable: Performer {
    struct Plan: Decodable, DescribedPlan {
        var drag: DragPlan

        init(from decoder: any Decoder) throws { drag = try DragPlan(from: decoder) }

        static var schema: PlanSchema { PlanSchema.plan(DragPlan.schema, required: ["property", "gesture"]) }
    }

    static let planType = "Draggable"
    static let isContinuous = true
    private let follower: DragFollower

    init(context: PerformerContext, target: String) {
        follower = DragFollower(context: context)
        follower.released = { [unowned follower] _, value in
            if let property = follower.property {
                follower.context.write(property, value: value, velocity: SIMD4(), count: follower.components)
            }
            follower.finish(reason: "finished")
        }
    }

    func add(_ plan: Plan) throws { try follower.follow(plan.drag) }
    func advance(by dt: Double) { follower.update() }
    func yield(_ property: PropertyHandle) { follower.yield(property) }
}
