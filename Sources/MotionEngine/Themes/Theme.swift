import MotionSchema
import MotionWire

/// A set of named motion tokens (docs/themes.md): springs, timings, durations and motions,
/// each named by lowercase dotted words (`spatial.default`, `notification.enter`). Plans refer to them
/// with `@name`; `Themes` resolves them before a plugin sees the plan.
package struct Theme: Sendable, Equatable {
    package enum Kind: String, CaseIterable, Sendable {
        case springs, timings, durations, motions

        /// The plan key that refers to a token of this kind (`"spring": "@spatial.fast"`).
        var key: String {
            switch self {
            case .springs: "spring"
            case .timings: "timing"
            case .durations: "duration"
            case .motions: "motion"
            }
        }
    }

    package var name: String
    /// Kind → token name → value: a spring's keys (an object), a timing (a string, 4 numbers or a
    /// `{function, args}` object), a duration (seconds), a motion (a partial plan, an object).
    package private(set) var tokens: [Kind: [String: JSONValue]] = [:]

    /// Keys a spring token may hold: every spring form's (docs/vocabulary.md#springs) and its rest rule.
    static let springKeys: Set<String> = ["tension", "damping", "stiffness", "mass", "dampingRatio", "response", "duration",
                                          "bounce", "epsilon", "threshold", "overshootClamping"]
    /// What one theme may hold (a uid's overlay is held to its quota, `Themes.overlayTokens`).
    static let maximumTokens = 1024

    package init(name: String, tokens: [Kind: [String: JSONValue]] = [:]) {
        self.name = name
        self.tokens = tokens
    }

    package subscript(kind: Kind, name: String) -> JSONValue? { tokens[kind]?[name] }

    package var count: Int { tokens.values.reduce(0) { $0 + $1.count } }

    /// Every token's name, per kind.
    package func names(_ kind: Kind) -> [String] { (tokens[kind] ?? [:]).keys.sorted() }

    /// A theme file's JSON (`{"name", "springs", "timings", "durations", "motions"}`), checked whole: the
    /// first problem is thrown as `theme.invalid`, naming the token.
    package init(json: JSONValue) throws(EngineError) {
        guard case .object(let members) = json else { throw Self.invalid("theme: expected an object") }
        for key in members.keys where key != "name" && Kind(rawValue: key) == nil {
            throw Self.invalid("theme.\(key): unknown key; a theme has name, springs, timings, durations and motions")
        }
        guard case .string(let name)? = members["name"], Self.isName(name) else {
            throw Self.invalid("theme.name: expected lowercase dotted words (`my-desktop`)")
        }
        self.name = name
        for kind in Kind.allCases {
            guard let group = members[kind.rawValue] else { continue }
            guard case .object(let entries) = group else { throw Self.invalid("theme.\(kind.rawValue): expected an object of tokens") }
            for (token, value) in entries {
                guard Self.isName(token) else {
                    throw Self.invalid("theme.\(kind.rawValue).\(token): a token name is lowercase dotted words (`spatial.fast`)")
                }
                try Self.check(value, kind: kind, path: "theme.\(kind.rawValue).\(token)")
                tokens[kind, default: [:]][token] = value
            }
        }
        guard count <= Self.maximumTokens else { throw Self.invalid("theme: \(count) tokens; a theme holds at most \(Self.maximumTokens)") }
    }

    package var json: JSONValue {
        var members: [String: JSONValue] = ["name": .string(name)]
        for (kind, entries) in tokens where !entries.isEmpty { members[kind.rawValue] = .object(entries) }
        return .object(members)
    }

    /// `spatial.fast`, `notification.enter`, `medium2`: lowercase letters, digits and `-`, in words
    /// joined by dots, at most 64 characters.
    static func isName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): break
            case UInt8(ascii: "."), UInt8(ascii: "-"): guard previous != UInt8(ascii: "."), previous != UInt8(ascii: "-") else { return false }
            default: return false
            }
            previous = byte
        }
        return previous != UInt8(ascii: ".") && previous != UInt8(ascii: "-")
    }

    /// The shape of one token (its numbers are checked where it is used: a plan with it must match the
    /// plan type's schema).
    static func check(_ value: JSONValue, kind: Kind, path: String) throws(EngineError) {
        switch kind {
        case .springs:
            guard case .object(let keys) = value, !keys.isEmpty else { throw invalid("\(path): expected an object of spring keys") }
            for (key, number) in keys {
                guard springKeys.contains(key) else {
                    let hint = KeySuggestionName.closest(to: key, in: springKeys).map { "; did you mean \($0)?" } ?? ""
                    throw invalid("\(path).\(key): not a spring key\(hint)")
                }
                switch number {
                case .number(let x) where x.isFinite: break
                case .bool where key == "overshootClamping": break
                default: throw invalid("\(path).\(key): expected a number")
                }
            }
        case .timings:
            switch value {
            case .string(let text) where !text.isEmpty && !text.hasPrefix("@"): break
            case .array(let numbers) where numbers.count == 4 && numbers.allSatisfy({ $0.doubleValue?.isFinite == true }): break
            case .object(let members) where members["function"]?.stringValue != nil: break
            default: throw invalid("\(path): expected a timing (a name or CSS text, 4 numbers, or {function, args})")
            }
        case .durations:
            guard let seconds = value.doubleValue, seconds.isFinite, (0...3600).contains(seconds) else {
                throw invalid("\(path): expected seconds from 0 to 3600")
            }
        case .motions:
            guard case .object(let keys) = value, !keys.isEmpty else { throw invalid("\(path): expected a partial plan (an object)") }
            if let type = keys["type"], type.stringValue == nil { throw invalid("\(path).type: expected a plan type") }
            // Anywhere in it (a composite's steps too): a motion naming a motion could name itself.
            if let nested = firstMotionKey(value, path: path) { throw invalid("\(nested): a motion does not refer to another motion") }
        }
        // A token is small (a plan naming it many times must stay within a plan's size once resolved).
        guard Timeline.size(of: value) <= maximumTokenBytes else {
            throw invalid("\(path): about \(Timeline.size(of: value)) bytes; a token is at most \(maximumTokenBytes)")
        }
    }

    /// A token is at most this many bytes of JSON.
    static let maximumTokenBytes = 16 << 10

    /// The path of a `motion` key anywhere in `value`, if there is one.
    static func firstMotionKey(_ value: JSONValue, path: String) -> String? {
        switch value {
        case .object(let members):
            if members["motion"] != nil { return path + ".motion" }
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if let found = firstMotionKey(member, path: path + "." + key) { return found }
            }
            return nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstMotionKey(element, path: path + "[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    static func invalid(_ message: String) -> EngineError { EngineError(.themeInvalid, message) }
}

/// The closest of `candidates` to a name, for "did you mean": the nearest by edit distance always
/// (a token typed wrong is named with the closest known one, docs/themes.md).
enum KeySuggestionName {
    static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        let typed = Array(name.utf8)
        var best: (name: String, distance: Int)?
        for candidate in candidates.sorted() {
            let distance = KeySuggestion.editDistance(typed, Array(candidate.utf8))
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }
}
