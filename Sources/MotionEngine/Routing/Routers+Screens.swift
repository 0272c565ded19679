import MotionWire

/// A router's screens once a transition is over (docs/routes.md): only live screens keep targets, and their
/// values are those going straight to the URL leaves.
extension Routers {
    /// Ends the targets of screens and overlays no longer in the router's URL, once their leaving
    /// animations are over: `runtime.state` of a router's runtime shows its live screens only.
    func endLeftScreens(of router: Router) {
        let state = router.state
        var live = Set(TransitionPlans.screens(in: state))
        live.formUnion(state.overlays.keys.map(TransitionPlans.overlay))
        guard let scope = engine.runtimes[router.runtime] else { return }
        for target in scope.targetOrder.map(\.name) where !live.contains(target)
            && (target.hasPrefix("screen:") || target.hasPrefix("overlay:")) {
            engine.removeTarget(target, in: router.runtime)
        }
        undoContainers(of: router)
    }

    /// A container animation's stacking and hiding hold only while its pair of screens is adjacent in
    /// the URL: every other live screen gets `zIndex` 0, and one it hid (opacity 0) is shown again, as
    /// going straight to the URL leaves them (docs/routes.md path independence).
    func undoContainers(of router: Router) {
        let state = router.state, components = state.components, screens = TransitionPlans.screens(in: state)
        for index in components.indices {
            let covered = index + 1 < components.count
                && router.configuration.pair(from: components[index].key, to: components[index + 1].key) != nil
            let over = index > 0 && router.configuration.pair(from: components[index - 1].key, to: components[index].key) != nil
            let target = screens[index]
            var plans: [JSONValue] = []
            if !over, let z = engine.value(of: "zIndex", target: target, runtime: router.runtime), z != [0] {
                engine.vocabulary.set("zIndex", to: [0]).map { plans.append($0) }
            }
            if !covered, engine.value(of: "opacity", target: target, runtime: router.runtime) == [0] {
                engine.vocabulary.set("opacity", to: [1]).map { plans.append($0) }
            }
            for plan in plans {
                try? engine.addPlan(plan, to: target, in: router.runtime)
                // A later plan on the property: a retune no longer carries the transition's on (docs/themes.md).
                context.themes.planAdded(original: plan, resolved: plan, used: [], runtime: router.runtime, target: target,
                                         name: nil, uid: router.owner)
            }
        }
    }
}
