import MotionJSON
import Testing

/// The kit's Codable bridge over the JSON core (no Foundation): plans and states decode with the field's
/// path in errors, and encode as Foundation's JSONEncoder would.
@Suite("JSONValue coders")
struct JSONValueCoderTests {
    struct Plan: Codable, Equatable {
        var property: String
        var to: [Double]
        var from: [Double]?
        var count: Int?
        var nested: Nested?
        struct Nested: Codable, Equatable {
            var flag: Bool
            var items: [Item]
        }
        struct Item: Codable, Equatable {
            var name: String
        }
    }

    @Test func decodesAndEncodesRoundTrip() throws {
        let json = try JSONValue.parse(#"{"property":"x","to":[1,2.5],"count":3,"nested":{"flag":true,"items":[{"name":"a"}]}}"#)
        let plan = try JSONValueDecoder().decode(Plan.self, from: json)
        #expect(plan == Plan(property: "x", to: [1, 2.5], from: nil, count: 3,
                             nested: .init(flag: true, items: [.init(name: "a")])))
        #expect(try JSONValueEncoder().encode(plan) == json)
    }

    @Test func errorsCarryThePathOfTheField() throws {
        func error(_ text: String) throws -> DecodingError? {
            do {
                _ = try JSONValueDecoder().decode(Plan.self, from: try JSONValue.parse(text))
                return nil
            } catch let error as DecodingError {
                return error
            }
        }
        guard case .keyNotFound(let key, _)? = try error(#"{"property":"x"}"#) else { Issue.record("no keyNotFound"); return }
        #expect(key.stringValue == "to")
        guard case .typeMismatch(_, let context)? = try error(#"{"property":"x","to":[1,"2"]}"#) else { Issue.record("no typeMismatch"); return }
        #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["to", "1"])
        guard case .typeMismatch(_, let nested)? = try error(#"{"property":"x","to":[],"nested":{"flag":true,"items":[{"name":1}]}}"#)
        else { Issue.record("no nested typeMismatch"); return }
        #expect(nested.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["nested", "items", "0", "name"])
        guard case .typeMismatch? = try error(#"{"property":"x","to":[],"count":2.5}"#) else { Issue.record("2.5 is not an Int"); return }
    }

    @Test func nonFiniteNumbersAreNotEncoded() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
    }
}
