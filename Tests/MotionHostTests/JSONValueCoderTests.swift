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

    struct Integers: Codable, Equatable {
        var a: Int8, b: Int16, c: Int32, d: Int64, e: UInt8, f: UInt16, g: UInt32, h: UInt64, i: Int, j: UInt
        var bytes: [UInt8]
    }

    @Test func everyIntegerTypeRoundTrips() throws {
        let value = Integers(a: -8, b: -16, c: -32, d: -64, e: 8, f: 16, g: 32, h: 64, i: -1, j: 1, bytes: [0, 255])
        let json = try JSONValueEncoder().encode(value)
        #expect(json["a"] == -8 && json["bytes"] == [0, 255])
        #expect(try JSONValueDecoder().decode(Integers.self, from: json) == value)
        #expect(throws: DecodingError.self, "300 is not a UInt8") {
            try JSONValueDecoder().decode([UInt8].self, from: [300])
        }
    }

    class Base: Codable {
        var base: Int
        init(base: Int) { self.base = base }
    }

    final class Derived: Base {
        var extra: String
        init(base: Int, extra: String) {
            self.extra = extra
            super.init(base: base)
        }
        enum Keys: String, CodingKey { case extra }
        required init(from decoder: any Decoder) throws {
            extra = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .extra)
            try super.init(from: try decoder.container(keyedBy: Keys.self).superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(extra, forKey: .extra)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func aSubclassRoundTripsThroughSuper() throws {
        let json = try JSONValueEncoder().encode(Derived(base: 7, extra: "x"))
        #expect(json == ["extra": "x", "super": ["base": 7]], "as Foundation writes it")
        let back = try JSONValueDecoder().decode(Derived.self, from: json)
        #expect(back.base == 7 && back.extra == "x")
    }

    @Test func nonFiniteNumbersAreNotEncoded() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
    }
}
