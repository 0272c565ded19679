import MotionWire

/// `@name` references in a plan, replaced by their tokens (docs/themes.md#tokens-in-plans) before
/// the plan's schema is checked and its plugin sees it:
///
/// - `"spring": "@spatial.fast"`: the spring's keys go into the plan (the plan's own keys win); for a plan
///   type whose schema has a `spring` key of its own (a `Tossable`), they become that object.
/// - `"timing": "@emphasized"` (also inside a list of timings), `"duration": "@medium2"`: the value.
/// - `"motion": "@notification.enter"`: the token's keys under the plan's own (a `type` among them).
///
/// Composites (`steps`, `plans`) and nested objects are resolved alike. An unknown token is
/// `plan.invalid` naming it and the closest known one.
struct TokenResolution {
    /// The token `name` of `kind` for the plan's owner, or nil.
    let lookup: (Theme.Kind, String) -> JSONValue?
    /// Every known name of a kind (for "did you mean").
    let known: (Theme.Kind) -> [String]
    /// Whether a plan type takes `key` as a key of its own (its schema names it).
    let takesKey: (String, String) -> Bool
    /// The tokens the plan used, `kind.name` (a retune finds the animations it changes by them).
    private(set) var used: Set<String> = []
    /// References resolved so far: a plan names at most `maximumReferences` (and once resolved it is
    /// held to a plan's size, `Themes.resolve`).
    private var references = 0
    static let maximumReferences = 1024

    init(lookup: @escaping (Theme.Kind, String) -> JSONValue?, known: @escaping (Theme.Kind) -> [String],
         takesKey: @escaping (String, String) -> Bool) {
        (self.lookup, self.known, self.takesKey) = (lookup, known, takesKey)
    }

    mutating func resolve(_ plan: JSONValue, path: String = "") throws(EngineError) -> JSONValue {
        switch plan {
        case .object(var members):
            if case .string(let reference)? = members["motion"], reference.hasPrefix("@") {
                guard case .object(let motion) = try token(.motions, reference, path: path + "motion") else {
                    throw EngineError(.invalidPlan, "\(path)motion: \(reference) is not a partial plan")
                }
                members["motion"] = nil
                for (key, value) in motion where members[key] == nil { members[key] = value }
            }
            let type = members["type"]?.stringValue
            if case .string(let reference)? = members["spring"], reference.hasPrefix("@") {
                let spring = try token(.springs, reference, path: path + "spring")
                if let type, takesKey(type, "spring") {
                    members["spring"] = spring
                } else if case .object(let keys) = spring {
                    members["spring"] = nil
                    for (key, value) in keys where members[key] == nil { members[key] = value }
                }
            }
            if case .string(let reference)? = members["duration"], reference.hasPrefix("@") {
                members["duration"] = try token(.durations, reference, path: path + "duration")
            }
            switch members["timing"] {
            case .string(let reference)? where reference.hasPrefix("@"):
                members["timing"] = try token(.timings, reference, path: path + "timing")
            case .array(let timings)? where timings.contains(where: { $0.stringValue?.hasPrefix("@") == true }):
                var resolved: [JSONValue] = []
                for (index, timing) in timings.enumerated() {
                    if case .string(let reference) = timing, reference.hasPrefix("@") {
                        resolved.append(try token(.timings, reference, path: path + "timing[\(index)]"))
                    } else {
                        resolved.append(timing)
                    }
                }
                members["timing"] = .array(resolved)
            default: break
            }
            for (key, value) in members {
                switch value {
                case .object, .array: members[key] = try resolve(value, path: path + key + ".")
                default: continue
                }
            }
            return .object(members)
        case .array(let elements):
            var resolved: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                resolved.append(try resolve(element, path: String(path.dropLast()) + "[\(index)]."))
            }
            return .array(resolved)
        default:
            return plan
        }
    }

    private mutating func token(_ kind: Theme.Kind, _ reference: String, path: String) throws(EngineError) -> JSONValue {
        references += 1
        guard references <= Self.maximumReferences else {
            throw EngineError(.limitExceeded, "plan: more than \(Self.maximumReferences) token references")
        }
        let name = String(reference.dropFirst())
        guard let value = lookup(kind, name) else {
            let hint = KeySuggestionName.closest(to: name, in: known(kind)).map { "; the closest is @\($0)" } ?? "; the theme has none"
            throw EngineError(.invalidPlan, "\(path): \(reference) is not a known \(String(kind.rawValue.dropLast())) token\(hint)")
        }
        used.insert("\(kind.rawValue).\(name)")
        return value
    }
}
