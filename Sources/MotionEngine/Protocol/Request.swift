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
