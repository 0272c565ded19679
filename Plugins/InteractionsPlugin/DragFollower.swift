import MotionPluginKit

/// What `Draggable` and `Tossable` share: following one gesture with one property. While the gesture runs
/// the property is its value at `began` plus the pointer's translation since then (on the chosen axes,
/// rubber-banded past `bounds`), with the tracker's velocity; when it ends or is cancelled, `released`
/// decides what comes next.
final class DragFollower {
    let context: PerformerContext
    private(set) var plan: DragPlan?
    private(set) var rule: DragRule?
    private(set) var property: PropertyHandle?
    private var gesture: GestureHandle?
    /// The property's value at `began`, and its component count.
    private(set) var start = SIMD4<Double>()
    private(set) var components = 1
    /// The gesture being followed (its `began` count); a new one starts a new drag.
    private var following: UInt64?
    private var token: ActiveToken?
    /// Called once when the followed gesture ends or is cancelled, with where the property was left.
    var released: (GestureState, SIMD4<Double>) -> Void = { _, _ in }
    /// True while the plans taking over are added: their claim is the expected hand-over, not an
    /// interruption (the drag keeps its token until they hold theirs: the runtime never looks idle).
    var isHandingOver = false

    init(context: PerformerContext) {
        self.context = context
    }

    func follow(_ plan: DragPlan) throws {
        let rule = try DragRule(plan)
        guard let property = context.property(plan.property) else { throw PlanError("property: invalid name") }
        guard let gesture = context.gesture(plan.gesture) else {
            throw PlanError("gesture: this host does not offer motion.gesture/1, or the name is invalid")
        }
        if token != nil { finish(reason: "interrupted") }
        self.plan = plan
        self.rule = rule
        self.property = property
        self.gesture = gesture
        // A gesture already under way is picked up now; otherwise its next `began` is.
        following = context.read(gesture).flatMap { $0.phase.isActive ? nil : $0.generation }
        update()
    }

    /// A newer plan of another type took the property.
    func yield(_ yielded: PropertyHandle) {
        guard yielded == property, token != nil, !isHandingOver else { return }
        finish(reason: "interrupted")
    }

    /// Applies the gesture's latest state (every tick while it runs, and with dt = 0 as samples arrive).
    func update() {
        guard let gesture, let property, let rule, let state = context.read(gesture) else { return }
        if state.phase.isActive {
            if following != state.generation { begin(state, property: property) }
            guard token != nil else { return }
            // A finger at rest writes nothing: a write of the value the property holds was a repeated frame
            // every tick. (Compared with the property, not with the last write: a scrubber's detach may
            // have put back another value meanwhile.)
            let (value, velocity) = (value(state, rule), rule.mapped(state.velocity, components: components))
            if let current = context.read(property), current.count == components, current.value == value,
               current.velocity == velocity { return }
            context.write(property, value: value, velocity: velocity, count: components)
        } else if token != nil {
            released(state, value(state, rule))
        }
    }

    func mapped(_ vector: SIMD2<Double>) -> SIMD4<Double> { rule?.mapped(vector, components: components) ?? SIMD4() }

    private func value(_ state: GestureState, _ rule: DragRule) -> SIMD4<Double> {
        rule.banded(start + rule.mapped(state.translation, components: components))
    }

    private func begin(_ state: GestureState, property: PropertyHandle) {
        following = state.generation
        let current = context.read(property)
        start = current?.value ?? SIMD4()
        // A property never written takes one component per axis followed.
        components = current.map { max($0.count, 1) } ?? (rule?.axis == "both" ? max(state.count, 1) : 1)
        if token == nil { token = context.generateToken() }
        context.claim(property)
    }

    /// Ends the drag: `animation.ended` with `reason`, token released.
    func finish(reason: String) {
        guard let token, let plan else { return }
        context.animationEnded(property: plan.property, reason: reason)
        context.terminate(token)
        self.token = nil
    }

    /// A plan vector of the property's components.
    func json(_ value: SIMD4<Double>) -> [Double] { (0..<components).map { value[$0] } }
}
