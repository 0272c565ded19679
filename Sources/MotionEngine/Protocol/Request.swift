import MotionSchema
import MotionWire

/// One request line, parsed: `{"id": <scalar>, "method": "...", "params": {...}}`.
package struct Request: Sendable, Equatable {
    package var id: JSONValue
    package var method: String
    package var params: Params
    /// The length of the line it came from: a plan in a line no longer than a limit fits that limit, so
    /// most plans are never measured.
    package var lineLength = Int.max
    /// Its idempotency key, if it carries one (docs/protocol.md#idempotency-keys).
    package var key: String? = nil

    /// What a request line may hold.
    static let members: Set<String> = ["id", "method", "params", "key"]

    /// Parses one line (without its newline). Failures carry the request id when it could be read, so
    /// the error reply still reaches the right caller.
    package static func parse<Bytes: Collection<UInt8>>(line: Bytes) -> Result<Request, RequestFailure> {
        // The parser names invalid UTF-8, deep nesting and out-of-range numbers itself, with their offset.
        let json: JSONValue
        do {
            json = try JSONValue.parse(line)
        } catch {
            return .failure(RequestFailure(id: .null, code: .parse, message: "line is not valid JSON: \(describe(error))"))
        }
        guard case .object(let members) = json else {
            return .failure(RequestFailure(id: .null, code: .parse, message: "a request must be a JSON object"))
        }
        let id = members["id"] ?? .null
        guard id.isScalar else {
            return .failure(RequestFailure(id: .null, code: .invalidRequest, message: "id: must be a string, number, boolean or null"))
        }
        // A number is read as a double: from 2^53 on, the id echoed may not be the one sent (JavaScript's safe integers).
        if case .number(let number) = id, abs(number) >= 9_007_199_254_740_992 {
            return .failure(RequestFailure(id: .null, code: .invalidRequest,
                                           message: "id: a number beyond ±(2^53 − 1) may not be echoed exactly (a string can)"))
        }
        // A misspelt member (`"Key"`) would otherwise be ignored: a retry meant to be recognised applied twice.
        if let unknown = members.keys.sorted().first(where: { !Self.members.contains($0) }) {
            let hint = KeySuggestion.closest(to: unknown, in: Self.members).map { "; did you mean \($0)?" } ?? ""
            return .failure(RequestFailure(id: id, code: .invalidRequest,
                                           message: "\(unknown.prefix(64)): not a member of a request (id, method, params, key)\(hint)"))
        }
        let key: String?
        switch IdempotencyKeys.check(members["key"]) {
        case .success(let checked): key = checked
        case .failure(var failure):
            failure.id = id
            return .failure(failure)
        }
        guard case .string(let method)? = members["method"] else {
            return .failure(RequestFailure(id: id, code: .invalidRequest, message: "method: expected a string"))
        }
        let params: [String: JSONValue]
        switch members["params"] {
        case nil, .null?: params = [:]
        case .object(let object)?: params = object
        default:
            return .failure(RequestFailure(id: id, code: .invalidRequest, message: "params: expected an object"))
        }
        return .success(Request(id: id, method: method, params: Params(params), lineLength: line.count, key: key))
    }
}

/// The parser's own words when it gives any (Foundation on Linux mostly does not).
private func describe(_ error: JSONParseError) -> String {
    switch error.kind {
    case .syntax: "syntax error: \(error) (expected one JSON object per line)"
    case .encoding, .depth, .range: "\(error)"
    }
}

/// A request that could not be parsed, answered with this error.
package struct RequestFailure: Error, Sendable, Equatable {
    package var id: JSONValue
    package var code: ErrorCode
    package var message: String
}
