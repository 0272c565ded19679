import MotionJSON

extension JSONSchema {
    /// A plan this schema accepts: the required keys only (`full: false`) or every declared key. Vectors
    /// all get `components` numbers, so keys that must agree in length (`from` and `to`) do. Used by
    /// `motiond --validate` to drive a plugin with plans it claims to accept.
    public func example(planType: String, full: Bool, components: Int = 2) -> JSONValue {
        guard case .object(var members) = example(full: full, components: components, depth: 0) else {
            return ["type": .string(planType)]
        }
        members["type"] = .string(planType)
        return .object(members)
    }

    /// A plan the schema refuses: the minimal example with a key no schema declares.
    public func unknownKeyExample(planType: String) -> JSONValue {
        guard case .object(var members) = example(planType: planType, full: false) else { return [:] }
        members["motiondValidateUnknownKey"] = 1
        return .object(members)
    }

    private func example(full: Bool, components: Int, depth: Int) -> JSONValue {
        if let allowed { return allowed[0] }
        if let alternative = anyOf.first { return alternative.example(full: full, components: components, depth: depth + 1) }
        let kind = types.flatMap { types in Kind.allCases.first(where: types.contains) } ?? (properties.isEmpty ? .number : .object)
        switch kind {
        case .object:
            var members: [String: JSONValue] = [:]
            for (key, schema) in properties where (full || required.contains(key)) && depth < 8 {
                members[key] = schema.example(full: full, components: components, depth: depth + 1)
            }
            // A required key the schema does not describe: any value will do.
            for key in required where members[key] == nil { members[key] = .string("validate") }
            return .object(members)
        case .array:
            let low = minItems ?? 0, high = maxItems ?? max(low, components)
            let count = min(max(components, low), high)
            let element = items.first?.example(full: full, components: components, depth: depth + 1) ?? .number(1)
            return .array(Array(repeating: element, count: count))
        case .string: return .string("validate")
        case .boolean: return .bool(true)
        case .null: return .null
        case .number, .integer: return .number(exampleNumber(integral: kind == .integer))
        }
    }

    /// A modest number inside the range: 1 when allowed, else the nearest allowed value to it.
    private func exampleNumber(integral: Bool) -> Double {
        var low = -Double.infinity, high = Double.infinity
        if let minimum { low = max(low, minimum) }
        if let maximum { high = min(high, maximum) }
        let step = integral ? 1.0 : 1e-6
        if let exclusiveMinimum { low = max(low, exclusiveMinimum + max(step, abs(exclusiveMinimum) * 1e-9)) }
        if let exclusiveMaximum { high = min(high, exclusiveMaximum - max(step, abs(exclusiveMaximum) * 1e-9)) }
        var value = Swift.min(Swift.max(1, low), high)
        if integral { value = value.rounded(.up) }
        return value
    }
}

extension JSONSchema {
    /// Plans this schema refuses, each the minimal example with one thing wrong: a required key left out,
    /// a key of the wrong type, a number out of its range, a value not in its `enum`. Used by `motiond
    /// --validate` to show that the host refuses them before the plugin sees one.
    public func invalidExamples(planType: String) -> [(reason: String, plan: JSONValue)] {
        guard case .object(let minimal) = example(planType: planType, full: false) else { return [] }
        func with(_ key: String, _ value: JSONValue?) -> JSONValue {
            var members = minimal
            members[key] = value
            return .object(members)
        }
        var cases: [(reason: String, plan: JSONValue)] = []
        for key in required where key != "type" {
            cases.append(("without its required \(key)", with(key, nil)))
        }
        for key in properties.keys.sorted() where key != "type" {
            guard let schema = properties[key], schema.anyOf.isEmpty else { continue }
            let candidates: [JSONValue] = [.string("validate"), .number(1), .bool(true)]
            if let types = schema.types, let wrong = candidates.first(where: { value in !types.contains { Self.matches(value, $0) } }) {
                cases.append(("with \(key) of the wrong type", with(key, wrong)))
            }
            if let allowed = schema.allowed {
                let outside: [JSONValue] = [.string("motiondValidateNotAllowed"), .number(-987654.5), .number(987654)]
                if let value = outside.first(where: { value in
                    !allowed.contains(value) && (schema.types.map { types in types.contains { Self.matches(value, $0) } } ?? true)
                }) {
                    cases.append(("with \(key) not one of its values", with(key, value)))
                }
            }
            guard schema.allowed == nil, let types = schema.types, types.isSubset(of: [.number, .integer]) else { continue }
            let integral = !types.contains(.number)
            let below = schema.minimum.map { $0 - 1 } ?? schema.exclusiveMinimum
            let above = schema.maximum.map { $0 + 1 } ?? schema.exclusiveMaximum
            for value in [below, above].compactMap({ $0 }) {
                cases.append(("with \(key) out of its range", with(key, .number(integral ? value.rounded(value == below ? .down : .up) : value))))
            }
        }
        return cases
    }
}
