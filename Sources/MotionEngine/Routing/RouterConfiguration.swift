import MotionRoutes
import MotionWire

/// What `router.configure` declared for one scheme: route keys with their kind and transition plans, and
/// the container animations per (from, to) pair.
struct RouterConfiguration: Sendable {
    enum Kind: String, CaseIterable {
        case stack, modal, tab, overlay

        /// The segue a component of this route takes where the URL leaves it open (a plain `/`).
        var defaultSegue: Segue? {
            switch self {
            case .stack: .push
            case .modal: .modal
            case .tab: .tab
            case .overlay: nil
            }
        }
    }

    struct Route {
        var kind: Kind
        /// One plan for every update of this route, or one per update kind (`push`, `pop`, …).
        var plan: JSONValue?
        var plans: [String: JSONValue] = [:]

        /// The plan for `update`: its own, else the route's single `transition` — played reversed when the
        /// screen leaves (`pop`, `dismiss`, `hide`), so popping back does not play the arrival again.
        func plan(for update: String) -> JSONValue? {
            if let own = plans[update] { return own }
            guard let plan else { return nil }
            return ["pop", "dismiss", "hide"].contains(update) ? Self.reversed(plan) : plan
        }

        /// A plan run backwards: `from` and `to` swapped (Tween, Spring), `values` reversed (Keyframes).
        /// A plan with no `from` has no known start to return to and is kept as it is.
        static func reversed(_ plan: JSONValue) -> JSONValue {
            var reversed = plan
            if let values = plan["values"]?.arrayValue {
                reversed["values"] = .array(values.reversed())
                if let times = plan["keyTimes"]?.arrayValue {
                    reversed["keyTimes"] = .array(times.reversed().map { .number(1 - ($0.doubleValue ?? 0)) })
                }
            } else if let from = plan["from"], let to = plan["to"] {
                reversed["from"] = to
                reversed["to"] = from
            }
            return reversed
        }
    }

    struct Pair {
        var from: String
        var to: String
        var animation: ContainerAnimation
        var appear: JSONValue
        var remove: JSONValue
        /// Whose words its plans without an `appear` or `remove` of their own are written in.
        var vocabulary: PlanVocabulary
    }

    static let updateNames: Set<String> = ["push", "pop", "present", "dismiss", "select", "show", "hide"]
    static let maximumRoutes = 1024

    var routes: [String: Route] = [:]
    var pairs: [Pair] = []
    /// The configuration as the client sent it (`routes`, `transitions`), kept for the state file.
    let json: JSONValue
    /// The plans the engine writes for it (container animations' defaults, unanimated steps).
    let vocabulary: PlanVocabulary

    func pair(from: String, to: String) -> Pair? {
        pairs.last { $0.from == from && $0.to == to }
    }

    /// How a configuration's plans are checked: the plan types known, and the check `plan.add` makes (the
    /// type's schema: a misspelled key is refused at `router.configure`, not at the transition).
    struct PlanCheck {
        var planTypes: Set<String>
        var check: (JSONValue) throws(EngineError) -> Void = { _ throws(EngineError) in }
    }

    /// Reads and checks `{routes, transitions?}`. Every plan must pass `planCheck`, unless it is nil (a
    /// stored router whose plugins are not loaded, or no longer accept its plans, keeps its configuration).
    init(_ json: JSONValue, planTypes: Set<String>?, vocabulary: PlanVocabulary) throws(EngineError) {
        try self.init(json, planCheck: planTypes.map { PlanCheck(planTypes: $0) }, vocabulary: vocabulary)
    }

    init(_ json: JSONValue, planCheck: PlanCheck?, vocabulary: PlanVocabulary) throws(EngineError) {
        self.json = json
        self.vocabulary = vocabulary
        guard case .object(let declared)? = json["routes"] else {
            throw EngineError(.invalidRequest, "routes: expected an object of route keys")
        }
        guard !declared.isEmpty else { throw EngineError(.invalidRequest, "routes: expected at least one route") }
        guard declared.count <= Self.maximumRoutes else {
            throw EngineError(.invalidRequest, "routes: at most \(Self.maximumRoutes) routes")
        }
        for (key, entry) in declared {
            // A key names screens' targets (`screen:<path>`): a name, held to names' length (a 900 KB key
            // made each configure a frame-stalling copy).
            guard key.utf8.count <= Params.maximumNameLength else {
                throw EngineError(.limitExceeded, "routes: a route key of \(key.utf8.count) bytes; keys are at most \(Params.maximumNameLength) bytes")
            }
            let field = "routes.\(key)"
            guard RouteComponent.isValidKey(key) else {
                throw EngineError(.invalidRequest, "\(field): a route key must be non-empty, without spaces or / ! # ? ( ) : , =")
            }
            guard case .object(let members) = entry else { throw EngineError(.invalidRequest, "\(field): expected an object {kind, transition?}") }
            // Unknown keys are refused here as everywhere in the protocol (a misspelt `transition` left the
            // route without one, silently).
            for unknown in members.keys.sorted() where unknown != "kind" && unknown != "transition" {
                throw EngineError(.invalidRequest, "\(field).\(unknown): unknown key of a route (known: kind, transition)")
            }
            guard let kindName = entry["kind"]?.stringValue, let kind = Kind(rawValue: kindName) else {
                throw EngineError(.invalidRequest, "\(field).kind: expected \"stack\", \"modal\", \"tab\" or \"overlay\"")
            }
            var route = Route(kind: kind)
            switch entry["transition"] {
            case nil, .null?: break
            case .object(let members)? where members["type"] != nil:
                route.plan = try Self.checkPlan(entry["transition"]!, "\(field).transition", planCheck)
            case .object(let members)?:
                for (update, plan) in members {
                    guard Self.updateNames.contains(update) else {
                        throw EngineError(.invalidRequest, "\(field).transition.\(update): expected a plan, or an object of \(Self.updateNames.sorted().joined(separator: ", "))")
                    }
                    route.plans[update] = try Self.checkPlan(plan, "\(field).transition.\(update)", planCheck)
                }
            default:
                throw EngineError(.invalidRequest, "\(field).transition: expected a plan or an object of plans")
            }
            routes[key] = route
        }
        try readPairs(json["transitions"], planCheck)
    }

    private mutating func readPairs(_ transitions: JSONValue?, _ planCheck: PlanCheck?) throws(EngineError) {
        guard let transitions, transitions != .null else { return }
        guard case .array(let entries) = transitions, entries.count <= Self.maximumRoutes else {
            throw EngineError(.invalidRequest, "transitions: expected an array of {from, to, animation}")
        }
        for (index, entry) in entries.enumerated() {
            let field = "transitions[\(index)]"
            guard case .object(let members) = entry else { throw EngineError(.invalidRequest, "\(field): expected an object {from, to, animation}") }
            for unknown in members.keys.sorted() where !["from", "to", "animation"].contains(unknown) {
                throw EngineError(.invalidRequest, "\(field).\(unknown): unknown key of a transition (known: from, to, animation)")
            }
            var keys: [String] = []
            for end in ["from", "to"] {
                guard let key = entry[end]?.stringValue, routes[key] != nil else {
                    throw EngineError(.invalidRequest, "\(field).\(end): expected a key declared in routes")
                }
                keys.append(key)
            }
            let animation = entry["animation"]
            let name = animation?.stringValue ?? animation?["kind"]?.stringValue ?? ""
            guard let kind = ContainerAnimation(rawValue: name) else {
                throw EngineError(.invalidRequest, "\(field).animation: expected one of \(ContainerAnimation.allCases.map(\.rawValue).joined(separator: ", ")), or {kind, appear?, remove?}")
            }
            let appear = try animation?["appear"].map { plan throws(EngineError) in try Self.checkPlan(plan, "\(field).animation.appear", planCheck) }
            let remove = try animation?["remove"].map { plan throws(EngineError) in try Self.checkPlan(plan, "\(field).animation.remove", planCheck) }
            if let planCheck {
                guard let setType = vocabulary.setType else {
                    throw EngineError(.unknownPlanType, "\(field).animation: container animations need a plan type that sets values at once, and the loaded plugins name none")
                }
                let defaults = [appear == nil ? vocabulary.appear : nil, remove == nil ? vocabulary.remove : nil]
                if (appear == nil && vocabulary.appear == nil) || (remove == nil && vocabulary.remove == nil) {
                    throw EngineError(.invalidRequest, "\(field).animation: give appear and remove plans (the loaded plugins name no default cross-fade)")
                }
                let needed = [setType] + defaults.compactMap { $0?["type"]?.stringValue }
                for type in needed where !planCheck.planTypes.contains(type) {
                    throw EngineError(.unknownPlanType, "\(field).animation: container animations need the \(type) plan type, which no loaded plugin provides")
                }
            }
            pairs.append(Pair(from: keys[0], to: keys[1], animation: kind, appear: appear ?? vocabulary.appear ?? .null,
                              remove: remove ?? vocabulary.remove ?? .null, vocabulary: vocabulary))
        }
    }

    private static func checkPlan(_ plan: JSONValue, _ field: String, _ planCheck: PlanCheck?) throws(EngineError) -> JSONValue {
        guard case .object = plan, let type = plan["type"]?.stringValue else {
            throw EngineError(.invalidRequest, "\(field): expected a plan object with a \"type\"")
        }
        guard let planCheck else { return plan }
        guard planCheck.planTypes.contains(type) else {
            throw EngineError(.unknownPlanType, "\(field): unknown plan type \"\(type)\"; known: \(planCheck.planTypes.sorted().joined(separator: ", "))")
        }
        do throws(EngineError) {
            try planCheck.check(plan)
        } catch {
            throw EngineError(error.code, "\(field): \(error.message)")
        }
        return plan
    }
}
