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

    /// Checks `value`. Most values match, and that is said with nothing built on the way (`accepts`); only
    /// one that does not is checked again, its members in key order, so that the error named is always the
    /// same one (an `anyOf` alternative that did not fit built its message, path and description each
    /// time: 41 % of a journal replay's time, BENCHMARKS.md).
    public func validate(_ value: JSONValue, path: String, isPlan: Bool = false) throws(Violation) {
        if accepts(value, isPlan: isPlan) { return }
        if let violation = violation(of: value, path: path, isPlan: isPlan) { throw violation }
    }

    /// The first problem with `value` (members in key order), or nil when it matches.
    public func violation(of value: JSONValue, path: String = "", isPlan: Bool = false) -> Violation? {
        do throws(Violation) {
            try check(value, path: { path }, isPlan: isPlan)
            return nil
        } catch {
            return error
        }
    }

    /// Whether `value` matches (as `violation(of:)` decides it), with no path, message or error made.
    public func accepts(_ value: JSONValue, isPlan: Bool) -> Bool {
        if let types, !types.contains(where: { Self.matches(value, $0) }) { return false }
        if let allowed, !allowed.contains(value) { return false }
        switch value {
        case .number(let number):
            if let minimum, number < minimum { return false }
            if let maximum, number > maximum { return false }
            if let exclusiveMinimum, number <= exclusiveMinimum { return false }
            if let exclusiveMaximum, number >= exclusiveMaximum { return false }
            if isIntegerOnly, number.rounded() != number { return false }
        case .array(let elements):
            if let minItems, elements.count < minItems { return false }
            if let maxItems, elements.count > maxItems { return false }
            if let item = items.first {
                for element in elements where !item.accepts(element, isPlan: false) { return false }
            }
        case .object(let members):
            for (key, member) in members {
                if let schema = properties[key] {
                    if !schema.accepts(member, isPlan: false) { return false }
                } else if !allowsOtherKeys, !(isPlan && key == "type") {
                    return false
                }
            }
            for key in required where members[key] == nil { return false }
        default: break
        }
        return anyOf.isEmpty || anyOf.contains { $0.accepts(value, isPlan: isPlan) }
    }

    /// `types == [.integer]`, without making a set to compare with.
    private var isIntegerOnly: Bool { types.map { $0.count == 1 && $0.contains(.integer) } ?? false }

    // `path` is made only when something is wrong (a closure that is not kept allocates nothing): made
    // eagerly, it was a string built for every member and every array element of every plan checked.
    private func check(_ value: JSONValue, path: () -> String, isPlan: Bool) throws(Violation) {
        if let types, !types.contains(where: { Self.matches(value, $0) }) {
            throw Violation(path: path(), reason: "expected \(describe()), found \(Self.describe(value))")
        }
        if let allowed, !allowed.contains(value) {
            let list = allowed.map { JSONWriter.string($0) }.joined(separator: ", ")
            throw Violation(path: path(), reason: "expected one of \(list), found \(JSONWriter.string(value))")
        }
        switch value {
        case .number(let number): try check(number, path: path)
        case .array(let elements): try check(elements, path: path)
        case .object(let members): try check(members, path: path, isPlan: isPlan)
        default: break
        }
        if !anyOf.isEmpty {
            var fitting: [Violation] = []
            for schema in anyOf {
                do throws(Violation) {
                    try schema.check(value, path: path, isPlan: isPlan)
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
        if isIntegerOnly, number.rounded() != number {
            throw Violation(path: path(), reason: "expected an integer, found \(Self.format(number))")
        }
    }

    private func check(_ elements: [JSONValue], path: () -> String) throws(Violation) {
        if let minItems, elements.count < minItems { throw Violation(path: path(), reason: "expected \(describe()), found \(elements.count) element\(elements.count == 1 ? "" : "s")") }
        if let maxItems, elements.count > maxItems { throw Violation(path: path(), reason: "expected \(describe()), found \(elements.count) elements") }
        guard let item = items.first else { return }
        for (index, element) in elements.enumerated() { try item.check(element, path: { "\(path())[\(index)]" }, isPlan: false) }
    }

    private func check(_ members: [String: JSONValue], path: () -> String, isPlan: Bool) throws(Violation) {
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
            try schema.check(value, path: { at(key) }, isPlan: false)
        }
        let keys = members.keys.sorted()
        for key in keys { try known(key) }
        for key in required where members[key] == nil { throw Violation(path: at(key), reason: "missing (required)") }
        for key in keys { try value(key) }
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
