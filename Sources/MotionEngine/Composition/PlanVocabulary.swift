import MotionWire

/// The plans the engine writes itself, in the words of the plugins that are loaded: a plan's counterpart
/// that completes at once (reduce motion, speed 0, an unanimated route), the plan that sets a value at
/// once (a router's screens), and a container animation's default cross-fade. The engine names no
/// plugin's plan type: the host that loads the plugins gives the names (MotionHost's
/// `PlanVocabulary.shipped`, for the shipped plugins). Without a vocabulary (`none`) plans are kept as
/// they are, and container animations are refused.
package struct PlanVocabulary: Sendable, Equatable {
    /// How a plan of one type is made to complete at once with the values it would end with.
    package enum Instant: Sendable, Equatable {
        /// A time-based plan (`duration` seconds): of no duration.
        case noDuration
        /// A plan moving to `to`: starting there, at rest.
        case startAtTarget
        /// A plan coasting from `from` (default: the property's value) at `velocity`, slowed by
        /// a = −drag·v (`drag`, default `defaultDrag`): starting where it comes to rest, v/drag further on.
        case startAtRest(defaultDrag: Double)
    }

    /// By plan type: how it completes at once. Other types are kept as they are.
    package var instant: [String: Instant]
    /// The plan type that sets `property` to `value` at once (`{type, property, value}`); nil: none.
    package var setType: String?
    /// A container animation's default appear and remove plans.
    package var appear: JSONValue?
    package var remove: JSONValue?
    /// How a running plan of a type is carried on when a theme's token it used changes (docs/themes.md#live-retune).
    package enum Retune: Sendable, Equatable {
        /// Without `from` it goes on from the property's current value and velocity (a spring): added
        /// again without `from`, `velocity` and `delay`.
        case fromCurrentState
        /// A timed plan (`duration` seconds, default `defaultDuration`) that takes a start `velocity`: added
        /// again from the property's value with its velocity, for what is left of the new duration.
        case timed(defaultDuration: Double)
        /// A timed plan through `values` at `keyTimes` (evenly spaced by default) with `timing` (one, or one
        /// per segment) that takes a start `velocity`: added again from the property's value through the
        /// values still ahead, with its velocity, for what is left of the new duration.
        case path(defaultDuration: Double)
    }

    /// Plan types a theme's retune carries on, and how.
    package var retunable: [String: Retune]
    /// By token kind (`springs`, `timings`): a plan that uses a token of that kind as `@token`. A theme
    /// being set has each of its tokens of that kind performed in such a plan in a dry run, so a token
    /// no plan could use is refused then, naming it (`Themes+Checks`), not at each plan that names it.
    package var tokenUses: [String: JSONValue]
    /// The themes shipped with these plugins, by name, in their plan types' words (docs/themes.md):
    /// what `theme.set {shipped}` and a config's `theme` choose from.
    package var themes: [String: Theme]
    /// The theme in force until one is set; its `route.*` springs are every theme's fallback
    /// (`TransitionPlans.themed`). Without a vocabulary: an empty theme (routes then keep their own plans).
    package var baseTheme: Theme

    package init(instant: [String: Instant] = [:], setType: String? = nil, appear: JSONValue? = nil, remove: JSONValue? = nil,
                 retunable: [String: Retune] = [:], tokenUses: [String: JSONValue] = [:],
                 themes: [String: Theme] = [:], baseTheme: Theme = Theme(name: "none")) {
        self.instant = instant
        self.themes = themes
        self.baseTheme = baseTheme
        self.retunable = retunable
        self.tokenUses = tokenUses
        self.setType = setType
        self.appear = appear
        self.remove = remove
    }

    /// Plans kept as they are; no container animations.
    package static let none = PlanVocabulary()

    /// A plan that sets `property` to `value` at once (nil without a `setType`).
    func set(_ property: String, to value: [Double]) -> JSONValue? {
        setType.map { ["type": .string($0), "property": .string(property), "value": .array(value.map(JSONValue.number))] }
    }

    /// The plan's counterpart that finishes at once, of the same type, so its end is traced as usual
    /// (`animation.ended` `finished`). `current` is the property's value (for a plan without `from`).
    func instant(_ plan: JSONValue, current: [Double]? = nil) -> JSONValue {
        var instant = plan
        instant["delay"] = nil
        // A composite's plans each at once (an unanimated route's `Group` of a screen's plans animated).
        if let kind = Composite.kind(of: plan) {
            let list = kind == .sequence ? "steps" : "plans"
            guard let children = plan[list]?.arrayValue else { return plan }
            instant[list] = .array(children.map { self.instant($0) })
            return instant
        }
        guard let type = plan["type"]?.stringValue, let rule = self.instant[type] else { return plan }
        switch rule {
        case .noDuration:
            instant["duration"] = 0
            return instant
        case .startAtTarget:
            guard let to = plan["to"]?.arrayValue else { return plan }
            instant["from"] = .array(to)
            instant["velocity"] = .array(to.map { _ in 0 })
            return instant
        case .startAtRest(let defaultDrag):
            guard let velocity = plan["velocity"]?.arrayValue?.compactMap(\.doubleValue) else { return plan }
            let drag = plan["drag"]?.doubleValue ?? defaultDrag
            let start = plan["from"]?.arrayValue?.compactMap(\.doubleValue) ?? current ?? []
            let rest = velocity.indices.map { index in (index < start.count ? start[index] : 0) + velocity[index] / drag }
            instant["from"] = .array(rest.map(JSONValue.number))
            instant["velocity"] = .array(velocity.map { _ in 0 })
            return instant
        }
    }
}
