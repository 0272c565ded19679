import MotionWire

/// A running `Sequence` or `Group` (docs/vocabulary.md): plans on one target, one after another or all at once.
///
/// The engine launches the children (plans of any type, composites included) and follows their
/// `animation.ended`: a Sequence starts its next step when the current one ends `finished` and ends
/// `interrupted` as soon as one is interrupted; a Group ends when all of its children have ended
/// (`finished` if every one did). A composite keeps its runtime active from start to end.
final class Composite {
    enum Kind: String, CaseIterable { case sequence = "Sequence", group = "Group" }

    let id: UInt64
    let kind: Kind
    let children: [JSONValue]
    let runtime: String
    let target: String
    /// The composite this one is a child of.
    let parent: UInt64?
    /// The property every leaf drives, if they all drive one (reported with `animation.ended`).
    let property: String?
    /// A Sequence's next step.
    var next = 0
    /// Children started and not yet ended.
    var running = 0
    var interrupted = false
    /// True while `start` launches its first children: an end then is answered by `start`, not the parent.
    var isLaunching = false
    /// How far past its end the last child's tick ran (the next step starts that far along).
    var endedLate = 0.0
    /// Its runtime's clock when its step under way began (a Group's plans all began then), and its
    /// children that are composites, by index: what a theme's retune carries on (`Themes+Composites`).
    var stepStartedAt = 0.0
    var childIDs: [Int: UInt64] = [:]

    /// The owner's quotas (performers, animations), for every step (`quota.exceeded` ends the composite `interrupted`).
    let quotas: Quotas?

    init(id: UInt64, kind: Kind, children: [JSONValue], runtime: String, target: String, parent: UInt64?, quotas: Quotas? = nil) {
        self.quotas = quotas
        self.id = id
        self.kind = kind
        self.children = children
        self.runtime = runtime
        self.target = target
        self.parent = parent
        let properties = Set(children.flatMap(Self.properties(of:)))
        property = properties.count == 1 ? properties.first : nil
    }

    /// The plan's children: a Sequence's `steps`, a Group's `plans`.
    static func children(of plan: JSONValue) -> [JSONValue]? {
        switch plan["type"]?.stringValue {
        case Kind.sequence.rawValue: plan["steps"]?.arrayValue
        case Kind.group.rawValue: plan["plans"]?.arrayValue
        default: nil
        }
    }

    static func kind(of plan: JSONValue) -> Kind? {
        plan["type"]?.stringValue.flatMap(Kind.init(rawValue:))
    }

    /// The plans a checked plan starts: its leaves, over every level (1 for a plan a plugin performs).
    static func leafCount(of plan: JSONValue) -> Int {
        guard let children = children(of: plan) else { return 1 }
        return children.reduce(0) { $0 + leafCount(of: $1) }
    }

    /// Every property the plan's leaves drive, in order.
    static func properties(of plan: JSONValue) -> [String] {
        if let children = children(of: plan) { return children.flatMap(properties(of:)) }
        return plan["property"]?.stringValue.map { [$0] } ?? []
    }

    /// The plan with `seconds` more delay before it starts: a leaf's `delay` grows (it may turn negative:
    /// the leaf then starts that far along, see `AnimationPerformer`), a Sequence's first step waits,
    /// each of a Group's plans waits.
    static func delayed(_ plan: JSONValue, by seconds: Double) -> JSONValue {
        guard seconds != 0 else { return plan }
        var delayed = plan
        switch kind(of: plan) {
        case .sequence?:
            guard var steps = plan["steps"]?.arrayValue, !steps.isEmpty else { return plan }
            steps[0] = Self.delayed(steps[0], by: seconds)
            delayed["steps"] = .array(steps)
        case .group?:
            guard let plans = plan["plans"]?.arrayValue else { return plan }
            delayed["plans"] = .array(plans.map { Self.delayed($0, by: seconds) })
        case nil:
            let delay = (plan["delay"]?.doubleValue ?? 0) + seconds
            delayed["delay"] = delay == 0 ? nil : .number(delay)
        }
        return delayed
    }

    /// A composite's own `delay` and `essential` handed to its children (a child's own `essential` wins).
    static func inherited(_ plan: JSONValue) -> [JSONValue] {
        guard let children = children(of: plan) else { return [] }
        let delay = plan["delay"]?.doubleValue ?? 0
        let essential = plan["essential"]
        return children.enumerated().map { index, child in
            var child = child
            if let essential, child["essential"] == nil { child["essential"] = essential }
            if delay > 0, kind(of: plan) == .group || index == 0 { child = Self.delayed(child, by: delay) }
            return child
        }
    }
}

extension Engine {
    /// Every plan type a client may add: the plugins' and the engine's own composites.
    package var planTypes: [String] { registry.planTypes + [Composite.Kind.sequence.rawValue, Composite.Kind.group.rawValue] }

    /// Plans one composite may hold, counted over every level: each is started on the engine thread by
    /// the request that adds it (~6 µs for a `Set`, ~13 µs for a `Spring`), and a second uid adding 1,000
    /// at a time, back to back, stalled everyone's frames. 256, like the targets of a staggered `plan.add`,
    /// take ~2–3 ms.
    static let maximumCompositeLeaves = 256
    static let maximumCompositeDepth = 8

    /// Checks a `Sequence` or `Group` plan as `check` checks any plan: the keys it may have, then every
    /// child, nested composites included (at most `maximumCompositeDepth` levels and
    /// `maximumCompositeLeaves` leaves in all).
    func checkComposite(_ plan: JSONValue, kind: Composite.Kind, depth: Int, leaves: inout Int) throws(EngineError) {
        let list = kind == .sequence ? "steps" : "plans"
        guard case .object(let members) = plan else { throw EngineError(.invalidRequest, "plan: expected an object") }
        let known = ["type", list, "delay", "essential"]
        for key in members.keys.sorted() where !known.contains(key) {
            let hint = key == (kind == .sequence ? "plans" : "steps") ? "; did you mean \(list)?" : ""
            throw EngineError(.invalidPlan, "\(key): unknown key of a \(kind.rawValue)\(hint) (known: \(known.joined(separator: ", ")))")
        }
        if let delay = members["delay"] {
            guard let seconds = delay.doubleValue, seconds >= 0, seconds <= 3600 else {
                throw EngineError(.invalidPlan, "delay: expected a number from 0 to 3600")
            }
        }
        try Self.checkEssential(plan)
        guard depth < Self.maximumCompositeDepth else {
            throw EngineError(.invalidPlan, "\(list): composites nest at most \(Self.maximumCompositeDepth) levels deep")
        }
        guard case .array(let children)? = members[list], !children.isEmpty else {
            throw EngineError(.invalidPlan, "\(list): expected a non-empty array of plans")
        }
        for (index, child) in children.enumerated() {
            let inner = Composite.kind(of: child)
            if inner == nil {
                leaves += 1
                // Said of the whole composite, not of the child's fields (`steps[256].at most …` before).
                guard leaves <= Self.maximumCompositeLeaves else {
                    throw EngineError(.invalidPlan, "\(list)[\(index)]: one plan too many; a composite holds at most \(Self.maximumCompositeLeaves) plans, its nested composites' plans counted together")
                }
            }
            do throws(EngineError) {
                if let inner {
                    try checkComposite(child, kind: inner, depth: depth + 1, leaves: &leaves)
                } else {
                    try checkLeaf(child)
                }
            } catch {
                // A child's own fields: `steps[0].type`, not `steps[0].plan.type` (what a top-level plan is called).
                let message = error.message.hasPrefix("plan.") ? "." + error.message.dropFirst(5)
                    : error.message.hasPrefix("plan:") ? String(error.message.dropFirst(4)) : "." + error.message
                throw EngineError(error.code, "\(list)[\(index)]\(message)")
            }
        }
    }

    /// `essential` (docs/vocabulary.md), a key every plan may have: the engine reads it, plugins never see it.
    static func checkEssential(_ plan: JSONValue) throws(EngineError) {
        switch plan["essential"] {
        case nil, .bool?: return
        default: throw EngineError(.invalidPlan, "essential: expected true or false")
        }
    }
}
