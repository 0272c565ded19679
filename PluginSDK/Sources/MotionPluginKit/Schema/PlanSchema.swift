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
    /// The schema as JSON text.
    public let json: String

    public init(json: String) {
        self.json = json
    }

    /// A plan: an object with these keys (closed: any other key is refused).
    public static func plan(_ properties: [String: PlanSchema], required: [String] = [], description: String? = nil) -> PlanSchema {
        object(properties, required: required, description: description)
    }

    public static func object(_ properties: [String: PlanSchema], required: [String] = [], description: String? = nil) -> PlanSchema {
        var members = ["\"type\":\"object\""]
        if let description { members.append("\"description\":" + quoted(description)) }
        let entries = properties.keys.sorted().map { quoted($0) + ":" + properties[$0]!.json }
        members.append("\"properties\":{" + entries.joined(separator: ",") + "}")
        if !required.isEmpty { members.append("\"required\":[" + required.map(quoted).joined(separator: ",") + "]") }
        return PlanSchema(json: "{" + members.joined(separator: ",") + "}")
    }

    public static func number(minimum: Double? = nil, maximum: Double? = nil, exclusiveMinimum: Double? = nil,
                              description: String? = nil) -> PlanSchema {
        var members = ["\"type\":\"number\""]
        if let minimum { members.append("\"minimum\":" + number(minimum)) }
        if let maximum { members.append("\"maximum\":" + number(maximum)) }
        if let exclusiveMinimum { members.append("\"exclusiveMinimum\":" + number(exclusiveMinimum)) }
        if let description { members.append("\"description\":" + quoted(description)) }
        return PlanSchema(json: "{" + members.joined(separator: ",") + "}")
    }

    public static func integer(minimum: Int? = nil, maximum: Int? = nil) -> PlanSchema {
        var members = ["\"type\":\"integer\""]
        if let minimum { members.append("\"minimum\":\(minimum)") }
        if let maximum { members.append("\"maximum\":\(maximum)") }
        return PlanSchema(json: "{" + members.joined(separator: ",") + "}")
    }

    /// A string, or one of `oneOf` when given.
    public static func string(oneOf: [String]? = nil) -> PlanSchema {
        guard let oneOf else { return PlanSchema(json: "{\"type\":\"string\"}") }
        return PlanSchema(json: "{\"type\":\"string\",\"enum\":[" + oneOf.map(quoted).joined(separator: ",") + "]}")
    }

    public static let boolean = PlanSchema(json: "{\"type\":\"boolean\"}")

    /// A property value: 1 to 4 numbers.
    public static let vector = array(of: .number(), minItems: 1, maxItems: 4)

    public static func array(of element: PlanSchema, minItems: Int? = nil, maxItems: Int? = nil) -> PlanSchema {
        var members = ["\"type\":\"array\"", "\"items\":" + element.json]
        if let minItems { members.append("\"minItems\":\(minItems)") }
        if let maxItems { members.append("\"maxItems\":\(maxItems)") }
        return PlanSchema(json: "{" + members.joined(separator: ",") + "}")
    }

    /// Any one of several shapes (e.g. a timing given as a name, four numbers or an object).
    public static func anyOf(_ alternatives: [PlanSchema]) -> PlanSchema {
        PlanSchema(json: "{\"anyOf\":[" + alternatives.map(\.json).joined(separator: ",") + "]}")
    }

    /// Anything: the key is known, its value is checked by the performer.
    public static let any = PlanSchema(json: "{}")

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func number(_ value: Double) -> String {
        precondition(value.isFinite, "a schema bound must be finite")
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

/// A plan type that describes itself; the kit then hands the host this schema.
public protocol DescribedPlan: Decodable {
    static var schema: PlanSchema { get }
}
