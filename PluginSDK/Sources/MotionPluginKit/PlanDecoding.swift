import MotionJSON

/// Turns a plan's JSON into its Swift shape, with errors that name the offending field.
enum PlanDecoding {
    static func decode<Plan: Decodable>(_ type: Plan.Type, from bytes: UnsafeRawBufferPointer) throws -> Plan {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw PlanError("plan: not valid JSON")
        }
        return try decode(type, from: json)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from json: JSONValue) throws -> Value {
        do {
            return try JSONValueDecoder().decode(Value.self, from: json)
        } catch let error as DecodingError {
            throw PlanError(describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            var text = ""
            for key in codingPath + (last.map { [$0] } ?? []) {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "plan" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath, key)): missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(describe(type)), found null"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "plan: \(error)"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type, is Int.Type: return "a number"
        case is Bool.Type: return "a boolean"
        case is [Double].Type: return "an array of numbers"
        case is [JSONValue].Type: return "an array"
        case is [String: JSONValue].Type: return "an object"
        default: return "\(type)"
        }
    }
}
