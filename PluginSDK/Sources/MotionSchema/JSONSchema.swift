import MotionJSON

/// The plans a factory accepts, from the JSON Schema text it declares (`motion_factory.plan_schema`,
/// ABI 1.2, or the Swift kit's `JSONSchema`). The host checks every plan against it before the plugin
/// sees the plan, so a misspelled key is refused by name instead of silently ignored.
///
/// A subset of JSON Schema: `type` (one name or a list), `properties`, `required`,
/// `additionalProperties` (a boolean), `enum` (scalars), `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`, `items`, `minItems`, `maxItems`, `anyOf`; `title`, `description`, `default` and
/// `examples` are kept for readers and otherwise ignored. One rule differs from JSON Schema: an object
/// with `properties` is closed (unknown keys are refused) unless it says `"additionalProperties": true`.
/// Any other keyword makes the schema invalid, so a plugin author learns of a typo at load time.
public struct JSONSchema: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case object, array, string, number, integer, boolean, null
    }

    /// Nil: any type.
    public var types: Set<Kind>?
    public var properties: [String: JSONSchema] = [:]
    public var required: [String] = []
    public var allowsOtherKeys = true
    public var allowed: [JSONValue]?
    public var minimum: Double?
    public var maximum: Double?
    public var exclusiveMinimum: Double?
    public var exclusiveMaximum: Double?
    public var items: [JSONSchema] = []
    public var minItems: Int?
    public var maxItems: Int?
    public var anyOf: [JSONSchema] = []

    /// The schema as the plugin wrote it, for `plugins.list`.
    public var json: JSONValue = .object([:])

    public struct Invalid: Error, Sendable, Equatable {
        /// Where in the schema, e.g. `properties.to.minItems`.
        public var path: String
        public var reason: String
        public var message: String { "\(path.isEmpty ? "schema" : path): \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    public static let ignoredKeywords: Set<String> = ["title", "description", "default", "examples", "$schema", "$comment"]
    public static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "enum", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "items", "minItems", "maxItems", "anyOf",
    ]

    /// Parses a plan schema; a plan's schema must describe an object.
    public static func plan(parsing text: String) throws(Invalid) -> JSONSchema {
        let json: JSONValue
        do {
            json = try JSONValue.parse(Array(text.utf8))
        } catch {
            throw Invalid(path: "", reason: "not valid JSON")
        }
        let schema = try JSONSchema(json, path: "")
        guard schema.types == [.object] else { throw Invalid(path: "type", reason: "a plan schema must be of type \"object\"") }
        return schema
    }

    public init(_ json: JSONValue, path: String) throws(Invalid) {
        guard case .object(let members) = json else { throw Invalid(path: path, reason: "expected an object") }
        self.json = json
        func at(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
        for key in members.keys where !Self.keywords.contains(key) && !Self.ignoredKeywords.contains(key) {
            throw Invalid(path: at(key), reason: "unsupported keyword" + (KeySuggestion.closest(to: key, in: Self.keywords).map { "; did you mean \($0)?" } ?? ""))
        }
        if let type = members["type"] {
            let names: [JSONValue]
            switch type {
            case .string: names = [type]
            case .array(let list) where !list.isEmpty: names = list
            default: throw Invalid(path: at("type"), reason: "expected a type name or a non-empty list of them")
            }
            var kinds = Set<Kind>()
            for name in names {
                guard let text = name.stringValue, let kind = Kind(rawValue: text) else {
                    throw Invalid(path: at("type"), reason: "expected one of " + Kind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                kinds.insert(kind)
            }
            types = kinds
        }
        if let properties = members["properties"] {
            guard case .object(let entries) = properties else { throw Invalid(path: at("properties"), reason: "expected an object") }
            for (key, value) in entries { self.properties[key] = try JSONSchema(value, path: at("properties." + key)) }
            allowsOtherKeys = false
        }
        if let required = members["required"] {
            guard case .array(let names) = required, names.allSatisfy({ $0.stringValue != nil }) else {
                throw Invalid(path: at("required"), reason: "expected an array of key names")
            }
            self.required = names.compactMap(\.stringValue)
            for name in self.required where !self.properties.isEmpty && self.properties[name] == nil {
                throw Invalid(path: at("required"), reason: "\"\(name)\" is not among the properties")
            }
        }
        if let additional = members["additionalProperties"] {
            guard let allows = additional.boolValue else { throw Invalid(path: at("additionalProperties"), reason: "expected a boolean") }
            allowsOtherKeys = allows
        }
        if let allowed = members["enum"] {
            guard case .array(let values) = allowed, !values.isEmpty, values.allSatisfy(\.isScalar) else {
                throw Invalid(path: at("enum"), reason: "expected a non-empty array of scalars")
            }
            self.allowed = values
        }
        func number(_ key: String) throws(Invalid) -> Double? {
            guard let value = members[key] else { return nil }
            guard let number = value.doubleValue, number.isFinite else { throw Invalid(path: at(key), reason: "expected a number") }
            return number
        }
        func count(_ key: String) throws(Invalid) -> Int? {
            guard let value = members[key] else { return nil }
            guard let number = value.intValue, number >= 0 else { throw Invalid(path: at(key), reason: "expected a non-negative integer") }
            return number
        }
        minimum = try number("minimum")
        maximum = try number("maximum")
        exclusiveMinimum = try number("exclusiveMinimum")
        exclusiveMaximum = try number("exclusiveMaximum")
        minItems = try count("minItems")
        maxItems = try count("maxItems")
        if let items = members["items"] {
            switch items {
            case .object: self.items = [try JSONSchema(items, path: at("items"))]
            default: throw Invalid(path: at("items"), reason: "expected a schema object")
            }
        }
        if let anyOf = members["anyOf"] {
            guard case .array(let schemas) = anyOf, !schemas.isEmpty else {
                throw Invalid(path: at("anyOf"), reason: "expected a non-empty array of schemas")
            }
            for (index, schema) in schemas.enumerated() { self.anyOf.append(try JSONSchema(schema, path: at("anyOf[\(index)]"))) }
        }
    }
}
