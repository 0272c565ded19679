import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/protocol.md's documented limits, refused with codes that name them, in an in-process engine context.
@Suite("Request limits")
struct RequestLimitsTests {
    let context: EngineContext
    let output = RecordingOutput()

    init() throws {
        context = try TestContext.greeted(on: output)
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

    @Test func runtimeStatePagesThroughTargetsInTheOrderTheyCame() throws {
        for index in 0..<2_500 {
            context.receive(line: Array(#"{"id":1,"method":"plan.add","params":{"target":"t\#(index)","plan":{"type":"ChangeBoolean","value":true}}}"#.utf8), from: 1)
        }
        // By count alone first (however slow this build is).
        context.engine.spread.statePageNanos = .max
        var names: [String] = [], after: String?, pages = 0
        repeat {
            let params: JSONValue = after.map { ["after": .string($0)] } ?? [:]
            context.receive(line: JSONWriter.bytes(["id": 2, "method": "runtime.state", "params": params]), from: 1)
            let page = try #require(output.lines.last?["result"])
            let targets = try #require(page["targets"]?.objectValue)
            #expect(targets.count <= 1000)
            names += targets.keys.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
            after = page["next"]?.stringValue
            #expect(page["targetCount"] == 2_500)
            pages += 1
        } while after != nil && pages < 10
        #expect(pages == 3)
        #expect(names == (0..<2_500).map { "t\($0)" }, "every target once, in creation order")
        // A page also ends on the engine's time (with no time at all, after every 16 targets).
        context.engine.spread.statePageNanos = 0
        names = []
        after = nil
        pages = 0
        repeat {
            let params: JSONValue = after.map { ["after": .string($0)] } ?? [:]
            context.receive(line: JSONWriter.bytes(["id": 2, "method": "runtime.state", "params": params]), from: 1)
            let page = try #require(output.lines.last?["result"])
            #expect(page["targets"]?.objectValue?.count == 16 || page["next"] == nil, "\(page["targets"]?.objectValue?.count ?? -1)")
            names += try #require(page["targets"]?.objectValue).keys.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
            after = page["next"]?.stringValue
            pages += 1
        } while after != nil && pages < 1000
        #expect(pages == 157 && names == (0..<2_500).map { "t\($0)" }, "\(pages) pages")
        #expect(error(#"{"id":3,"method":"runtime.state","params":{"limit":1001}}"#)?["code"] == "request.limit")
        #expect(error(#"{"id":4,"method":"runtime.state","params":{"after":"nobody"}}"#)?["code"] == "request.invalid")
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
        // Issue #45: next line (U+0085), line and paragraph separators, bidirectional overrides and isolates.
        #expect(StderrLogHandler.escaped("a\u{85}b\u{2028}c\u{2029}d") == "a\\u{85}b\\u{2028}c\\u{2029}d")
        #expect(StderrLogHandler.escaped("\u{202E}txt.exe\u{2066}x\u{2069}") == "\\u{202e}txt.exe\\u{2066}x\\u{2069}")
        #expect(StderrLogHandler.escaped("\u{202A}\u{202D}\u{9F}") == "\\u{202a}\\u{202d}\\u{9f}")
    }

    @Test func aClientNameIsANameAtMost256Bytes() {
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1,"client":""#.utf8) + Array(repeating: UInt8(ascii: "n"), count: 257)
                        + Array(#""}}"#.utf8), from: 1)
        #expect(output.lines.last?["error"]?["code"] == "request.limit", "\(output.lines.last ?? .null)")
        context.receive(line: Array(#"{"id":2,"method":"hello","params":{"protocol":1,"client":"bar"}}"#.utf8), from: 1)
        #expect(output.lines.last?["result"]?["protocol"] == 1)
    }
}
