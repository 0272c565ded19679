import MotionJSON

extension JSONSchema {
    /// Why a plan does not match its schema: the field (a path such as `spring.tension` or `to[1]`) and a
    /// sentence a person can act on.
    public struct Violation: Error, Sendable, Equatable {
        public var path: String
        public var reason: String
        public var message: String { "\(path.isEmpty ? "plan" : path): \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Checks a whole plan. Its `type` key names the plan type and is always allowed at the top.
    public func validate(plan: JSONValue) throws(Violation) {
        try validate(plan, path: "", isPlan: true)
    }

    /// Checks `value`. Object members are checked in whatever order the dictionary keeps (no sorting on
    /// the plan.add path); when something is wrong the check runs again in key order, so the error named
    /// is always the same one.
    public func validate(_ value: JSONValue, path: String, isPlan: Bool = false) throws(Violation) {
        do throws(Violation) {
            try check(value, path: { path }, isPlan: isPlan, ordered: false)
        } catch {
            try check(value, path: { path }, isPlan: isPlan, ordered: true)
            throw error
        }
    }

    // `path` is made only when something is wrong (a closure that is not kept allocates nothing): made
    // eagerly, it was a string built for every member and every array element of every plan checked.
    private func check(_ value: JSONValue, path: () -> String, isPlan: Bool, ordered: Bool) throws(Violation) {
        if let types, !types.contains(where: { Self.matches(value, $0) }) {
            throw Violation(path: path(), reason: "expected \(describe()), found \(Self.describe(value))")
        }
        if let allowed, !allowed.contains(value) {
            let list = allowed.map { JSONWriter.string($0) }.joined(separator: ", ")
            throw Violation(path: path(), reason: "expected one of \(list), found \(JSONWriter.string(value))")
        }
        switch value {
        case .number(let number): try check(number, path: path)
        case .array(let elements): try check(elements, path: path, ordered: ordered)
        case .object(let members): try check(members, path: path, isPlan: isPlan, ordered: ordered)
        default: break
        }
        if !anyOf.isEmpty {
            var fitting: [Violation] = []
            for schema in anyOf {
                do throws(Violation) {
                    try schema.check(value, path: path, isPlan: isPlan, ordered: ordered)
                    return
                } catch {
                    // An alternative of the value's own type explains the problem best.
                    if schema.types.map({ types in types.contains { Self.matches(value, $0) } }) ?? true { fitting.append(error) }
                }
            }
            if fitting.count == 1 { throw fitting[0] }
            let alternatives = anyOf.map { $0.describe() }.joined(separator: " or ")
            throw Violation(path: path(), reason: "expected \(alternatives), found \(Self.describe(value))")
        }
    }

    private func check(_ number: Double, path: () -> String) throws(Violation) {
        if let minimum, number < minimum { throw Violation(path: path(), reason: "\(Self.format(number)) is below the minimum \(Self.format(minimum))") }
        if let maximum, number > maximum { throw Violation(path: path(), reason: "\(Self.format(number)) is above the maximum \(Self.format(maximum))") }
        if let exclusiveMinimum, number <= exclusiveMinimum {
            throw Violation(path: path(), reason: "expected a number greater than \(Self.format(exclusiveMinimum)), found \(Self.format(number))")
        }
        if let exclusiveMaximum, number >= exclusiveMaximum {
            throw Violation(path: path(), reason: "expected a number less than \(Self.format(exclusiveMaximum)), found \(Self.format(number))")
        }
        if types == [.integer], number.rounded() != number {
            throw Violation(path: path(), reason: "expected an integer, found \(Self.format(number))")
        }
    }

    private func check(_ elements: [JSONValue], path: () -> String, ordered: Bool) throws(Violation) {
        if let minItems, elements.count < minItems { throw Violation(path: path(), reason: "expected \(describe()), found \(elements.count) element\(elements.count == 1 ? "" : "s")") }
        if let maxItems, elements.count > maxItems { throw Violation(path: path(), reason: "expected \(describe()), found \(elements.count) elements") }
        guard let item = items.first else { return }
        for (index, element) in elements.enumerated() { try item.check(element, path: { "\(path())[\(index)]" }, isPlan: false, ordered: ordered) }
    }

    private func check(_ members: [String: JSONValue], path: () -> String, isPlan: Bool, ordered: Bool) throws(Violation) {
        func at(_ key: String) -> String {
            let path = path()
            return path.isEmpty ? key : path + "." + key
        }
        func known(_ key: String) throws(Violation) {
            guard !allowsOtherKeys, properties[key] == nil, !(isPlan && key == "type") else { return }
            let known = properties.keys
            let hint = KeySuggestion.closest(to: key, in: known).map { "; did you mean \($0)?" }
                ?? "; known keys: " + known.sorted().joined(separator: ", ")
            throw Violation(path: at(key), reason: "unknown key" + hint)
        }
        func value(_ key: String) throws(Violation) {
            guard let schema = properties[key], let value = members[key] else { return }
            try schema.check(value, path: { at(key) }, isPlan: false, ordered: ordered)
        }
        if ordered {
            let keys = members.keys.sorted()
            for key in keys { try known(key) }
            for key in required where members[key] == nil { throw Violation(path: at(key), reason: "missing (required)") }
            for key in keys { try value(key) }
        } else {
            for key in members.keys { try known(key) }
            for key in required where members[key] == nil { throw Violation(path: at(key), reason: "missing (required)") }
            for key in members.keys { try value(key) }
        }
    }

    /// What the schema accepts, in words: "a number", "an array of 1 to 4 numbers", "a string or an object".
    public func describe() -> String {
        if !anyOf.isEmpty && types == nil { return anyOf.map { $0.describe() }.joined(separator: " or ") }
        guard let types else { return "any value" }
        return Kind.allCases.filter(types.contains).map { kind in
            switch kind {
            case .array:
                let element = items.first.map { item in
                    item.types == [.number] ? "numbers" : item.types == [.string] ? "strings" : "elements"
                } ?? "elements"
                switch (minItems, maxItems) {
                case let (low?, high?) where low == high: return "an array of \(low) \(element)"
                case let (low?, high?): return "an array of \(low) to \(high) \(element)"
                case let (low?, nil): return "an array of at least \(low) \(element)"
                case let (nil, high?): return "an array of at most \(high) \(element)"
                case (nil, nil): return "an array of \(element)"
                }
            case .object: return "an object"
            case .integer: return "an integer"
            case .boolean: return "a boolean"
            case .null: return "null"
            case .string: return "a string"
            case .number: return "a number"
            }
        }.joined(separator: " or ")
    }

    static func matches(_ value: JSONValue, _ kind: Kind) -> Bool {
        switch (value, kind) {
        case (.object, .object), (.array, .array), (.string, .string), (.bool, .boolean), (.null, .null): return true
        case (.number, .number): return true
        case (.number(let number), .integer): return number.rounded() == number && abs(number) < 9.0e15
        default: return false
        }
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return format(number)
        case .string: return "a string"
        case .array(let elements): return "an array of \(elements.count)"
        case .object: return "an object"
        }
    }

    static func format(_ number: Double) -> String { JSONWriter.string(.number(number)) }
}
