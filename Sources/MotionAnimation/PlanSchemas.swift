import MotionPluginKit

/// The shipped animation plans' schemas: the host refuses a plan that does not match (an unknown or
/// misspelt key, a wrong type, a number out of range) before the performer sees it. The ranges are the
/// ones the maths checks too (`parameter(_:field:default:in:)`).
extension SpringPlan: DescribedPlan {
    static let property = PlanSchema.string().described("The property of the target it animates.")
    static let delay = PlanSchema.number(minimum: -3600, maximum: 3600)
        .described("Seconds before it starts; the property is left alone until then. Negative: it starts at once, that far along (CSS's negative animation-delay).")
    static let repeatCount = PlanSchema.anyOf([.number(minimum: 0.001, maximum: 1e6), .string(oneOf: ["forever"])])
        .described("Cycles to play (fractions allowed) or \"forever\" (default 1).")
    static let autoreverse = PlanSchema.boolean.described("Each cycle runs forward, then back.")

    /// A spring key's range, from the one table the maths checks too (`SpringParameters.ranges`).
    static func number(_ key: String) -> PlanSchema {
        let range = SpringParameters.ranges[key]!
        return PlanSchema.number(minimum: range.lowerBound, maximum: range.upperBound)
    }

    package static let schema = PlanSchema.plan([
        "property": Self.property, "to": PlanSchema.vector.described("Where it comes to rest."),
        "from": PlanSchema.vector.described("Where it starts (default: the property's current value and velocity)."),
        "velocity": PlanSchema.vector.described("Its velocity at the start, units per second (default: the property's)."),
        "tension": Self.number("tension").described("Form tension/damping: the spring's pull (default 120)."),
        "damping": Self.number("damping").described("Forms tension/damping and stiffness/damping/mass: friction (default 12)."),
        "threshold": PlanSchema.number(minimum: 1e-12, maximum: 1e6).described("An absolute rest rule: it rests when every component's distance and speed are within this (instead of `epsilon`)."),
        "epsilon": PlanSchema.number(minimum: 1e-9, maximum: 0.5).described("The rest rule relative to the motion (niri, libadwaita): it rests when its distance and speed are within this fraction of its travel, or of its amplitude |v₀|/ω when it starts at its target (default 0.001)."),
        "stiffness": Self.number("stiffness").described("Forms stiffness/damping/mass (Android, Compose, Flutter, CASpringAnimation) and stiffness/dampingRatio/mass (libadwaita, niri, Compose's SpringSpec)."),
        "mass": Self.number("mass").described("Forms stiffness/damping/mass and stiffness/dampingRatio/mass (default 1); allowed with dampingRatio/response, where it changes nothing."),
        "dampingRatio": Self.number("dampingRatio").described("Forms dampingRatio/response (UIKit, SwiftUI; default 0.825) and stiffness/dampingRatio/mass: 1 is critically damped."),
        "response": Self.number("response").described("Form dampingRatio/response: the period of the undamped spring, seconds (default 0.5)."),
        "duration": Self.number("duration").described("Form duration/bounce (SwiftUI, Flutter): seconds (default 0.5)."),
        "bounce": Self.number("bounce").described("Form duration/bounce: 0 no overshoot, above 0 bouncier, below 0 overdamped."),
        "delay": Self.delay, "overshootClamping": PlanSchema.boolean.described("Ends it the first time it reaches `to`."),
    ], required: ["property", "to"])
}

extension TweenPlan: DescribedPlan {
    package static let schema = PlanSchema.plan([
        "property": SpringPlan.property, "to": PlanSchema.vector.described("Where it ends."),
        "from": PlanSchema.vector.described("Where it starts (default: the property's current value)."),
        "duration": PlanSchema.number(minimum: 0, maximum: 3600).described("One cycle, seconds (default 0.25)."),
        "delay": SpringPlan.delay, "repeat": SpringPlan.repeatCount, "autoreverse": SpringPlan.autoreverse,
        "velocity": PlanSchema.vector.described("Its velocity at the start, units per second (default: the curve's own): the difference fades out over the first cycle, which still ends at `to` as its curve does."),
        "timing": PlanSchema.anyOf([
            // A preset or CSS timing text (`ease-in`, `steps(4, jump-start)`, `linear(0, 0.8 60%, 1)`), read by `CSSTiming`.
            .string(),
            .array(of: .number(), minItems: 4, maxItems: 4),
            .object(["function": .string(), "args": .array(of: .number(), maxItems: 16)], required: ["function"]),
        ]).described("A preset or CSS timing function (`ease-in-out`, `steps(4, jump-start)`, `linear(0, 0.8 60%, 1)`), a cubic Bézier [x1, y1, x2, y2], or a plugin's {function, args} (default `default`). Named: "
                     + TimingCurve.presets.keys.sorted().joined(separator: ", ") + "."),
    ], required: ["property", "to"])
}

extension KeyframesPlan: DescribedPlan {
    static let timing = PlanSchema.anyOf([
        .string(), .array(of: .number(), minItems: 4, maxItems: 4),
        .object(["function": .string(), "args": .array(of: .number(), maxItems: 16)], required: ["function"]),
    ])

    package static let schema = PlanSchema.plan([
        "property": SpringPlan.property,
        "values": PlanSchema.array(of: .vector, minItems: 2, maxItems: 1000).described("The values it passes through, vectors of one length."),
        "keyTimes": PlanSchema.array(of: .number(minimum: 0, maximum: 1), minItems: 2, maxItems: 1000)
            .described("When each value is reached, 0 to 1 of the duration, never decreasing (default: evenly spaced)."),
        "timing": PlanSchema.anyOf([timing, .array(of: timing, minItems: 1, maxItems: 999)])
            .described("One timing function for every segment, or one per segment (default linear)."),
        "duration": PlanSchema.number(minimum: 0, maximum: 3600).described("One cycle, seconds (default 0.25)."),
        "delay": SpringPlan.delay, "repeat": SpringPlan.repeatCount, "autoreverse": SpringPlan.autoreverse,
        "velocity": PlanSchema.vector.described("Its velocity at the start, units per second (default: the path's own): the difference fades out over the first cycle, which still ends at its last value."),
    ], required: ["property", "values"])
}

extension DecayPlan: DescribedPlan {
    package static let schema = PlanSchema.plan([
        "property": SpringPlan.property, "velocity": PlanSchema.vector.described("Its velocity at the start, units per second."),
        "from": PlanSchema.vector.described("Where it starts (default: the property's current value)."),
        "drag": PlanSchema.number(minimum: 1e-9, maximum: 300).described("How fast it slows, per second (default 3)."),
        "threshold": PlanSchema.number(minimum: 1e-12, maximum: 1e6).described("It rests when its speed is below this (default 0.1)."),
        "delay": SpringPlan.delay,
    ], required: ["property", "velocity"])
}
