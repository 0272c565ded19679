@testable import MotionEngine
import MotionWire
import Testing

@Suite("Wire codec")
struct WireTests {
    private func failure(_ line: String) -> RequestFailure? {
        if case .failure(let failure) = Request.parse(line: Array(line.utf8)) { return failure }
        return nil
    }

    @Test func parsesARequest() throws {
        let request = try Request.parse(line: Array(#"{"id":7,"method":"plan.add","params":{"target":"a"}}"#.utf8)).get()
        #expect(request.id == 7)
        #expect(request.method == "plan.add")
        #expect(try request.params.string("target") == "a")
    }

    @Test func malformedLinesGetStableCodes() {
        #expect(failure("{nope")?.code == .parse)
        #expect(failure("[1,2]")?.code == .parse)
        #expect(failure(String(repeating: "[", count: 600) + String(repeating: "]", count: 600))?.code == .parse)
        #expect(failure(#"{"id":1}"#) == RequestFailure(id: 1, code: .invalidRequest, message: "method: expected a string"))
        #expect(failure(#"{"id":{"a":1},"method":"x"}"#)?.code == .invalidRequest)
        #expect(failure(#"{"id":"q","method":"x","params":[1]}"#) == RequestFailure(id: "q", code: .invalidRequest, message: "params: expected an object"))
        var invalidUTF8 = Array(#"{"id":1,"method":""#.utf8)
        invalidUTF8 += [0xFF, 0xFE]
        invalidUTF8 += Array(#""}"#.utf8)
        if case .failure(let error) = Request.parse(line: invalidUTF8) { #expect(error.code == .parse) } else { Issue.record("accepted invalid UTF-8") }
        // A member a request does not have is named (a misspelt key would be ignored: its retry applied twice).
        #expect(failure(#"{"id":2,"method":"plan.add","params":{},"Key":"once"}"#)
            == RequestFailure(id: 2, code: .invalidRequest, message: "Key: not a member of a request (id, method, params, key); did you mean key?"))
        // An id the answer could not echo exactly.
        #expect(failure(#"{"id":9007199254740993,"method":"status"}"#)?.code == .invalidRequest)
        #expect(failure(#"{"id":-9007199254740991,"method":"status"}"#) == nil, "±(2^53 − 1) is exact")
    }

    @Test func paramsNameTheOffendingField() throws {
        let params = Params(["target": 3, "targets": ["a", 1]])
        #expect(throws: EngineError(.invalidRequest, "target: expected a string")) { try params.string("target") }
        #expect(throws: EngineError(.invalidRequest, "name: missing")) { try params.string("name") }
        #expect(throws: EngineError(.invalidRequest, "targets[1]: expected a string")) { try params.optionalStrings("targets") }
    }

    @Test func writerIsCompactSortedAndEchoesIntegers() throws {
        let value: JSONValue = ["b": [1, 2.5, -3], "a": "x\"y\n\u{1}", "c": nil, "d": true]
        #expect(JSONWriter.string(value) == #"{"a":"x\"y\n\u0001","b":[1,2.5,-3],"c":null,"d":true}"#)
        #expect(JSONWriter.string(.number(.nan)) == "null")
        #expect(try JSONValue.parse(JSONWriter.string(value)) == value)
    }

    @Test func frameLinesHaveTheSpecShape() throws {
        let store = PropertyStore()
        let handle = store.intern(.init(runtime: "default", target: "card1", property: "position"))
        let value: [Double] = [12.5, 300.25], velocity: [Double] = [0.1, -2]
        store.write(handle, value: value, velocity: velocity, count: 2)
        let encoder = FrameEncoder(capacity: 16)
        encoder.begin(subscription: 1, seq: 42, time: 12.345, dropped: 0)
        value.withUnsafeBufferPointer { values in
            velocity.withUnsafeBufferPointer { velocities in
                Array(store.prefix(handle)).withUnsafeBufferPointer { prefix in
                    encoder.appendUpdate(isFirst: true, prefix: prefix, values: values, velocities: velocities)
                }
            }
        }
        encoder.end()
        #expect(encoder.bytes.last == UInt8(ascii: "\n"))
        let expected = try JSONValue.parse(#"{"event":"frame","sub":1,"seq":42,"t":12.345,"dropped":0,"updates":[{"runtime":"default","target":"card1","property":"position","value":[12.5,300.25],"velocity":[0.1,-2.0]}]}"#)
        #expect(try JSONValue.parse(encoder.bytes.dropLast()) == expected)
    }

    @Test func frameNumbersAreFixedPointWithNineDecimals() throws {
        func text(_ number: Double) -> String {
            var bytes: [UInt8] = []
            FrameEncoder.appendFixed(number, into: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(text(0) == "0")
        #expect(text(-0.0) == "0")
        #expect(text(1000) == "1000")
        #expect(text(-2) == "-2")
        #expect(text(12.5) == "12.5")
        #expect(text(-300.25) == "-300.25")
        #expect(text(0.1) == "0.1")
        #expect(text(0.000000001) == "0.000000001")
        #expect(text(0.0000000004) == "0", "below half a nano-unit rounds to zero")
        #expect(text(1.0000000006) == "1.000000001")
        #expect(text(-0.123456789123) == "-0.123456789")
        #expect(text(999_999_997.5) == "999999997.5")
        #expect(text(999_999_998.9999999999) == "999999999")
        #expect(text(999_999_999.5) == "999999999.5", "from here on the exact shortest form")
        #expect(text(2.5e9) == "2500000000")
        #expect(text(1.5e20) == "1.5e+20")
        #expect(text(123_456_789_012.375) == "123456789012.375", "beyond 1e9 the exact shortest form")
        #expect(text(.nan) == "null")
        #expect(text(-.infinity) == "null")
        for number in [0.1, 1e-3, 3.14159265358979, -42.42, 1e8 + 0.25, 7e-9] {
            let parsed = try #require(Double(text(number)))
            #expect(abs(parsed - number) <= 5e-10 + number.ulp, "\(number) → \(text(number))")
        }
    }
}
