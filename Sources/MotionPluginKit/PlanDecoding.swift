import Foundation

/// Turns a plan's JSON into its Swift shape, with errors that name the offending field.
enum PlanDecoding {
    static func decode<Plan: Decodable>(_ type: Plan.Type, from bytes: UnsafeRawBufferPointer) throws -> Plan {
        do {
            return try JSONDecoder().decode(Plan.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw PlanError(describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = (codingPath + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "plan" : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
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
        default: return "\(type)"
        }
    }
}
