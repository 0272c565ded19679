import MotionPluginKit

/// The shipped animation plans' schemas: the host refuses a plan that does not match (an unknown or
/// misspelt key, a wrong type, a number out of range) before the performer sees it. The ranges are the
/// ones the maths checks too (`parameter(_:field:default:in:)`).
extension SpringPlan: DescribedPlan {
    package static let schema = PlanSchema.plan([
        "property": .string(), "to": .vector, "from": .vector, "velocity": .vector,
        "tension": .number(minimum: 1e-9, maximum: 1e5), "damping": .number(minimum: 0, maximum: 1e9),
        "threshold": .number(minimum: 1e-12, maximum: 1e6),
        "stiffness": .number(minimum: 1e-9, maximum: 1e9), "mass": .number(minimum: 1e-6, maximum: 1e6),
        "dampingRatio": .number(minimum: 0, maximum: 100), "response": .number(minimum: 0.001, maximum: 1000),
        "duration": .number(minimum: 0.001, maximum: 1000), "bounce": .number(minimum: -0.999999, maximum: 0.999999),
        "delay": .number(minimum: 0, maximum: 3600), "overshootClamping": .boolean,
    ], required: ["property", "to"])
}

extension TweenPlan: DescribedPlan {
    package static let schema = PlanSchema.plan([
        "property": .string(), "to": .vector, "from": .vector,
        "duration": .number(minimum: 0, maximum: 3600), "delay": .number(minimum: 0, maximum: 3600),
        "repeat": .anyOf([.number(minimum: 0.001, maximum: 1e6), .string(oneOf: ["forever"])]), "autoreverse": .boolean,
        "timing": .anyOf([
            // A preset or CSS timing text (`ease-in`, `steps(4, jump-start)`, `linear(0, 0.8 60%, 1)`), read by `CSSTiming`.
            .string(),
            .array(of: .number(), minItems: 4, maxItems: 4),
            .object(["function": .string(), "args": .array(of: .number(), maxItems: 16)], required: ["function"]),
        ]),
    ], required: ["property", "to"])
}

extension KeyframesPlan: DescribedPlan {
    static let timing = PlanSchema.anyOf([
        .string(), .array(of: .number(), minItems: 4, maxItems: 4),
        .object(["function": .string(), "args": .array(of: .number(), maxItems: 16)], required: ["function"]),
    ])

    package static let schema = PlanSchema.plan([
        "property": .string(), "values": .array(of: .vector, minItems: 2, maxItems: 1000),
        "keyTimes": .array(of: .number(minimum: 0, maximum: 1), minItems: 2, maxItems: 1000),
        "timing": .anyOf([timing, .array(of: timing, minItems: 1, maxItems: 999)]),
        "duration": .number(minimum: 0, maximum: 3600), "delay": .number(minimum: 0, maximum: 3600),
        "repeat": .anyOf([.number(minimum: 0.001, maximum: 1e6), .string(oneOf: ["forever"])]), "autoreverse": .boolean,
    ], required: ["property", "values"])
}

extension DecayPlan: DescribedPlan {
    package static let schema = PlanSchema.plan([
        "property": .string(), "velocity": .vector, "from": .vector,
        "drag": .number(minimum: 1e-9, maximum: 300), "threshold": .number(minimum: 1e-12, maximum: 1e6),
        "delay": .number(minimum: 0, maximum: 3600),
    ], required: ["property", "velocity"])
}
