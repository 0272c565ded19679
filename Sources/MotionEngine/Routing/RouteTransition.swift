import MotionRoutes
import MotionWire

/// A transition in progress: its updates, the one being performed and the phases of plans it adds.
final class RouteTransition {
    /// Plans added together; the next phase starts when the router's runtime has gone idle.
    typealias Phase = [(target: String, plan: JSONValue)]

    let from: RouteState
    let to: RouteState
    let updates: [RouteUpdate]
    let animated: Bool
    /// False: the destination is recorded, no update is performed or announced.
    let performs: Bool
    let reply: Router.Reply
    /// The state after the updates performed so far.
    var reached: RouteState
    /// The update being performed; -1 before the first.
    var updateIndex = -1
    var phases: [Phase] = []
    var phaseIndex = 0
    /// The current phase's plans run; `waitingSince` is when it started waiting for them.
    var waitingSince: Double?
    /// Plans of the current update that were refused, reported with its `route.update`.
    var errors: [String] = []

    init(from: RouteState, to: RouteState, animated: Bool, performs: Bool = true, reply: @escaping Router.Reply) {
        self.from = from
        self.to = to
        self.updates = RouteDiff.updates(from: from, to: to)
        self.animated = animated
        self.performs = performs
        self.reply = reply
        self.reached = from
    }

    var isWaiting: Bool { waitingSince != nil }
}

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
