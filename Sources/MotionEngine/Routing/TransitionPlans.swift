import MotionRoutes
import MotionWire

/// The plans that perform one update on the router's screens: one target per screen instance,
/// `screen:` + the canonical path up to and including its component (`screen:home/show::2`,
/// `screen:home/show::2!player`), so two instances of one route are two targets; overlays are
/// `overlay:<key>`.
///
/// When the top screen changes from `a` to `b` and the router declares a container animation for
/// (a, b), that animation's phases run on the two screens. Otherwise the incoming component's route
/// plan for the update (`push`, `present`, `select`; a `replace` uses the segue's) is added to the new
/// screen, and each removed component gets its route's `pop` (or `dismiss` for a modal) plan.
enum TransitionPlans {
    /// The target of the component at `index` of `state`.
    static func screen(in state: RouteState, at index: Int) -> String {
        "screen:" + RouteState(components: Array(state.components.prefix(index + 1))).canonicalPath
    }
    /// The targets of every component of `state`, each path built on the one before (one at a time, a
    /// pop of 255 screens built 32,000 components' text).
    static func screens(in state: RouteState) -> [String] {
        var text = "screen:", targets: [String] = []
        targets.reserveCapacity(state.components.count)
        for (index, component) in state.components.enumerated() {
            text += component.serialized(isRoot: index == 0)
            targets.append(text)
        }
        return targets
    }
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
            return container(pair, outgoing: screen(in: before, at: before.components.count - 1),
                             incoming: screen(in: after, at: after.components.count - 1))
        }
        var phase: RouteTransition.Phase = []
        let firstRemoved = update.op == .replace ? 0 : after.components.count
        if update.op == .pop || update.op == .replace {
            let screens = firstRemoved < before.components.count ? Self.screens(in: before) : []
            for index in (firstRemoved..<before.components.count).reversed() {
                let component = before.components[index]
                let update = component.segue == .modal ? "dismiss" : "pop"
                if let plan = routes[component.key]?.plan(for: update) {
                    phase.append((screens[index], themed(plan, update, configuration.vocabulary)))
                }
            }
        }
        if update.op != .pop, let component = update.component {
            let update = addition(component.segue)
            if let plan = routes[component.key]?.plan(for: update) {
                phase.append((screen(in: after, at: after.components.count - 1), themed(plan, update, configuration.vocabulary)))
            }
        }
        return phase.isEmpty ? [] : [phase]
    }

    /// Keys that give a spring its physics (any form, docs/vocabulary.md#springs).
    static let springKeys: Set<String> = ["tension", "damping", "stiffness", "mass", "dampingRatio", "response", "duration", "bounce", "spring", "motion"]

    /// A transition spring that names no physics takes the theme's `route.<update>` spring (docs/themes.md:
    /// critically damped in every shipped theme; the plugin's own default overshoots a push by 51 px of 400).
    static func themed(_ plan: JSONValue, _ update: String, _ vocabulary: PlanVocabulary) -> JSONValue {
        guard ["push", "pop", "present", "dismiss"].contains(update), let type = plan["type"]?.stringValue,
              vocabulary.retunable[type] == .fromCurrentState, case .object(var members) = plan,
              !members.keys.contains(where: springKeys.contains)
        else { return plan }
        members["spring"] = .string("@route." + update)
        return .object(members)
    }

    private static func addition(_ segue: Segue) -> String {
        switch segue {
        case .push: "push"
        case .modal: "present"
        case .tab: "select"
        }
    }

    /// `outgoing` and `incoming` are the two screens' targets.
    private static func container(_ pair: RouterConfiguration.Pair, outgoing: String, incoming: String) -> [RouteTransition.Phase] {
        let vocabulary = pair.vocabulary
        return pair.animation.phases.map { steps in
            steps.compactMap { step in
                let target = step.screen == .incoming ? incoming : outgoing
                switch (step.action, step.animated) {
                case (.appear, true): return (target, pair.appear)
                case (.remove, true): return (target, pair.remove)
                case (.appear, false): return vocabulary.set("opacity", to: [1]).map { (target, $0) }
                case (.remove, false): return vocabulary.set("opacity", to: [0]).map { (target, $0) }
                case (.order(let order), _): return vocabulary.set("zIndex", to: [Double(order)]).map { (target, $0) }
                }
            }
        }
    }
}
