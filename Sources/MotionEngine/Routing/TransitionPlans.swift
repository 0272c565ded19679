import MotionRoutes
import MotionWire

/// The plans that perform one update on the router's screens (targets `screen:<key>` and
/// `overlay:<key>`).
///
/// When the top screen changes from `a` to `b` and the router declares a container animation for
/// (a, b), that animation's phases run on the two screens. Otherwise the incoming component's route
/// plan for the update (`push`, `present`, `select`; a `replace` uses the segue's) is added to the new
/// screen, and each removed component gets its route's `pop` (or `dismiss` for a modal) plan.
enum TransitionPlans {
    static func screen(_ key: String) -> String { "screen:" + key }
    static func overlay(_ key: String) -> String { "overlay:" + key }

    static func phases(for update: RouteUpdate, before: RouteState, after: RouteState,
                       configuration: RouterConfiguration) -> [RouteTransition.Phase] {
        let routes = configuration.routes
        switch update.op {
        case .show, .hide:
            guard let plan = routes[update.key]?.plan(for: update.op.rawValue) else { return [] }
            return [[(overlay(update.key), plan)]]
        default: break
        }
        if let outgoing = before.components.last, let incoming = after.components.last, outgoing != incoming,
            let pair = configuration.pair(from: outgoing.key, to: incoming.key) {
            return container(pair, outgoing: outgoing.key, incoming: incoming.key)
        }
        var phase: RouteTransition.Phase = []
        let removed = update.op == .replace ? before.components : Array(before.components.dropFirst(after.components.count))
        if update.op == .pop || update.op == .replace {
            for component in removed.reversed() {
                if let plan = routes[component.key]?.plan(for: component.segue == .modal ? "dismiss" : "pop") {
                    phase.append((screen(component.key), plan))
                }
            }
        }
        if update.op != .pop, let component = update.component {
            if let plan = routes[component.key]?.plan(for: addition(component.segue)) {
                phase.append((screen(component.key), plan))
            }
        }
        return phase.isEmpty ? [] : [phase]
    }

    private static func addition(_ segue: Segue) -> String {
        switch segue {
        case .push: "push"
        case .modal: "present"
        case .tab: "select"
        }
    }

    private static func container(_ pair: RouterConfiguration.Pair, outgoing: String, incoming: String) -> [RouteTransition.Phase] {
        pair.animation.phases.map { steps in
            steps.map { step in
                let target = screen(step.screen == .incoming ? incoming : outgoing)
                switch (step.action, step.animated) {
                case (.appear, true): return (target, pair.appear)
                case (.remove, true): return (target, pair.remove)
                case (.appear, false): return (target, ["type": "Set", "property": "opacity", "value": [1]])
                case (.remove, false): return (target, ["type": "Set", "property": "opacity", "value": [0]])
                case (.order(let order), _): return (target, ["type": "Set", "property": "zIndex", "value": [.number(Double(order))]])
                }
            }
        }
    }
}
