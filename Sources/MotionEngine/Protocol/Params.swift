import MotionWire

/// A request's `params`, read with errors that name the offending field (`request.invalid`).
package struct Params: Sendable, Equatable {
    package let members: [String: JSONValue]

    package init(_ members: [String: JSONValue]) {
        self.members = members
    }

    package subscript(key: String) -> JSONValue? { members[key] }

    package func string(_ key: String) throws(EngineError) -> String {
        guard let value = try optionalString(key) else { throw invalid(key, "missing") }
        return value
    }

    /// Names (targets, properties, plans, runtimes) are at most this many bytes of UTF-8, with no NUL.
    package static let maximumNameLength = 256

    /// A required name: not empty, at most `maximumLength` bytes, no NUL (plugins see names as C strings).
    package func name(_ key: String, maximumLength: Int = maximumNameLength) throws(EngineError) -> String {
        let value = try string(key)
        try Self.check(name: value, key, maximumLength: maximumLength)
        return value
    }

    /// An optional name, checked as `name` is.
    package func optionalName(_ key: String, maximumLength: Int = maximumNameLength) throws(EngineError) -> String? {
        guard let value = try optionalString(key) else { return nil }
        try Self.check(name: value, key, maximumLength: maximumLength)
        return value
    }

    static func check(name value: String, _ key: String, maximumLength: Int) throws(EngineError) {
        guard !value.isEmpty else { throw EngineError(.invalidRequest, "\(key): must not be empty") }
        guard value.utf8.count <= maximumLength else {
            throw EngineError(.limitExceeded, "\(key): \(value.utf8.count) bytes; names are at most \(maximumLength) bytes")
        }
        guard !value.utf8.contains(0) else { throw EngineError(.invalidRequest, "\(key): must not contain NUL") }
    }

    package func optionalString(_ key: String) throws(EngineError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw invalid(key, "expected a string")
        }
    }

    package func optionalBool(_ key: String) throws(EngineError) -> Bool? {
        switch members[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw invalid(key, "expected true or false")
        }
    }

    package func optionalNumber(_ key: String) throws(EngineError) -> Double? {
        switch members[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw invalid(key, "expected a number")
        }
    }

    package func object(_ key: String) throws(EngineError) -> JSONValue {
        switch members[key] {
        case nil, .null?: throw invalid(key, "missing")
        case .object?: return members[key]!
        default: throw invalid(key, "expected an object")
        }
    }

    package func optionalStrings(_ key: String) throws(EngineError) -> [String]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var strings: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let text) = element else { throw invalid("\(key)[\(index)]", "expected a string") }
                strings.append(text)
            }
            return strings
        default: throw invalid(key, "expected an array of strings")
        }
    }

    private func invalid(_ key: String, _ problem: String) -> EngineError {
        EngineError(.invalidRequest, "\(key): \(problem)")
    }
}
