import MotionPluginKit

/// `{"type":"Spring","property":"position","to":[100,200],"from"?:[..],"velocity"?:[..],"tension"?:120,
/// "damping"?:12,"threshold"?:0.1}` (SPEC §3).
struct SpringPlan: Decodable {
    var property: String
    var to: [Double]
    var from: [Double]?
    var velocity: [Double]?
    var tension: Double?
    var damping: Double?
    var threshold: Double?
}

/// Springs for every property of one target. A new plan on an animating property retargets it and keeps
/// its value and velocity; the earlier plan ends as `interrupted`.
///
/// Removing a named plan only marks its spring: the host replaces a named plan by removing it and adding
/// the new one in the same request, and the replacement must take over the running spring (value,
/// velocity and token). A removal that nothing took over ends at the next tick.
final class SpringPerformer: Performer {
    static let planType = "Spring"
    static let isContinuous = true

    private struct Animation {
        var handle: PropertyHandle
        var property: String
        var name: String?
        var count: Int
        var solver: SpringSolver
        var token: ActiveToken
        var isRemoved = false
    }

    private let context: PerformerContext
    private var animations: [Animation] = []

    init(context: PerformerContext, target: String) {
        self.context = context
    }

    func add(_ plan: SpringPlan) throws {
        try start(plan, name: nil)
    }

    func add(_ plan: SpringPlan, named name: String) throws {
        try start(plan, name: name)
    }

    func removePlan(named name: String) {
        guard let index = animations.firstIndex(where: { $0.name == name && !$0.isRemoved }) else { return }
        animations[index].isRemoved = true
    }

    func advance(by dt: Double) {
        var index = 0
        while index < animations.count {
            if animations[index].isRemoved {
                let animation = animations.remove(at: index)
                context.write(animation.handle, value: animation.solver.published.value, velocity: .zero,
                              count: animation.count)
                finish(animation, reason: "interrupted")
                continue
            }
            animations[index].solver.advance(by: dt)
            let animation = animations[index]
            let shown = animation.solver.published
            context.write(animation.handle, value: shown.value, velocity: shown.velocity, count: animation.count)
            if animation.solver.isSettled {
                animations.remove(at: index)
                finish(animation, reason: "finished")
            } else {
                index += 1
            }
        }
    }

    private func start(_ plan: SpringPlan, name: String?) throws {
        let count = plan.to.count
        guard (1...4).contains(count) else { throw PlanError("to: expected 1 to 4 numbers") }
        if let from = plan.from, from.count != count { throw PlanError("from: expected \(count) numbers like to") }
        if let velocity = plan.velocity, velocity.count != count {
            throw PlanError("velocity: expected \(count) numbers like to")
        }
        let tension = plan.tension ?? 120, damping = plan.damping ?? 12, threshold = plan.threshold ?? 0.1
        guard tension > 0, tension.isFinite else { throw PlanError("tension: expected a positive number") }
        guard damping >= 0, damping.isFinite else { throw PlanError("damping: expected a number >= 0") }
        guard threshold > 0, threshold.isFinite else { throw PlanError("threshold: expected a positive number") }
        guard let handle = context.property(plan.property) else { throw PlanError("property: invalid name") }

        let target = vector(plan.to)
        if let index = animations.firstIndex(where: { $0.handle == handle }) {
            var animation = animations[index]
            context.animationEnded(property: animation.property, reason: "interrupted", name: animation.name)
            animation.solver.retarget(to: target, tension: tension, damping: damping, threshold: threshold)
            if let from = plan.from { animation.solver = animation.solver.restarted(value: vector(from)) }
            if let velocity = plan.velocity { animation.solver = animation.solver.restarted(velocity: vector(velocity)) }
            animation.name = name
            animation.count = count
            animation.isRemoved = false
            animations[index] = animation
            publish(animation, at: index)
            return
        }

        let current = context.read(handle)
        let value = plan.from.map(vector) ?? current?.value ?? .zero
        let velocity = plan.velocity.map(vector) ?? (plan.from == nil ? current?.velocity ?? .zero : .zero)
        let solver = SpringSolver(value: value, velocity: velocity, target: target, tension: tension,
                                  damping: damping, threshold: threshold)
        let animation = Animation(handle: handle, property: plan.property, name: name, count: count,
                                  solver: solver, token: context.generateToken())
        animations.append(animation)
        publish(animation, at: animations.count - 1)
    }

    /// Writes the start state so the first frame shows it; a spring created at rest finishes at once.
    private func publish(_ animation: Animation, at index: Int) {
        let shown = animation.solver.published
        context.write(animation.handle, value: shown.value, velocity: shown.velocity, count: animation.count)
        if animation.solver.isSettled {
            animations.remove(at: index)
            finish(animation, reason: "finished")
        }
    }

    private func finish(_ animation: Animation, reason: String) {
        context.animationEnded(property: animation.property, reason: reason, name: animation.name)
        context.terminate(animation.token)
    }
}

extension SpringSolver {
    func restarted(value: SIMD4<Double>? = nil, velocity: SIMD4<Double>? = nil) -> SpringSolver {
        let shown = published
        return SpringSolver(value: value ?? shown.value, velocity: velocity ?? shown.velocity, target: target,
                            tension: tension, damping: damping, threshold: threshold)
    }
}

private func vector(_ components: [Double]) -> SIMD4<Double> {
    var result = SIMD4<Double>()
    for (index, component) in components.prefix(4).enumerated() { result[index] = component }
    return result
}
