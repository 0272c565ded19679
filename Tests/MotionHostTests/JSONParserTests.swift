import Foundation
import MotionWire
import Testing

/// The request parser: RFC 8259, strictly, into `JSONValue`.
@Suite("JSON parser")
struct JSONParserTests {
    @Test func validTextsParseToTheirValues() throws {
        #expect(try JSONValue.parse(#" {"a":1,"b":[true,false,null],"c":"x\u00e9\ud83d\ude00\n\"\/"} "#)
            == ["a": 1, "b": [true, false, nil], "c": "xé😀\n\"/"])
        #expect(try JSONValue.parse("\t[0, -0, 1.5e3, -2.5E+2, 1e-300, 0.1]\r\n")
            == [0, 0, 1500, -250, .number(1e-300), 0.1])
        #expect(try JSONValue.parse("123456789012345678") == .number(1.2345678901234568e17), "the nearest Double")
        #expect(try JSONValue.parse("-9007199254740993") == .number(-9007199254740992), "rounded as Double does")
        #expect(throws: JSONParseError.self, "a repeated key is refused") { try JSONValue.parse(#"{"k":1,"k":2}"#) }
        #expect(throws: JSONParseError.self, "at any depth") { try JSONValue.parse(#"{"a":{"k":1,"k":2}}"#) }
        #expect(try JSONValue.parse(#"{"k":1,"a":{"k":2}}"#) == ["k": 1, "a": ["k": 2]], "the same key in two objects is fine")
        #expect(try JSONValue.parse(#""ünïcödé""#) == "ünïcödé")
        #expect(try JSONValue.parse("{}") == .object([:]) && JSONValue.parse("[ ]") == .array([]))
        let deep = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(throws: Never.self) { try JSONValue.parse(deep) }
    }

    /// As `JSONDecoder` (the parser this one replaced) and `Double(_:)` read them: correctly rounded.
    @Test func everyNumberReadsAsJSONDecoderReadsIt() throws {
        for text in ["0.30000000000000004", "2.2250738585072014e-308", "1.7976931348623157e308", "4.9e-324", "12345.678901234567",
                     "999999999999999", "1000000000000000", "-0.000001", "3.141592653589793238462643383279"] {
            let expected = try JSONDecoder().decode(Double.self, from: Data(text.utf8))
            #expect(try JSONValue.parse(text) == .number(expected), "\(text)")
        }
    }

    @Test(arguments: [
        #"{"a":1,}"#, "[1,]", "01", "-01", "1.", ".5", "-", "1e", "1e+", "+1", #""\x""#, #""\ud800""#, #""\udc00x""#,
        #""abc"#, "tru", "nul", #"{"a" 1}"#, "[1 2]", "1 2", "\"a\tb\"", "1e400", "-1e309", "", " ", "{", "[", #"{"a":}"#,
        #"{1:2}"#, "'a'", "NaN", "Infinity", #""\u12""#, #"["a" , ]"#,
    ])
    func invalidTextsAreRefused(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    /// ASCII strings skip validation; the rest are validated, with or without escapes.
    @Test func stringsAreReadWhateverTheirBytes() throws {
        #expect(try JSONValue.parse(#"["plain", "caf\u00e9", "café", "a🎬b", "\u007f~", "tab\there", ""]"#)
            == ["plain", "café", "café", "a🎬b", "\u{7F}~", "tab\there", ""])
        #expect(try JSONValue.parse([0x5B, 0x22, 0x7F, 0x61, 0x22, 0x5D]) == ["\u{7F}a"], "a raw DEL byte")
        for bad: [UInt8] in [[0xFF], [0x61, 0xC3], [0xED, 0xA0, 0x80], [0x5C, 0x6E, 0xFE], [0xFE, 0x5C, 0x6E]] {
            let line = Array(#"[""#.utf8) + bad + Array(#""]"#.utf8)
            #expect(throws: JSONParseError.self) { try JSONValue.parse(line) }
        }
    }

    @Test func invalidUTF8DeepNestingAndHugeNumbersAreRefusedAsSuch() {
        func kind(_ bytes: [UInt8]) -> JSONParseError.Kind? {
            do {
                _ = try JSONValue.parse(bytes)
                return nil
            } catch {
                return error.kind
            }
        }
        #expect(kind([0x22, 0xFF, 0x22]) == .encoding)
        #expect(kind([0x22, 0xC3, 0x22]) == .encoding)
        #expect(kind(Array(#""\udc00""#.utf8)) == .encoding)
        let deeper = String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        #expect(kind(Array(deeper.utf8)) == .depth)
        #expect(kind(Array("[1e400]".utf8)) == .range)
        #expect(kind(Array("[1,]".utf8)) == .syntax)
    }

    @Test func errorsSayWhereAndWhat() {
        do {
            _ = try JSONValue.parse(#"{"a":[1,2 3]}"#)
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 10 && error.description == "expected ',' or ']' at byte 10")
        }
        do {
            _ = try JSONValue.parse(#"{"k":1,"a":{"b":2},"k":3}"#)
            Issue.record("parsed")
        } catch {
            #expect(error.description == #"duplicate key "k" at byte 23"#, "where the repeated key's value starts")
        }
    }

    /// An object's members wait on one stack while inner objects are read: each object gets its own.
    @Test func nestedObjectsKeepTheirOwnMembers() throws {
        let keys = (0..<100).map { "k\($0)" }
        let wide = "{" + keys.map { #""\#($0)":{"in":[{"\#($0)":1},{}]}"# }.joined(separator: ",") + "}"
        guard case .object(let members) = try JSONValue.parse(wide) else {
            Issue.record("not an object")
            return
        }
        #expect(members.count == 100)
        for key in keys { #expect(members[key] == ["in": [[key: 1], .object([:])]]) }
        #expect(try JSONValue.parse(#"[{"a":1},{"a":2,"b":{"c":[{"d":1}],"e":null}},{}]"#)
            == [["a": 1], ["a": 2, "b": ["c": [["d": 1]], "e": nil]], .object([:])])
    }
}
