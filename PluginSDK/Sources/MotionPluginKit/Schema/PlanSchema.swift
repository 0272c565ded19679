import MotionJSON

/// The plans a performer accepts, written in Swift and handed to the host as JSON Schema text
/// (`motion_factory.plan_schema`, ABI 1.2). The host refuses a plan that does not match before the
/// performer sees it, naming the field and, for a misspelt key, the closest known one.
///
/// ```swift
/// static let schema = PlanSchema.plan([
///     "property": .string(),
///     "to": .vector,
///     "tension": .number(minimum: 1e-9, maximum: 1e5),
/// ], required: ["property", "to"])
/// ```
///
/// Without a schema of its own, a performer's plan keys are found from its `Plan` type
/// (`PlanSchema.keys(of:)`): unknown keys are still refused, types are then checked by decoding.
public struct PlanSchema: Sendable, Equatable {
    /// The schema as a JSON value.
    public let value: JSONValue

    public init(_ value: JSONValue) {
        self.value = value
    }

    /// The schema as JSON text, written by the JSON core.
    public var json: String { JSONWriter.string(value) }

    /// The same schema with a `description` for readers (`plugins.list`); the host ignores it when checking.
    public func described(_ text: String) -> PlanSchema {
        guard case .object(var members) = value else { return self }
        members["description"] = .string(text)
        return PlanSchema(.object(members))
    }

    /// A plan: an object with these keys (closed: any other key is refused).
    public static func plan(_ properties: [String: PlanSchema], required: [String] = [], description: String? = nil) -> PlanSchema {
        object(properties, required: required, description: description)
    }

    public static func object(_ properties: [String: PlanSchema], required: [String] = [], description: String? = nil) -> PlanSchema {
        var members: [String: JSONValue] = ["type": "object", "properties": .object(properties.mapValues(\.value))]
        if let description { members["description"] = .string(description) }
        if !required.isEmpty { members["required"] = .array(required.map(JSONValue.string)) }
        return PlanSchema(.object(members))
    }

    public static func number(minimum: Double? = nil, maximum: Double? = nil, exclusiveMinimum: Double? = nil,
                              description: String? = nil) -> PlanSchema {
        var members: [String: JSONValue] = ["type": "number"]
        if let minimum { members["minimum"] = .number(finite(minimum)) }
        if let maximum { members["maximum"] = .number(finite(maximum)) }
        if let exclusiveMinimum { members["exclusiveMinimum"] = .number(finite(exclusiveMinimum)) }
        if let description { members["description"] = .string(description) }
        return PlanSchema(.object(members))
    }

    public static func integer(minimum: Int? = nil, maximum: Int? = nil) -> PlanSchema {
        var members: [String: JSONValue] = ["type": "integer"]
        if let minimum { members["minimum"] = .number(Double(minimum)) }
        if let maximum { members["maximum"] = .number(Double(maximum)) }
        return PlanSchema(.object(members))
    }

    /// A string, or one of `oneOf` when given.
    public static func string(oneOf: [String]? = nil) -> PlanSchema {
        guard let oneOf else { return PlanSchema(["type": "string"]) }
        return PlanSchema(["type": "string", "enum": .array(oneOf.map(JSONValue.string))])
    }

    public static let boolean = PlanSchema(["type": "boolean"])

    /// A property value: 1 to 4 numbers.
    public static let vector = array(of: .number(), minItems: 1, maxItems: 4)

    public static func array(of element: PlanSchema, minItems: Int? = nil, maxItems: Int? = nil) -> PlanSchema {
        var members: [String: JSONValue] = ["type": "array", "items": element.value]
        if let minItems { members["minItems"] = .number(Double(minItems)) }
        if let maxItems { members["maxItems"] = .number(Double(maxItems)) }
        return PlanSchema(.object(members))
    }

    /// Any one of several shapes (e.g. a timing given as a name, four numbers or an object).
    public static func anyOf(_ alternatives: [PlanSchema]) -> PlanSchema {
        PlanSchema(["anyOf": .array(alternatives.map(\.value))])
    }

    /// Anything: the key is known, its value is checked by the performer.
    public static let any = PlanSchema([:])

    private static func finite(_ value: Double) -> Double {
        precondition(value.isFinite, "a schema bound must be finite")
        return value
    }
}

/// A plan type that describes itself; the kit then hands the host this schema.
public protocol DescribedPlan: Decodable {
    static var schema: PlanSchema { get }
}
