import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// SPEC §5's documented limits, refused with codes that name them, in an in-process engine context.
@Suite("Request limits")
struct RequestLimitsTests {
    let context: EngineContext
    let output = RecordingOutput()

    init() throws {
        context = try .greeted(on: output)
    }

    func error(_ line: String) -> JSONValue? {
        context.receive(line: Array(line.utf8), from: 1)
        return output.lines.last?["error"]
    }

    @Test func namesAreAtMost256BytesWithoutNUL() {
        let long = String(repeating: "t", count: 257)
        #expect(error(#"{"id":1,"method":"plan.add","params":{"target":"\#(long)","plan":{"type":"ChangeBoolean"}}}"#)?["code"] == "request.limit")
        #expect(error(#"{"id":2,"method":"plan.add","params":{"target":"a\u0000b","plan":{"type":"ChangeBoolean"}}}"#)?["message"]
            == "target: must not contain NUL")
        #expect(error(#"{"id":3,"method":"runtime.state","params":{"runtime":"\#(long)"}}"#)?["code"] == "request.limit")
    }

    @Test func aPlanIsAtMost64KiB() {
        let padding = String(repeating: "x", count: 70_000)
        let refusal = error(#"{"id":1,"method":"plan.add","params":{"target":"t","plan":{"type":"ChangeBoolean","note":"\#(padding)"}}}"#)
        #expect(refusal?["code"] == "request.limit")
        #expect(refusal?["message"]?.stringValue?.contains("a plan is at most 65536 bytes") == true, "\(String(describing: refusal))")
    }

    @Test func aSubscriptionFiltersOnAtMost4096Targets() {
        let names = (0..<4097).map { "\"t\($0)\"" }.joined(separator: ",")
        let refusal = error(#"{"id":1,"method":"subscribe","params":{"streams":["frames"],"targets":[\#(names)]}}"#)
        #expect(refusal?["code"] == "request.limit", "\(String(describing: refusal))")
        let fine = (0..<4096).map { "\"t\($0)\"" }.joined(separator: ",")
        #expect(error(#"{"id":2,"method":"subscribe","params":{"streams":["frames"],"targets":[\#(fine)]}}"#) == nil)
    }

    @Test func aDuplicateKeyIsAParseError() {
        #expect(error(#"{"id":1,"method":"status","method":"plan.add"}"#)?["code"] == "protocol.parse")
    }

    @Test func helloAdvertisesTheLimits() {
        context.receive(line: Array(#"{"id":9,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        let limits = output.lines.last?["result"]?["limits"]
        #expect(limits?["maxPlanBytes"] == 65536)
        #expect(limits?["maxNameBytes"] == 256)
    }

    @Test func clientStringsCannotForgeLogLines() {
        #expect(StderrLogHandler.escaped("card\n<0>root owned") == "card\\n<0>root owned")
        #expect(StderrLogHandler.escaped("a\u{1b}[31mred") == "a\\u{1b}[31mred")
        #expect(StderrLogHandler.escaped("plain ünïcode") == "plain ünïcode")
    }
}
