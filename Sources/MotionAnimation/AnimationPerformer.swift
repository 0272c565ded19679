import MotionPluginKit

/// The performer behind Tween, Spring and Decay: one animation per property of its target.
///
/// Every animation ends with an `animation.ended` trace event, `reason` `finished` or `interrupted`.
/// A new plan on an animating property replaces it (the old one ends `interrupted`). Removing a named plan
/// only marks its animation: the host replaces a named plan by removing then adding it in one request, and
/// the replacement must take over the running animation (value, velocity, token). A removal nothing took
/// over ends at the next tick, leaving the value where it was.
public final class AnimationPerformer<Animation: PropertyAnimation>: Performer {
    public typealias Plan = Animation.Plan
    public static var planType: String { Animation.planType }
    public static var isContinuous: Bool { true }

    private struct Running {
        var handle: PropertyHandle
        var property: String
        var name: String?
        var animation: Animation
        var token: ActiveToken
        var isRemoved = false
    }

    private let context: PerformerContext
    private var running: [Running] = []

    public init(context: PerformerContext, target: String) {
        self.context = context
    }

    public func add(_ plan: Plan) throws {
        try start(plan, name: nil)
    }

    public func add(_ plan: Plan, named name: String) throws {
        try start(plan, name: name)
    }

    public func removePlan(named name: String) {
        guard let index = running.firstIndex(where: { $0.name == name && !$0.isRemoved }) else { return }
        running[index].isRemoved = true
    }

    public func advance(by dt: Double) {
        var index = 0
        while index < running.count {
            if running[index].isRemoved {
                let ended = running.remove(at: index)
                context.write(ended.handle, value: ended.animation.value, velocity: .zero, count: ended.animation.count)
                end(ended, reason: "interrupted")
                continue
            }
            running[index].animation.advance(by: dt)
            let current = running[index]
            publish(current)
            if current.animation.isFinished {
                running.remove(at: index)
                end(current, reason: "finished")
            } else {
                index += 1
            }
        }
    }

    private func start(_ plan: Plan, name: String?) throws {
        guard let handle = context.property(plan.property) else { throw PlanError("property: invalid name") }
        if let index = running.firstIndex(where: { $0.handle == handle }) {
            let replacement = try running[index].animation.replaced(by: plan, context: context)
            context.animationEnded(property: running[index].property, reason: "interrupted", name: running[index].name)
            running[index].animation = replacement
            running[index].name = name
            running[index].isRemoved = false
            publish(running[index])
            if replacement.isFinished { end(running.remove(at: index), reason: "finished") }
            return
        }
        let animation = try Animation(plan: plan, current: context.read(handle), context: context)
        let started = Running(handle: handle, property: plan.property, name: name, animation: animation,
                              token: context.generateToken())
        publish(started)
        if animation.isFinished {
            end(started, reason: "finished")
        } else {
            running.append(started)
        }
    }

    private func publish(_ running: Running) {
        let state = running.animation.state
        context.write(running.handle, value: state.value, velocity: state.velocity, count: running.animation.count)
    }

    private func end(_ running: Running, reason: String) {
        context.animationEnded(property: running.property, reason: reason, name: running.name)
        context.terminate(running.token)
    }
}

/// Hot swap: the running animations, their names and their state, moved to a new build at a tick
/// boundary. The new build takes its own tokens and writes nothing until the next tick, so values and
/// velocities carry on without a jump.
extension AnimationPerformer: MigratablePerformer where Animation: MigratableAnimation {
    public struct MigratedAnimation: Codable {
        var property: String
        var name: String?
        var isRemoved: Bool
        var snapshot: Animation.Snapshot
    }

    public func exportState() -> [MigratedAnimation] {
        running.map { MigratedAnimation(property: $0.property, name: $0.name, isRemoved: $0.isRemoved,
                                        snapshot: $0.animation.snapshot) }
    }

    public func importState(_ state: [MigratedAnimation]) throws {
        let restored = try state.map { migrated in
            guard let handle = context.property(migrated.property) else { throw PlanError("property: invalid name") }
            return (handle, migrated, try Animation(snapshot: migrated.snapshot, context: context))
        }
        for (handle, migrated, animation) in restored {
            running.append(Running(handle: handle, property: migrated.property, name: migrated.name, animation: animation,
                                   token: context.generateToken(), isRemoved: migrated.isRemoved))
        }
    }
}
