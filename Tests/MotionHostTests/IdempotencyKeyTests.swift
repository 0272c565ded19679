@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/protocol.md#idempotency-keys: what a key may be, and how long and how many are remembered.
@Suite("Idempotency keys")
struct IdempotencyKeyTests {
    @Test(arguments: [#""key": """#, #""key": 7"#, "\"key\": \"\(String(repeating: "k", count: 129))\""])
    func aBadKeyIsRefusedWithTheRequestsId(_ member: String) throws {
        let parsed = Request.parse(line: Array(#"{"id": 4, "method": "status", \#(member)}"#.utf8))
        guard case .failure(let failure) = parsed else { Issue.record("accepted: \(member)"); return }
        #expect(failure.id == 4 && failure.code == .invalidRequest && failure.message.hasPrefix("key:"))
    }

    @Test func aKeyIsReadWithTheRequest() throws {
        let request = try Request.parse(line: Array(#"{"id": 1, "method": "status", "key": "k-1"}"#.utf8)).get()
        #expect(request.key == "k-1")
    }

    @Test func aKeyIsRememberedForItsLifetimeAndPerUid() throws {
        let keys = IdempotencyKeys()
        keys.begin(uid: 1000, key: "k", request: 1)
        #expect(keys.isPending(uid: 1000, key: "k") && !keys.isPending(uid: 1001, key: "k"))
        keys.end(uid: 1000, key: "k", result: ["ok": true], now: 100)
        #expect(!keys.isPending(uid: 1000, key: "k"))
        #expect(try keys.result(uid: 1000, key: "k", request: 1, now: 100 + IdempotencyKeys.lifetime) == ["ok": true])
        #expect(try keys.result(uid: 1001, key: "k", request: 1, now: 101) == nil, "another uid's key is its own")
        #expect(try keys.result(uid: 1000, key: "k", request: 1, now: 100 + IdempotencyKeys.lifetime + 1) == nil, "forgotten after its lifetime")
        keys.begin(uid: 1000, key: "failed", request: 1)
        keys.end(uid: 1000, key: "failed", result: nil, now: 100)
        #expect(try keys.result(uid: 1000, key: "failed", request: 1, now: 100) == nil, "a failure is not remembered")
    }

    @Test func aUidKeepsAtMostItsCapTheOldestGoingFirst() throws {
        let keys = IdempotencyKeys()
        for index in 0...IdempotencyKeys.maximumPerUID {
            keys.remember(uid: 7, key: "k\(index)", result: .number(Double(index)), time: Double(index) * 0.001)
        }
        #expect(keys.count(of: 7) == IdempotencyKeys.maximumPerUID)
        #expect(try keys.result(uid: 7, key: "k0", request: 1, now: 5) == nil && keys.result(uid: 7, key: "k1", request: 1, now: 5) == 1)
    }

    /// Every key taken is kept its 10 minutes (docs/protocol.md#idempotency-keys): a uid whose keys of the
    /// last 10 minutes fill its cap is refused the next keyed request before it is applied, and its first
    /// key still answers; once they expire, keys are taken again. (The cap used to forget the oldest key
    /// at once: after 4,096 keyed calls a retry of a `runtime.create` 4 s old was applied again.)
    @Test func aFullUidIsRefusedAKeyRatherThanForgettingAYoungOne() throws {
        let output = RecordingOutput(), clock = ManualClock()
        let context = try TestContext.greeted(on: output, clock: clock)
        func send(_ id: Int, key: String) -> JSONValue? {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": "status", "key": .string(key), "params": [:]]), from: 1)
            return output.lines.last { $0["id"] == .number(Double(id)) }
        }
        for index in 0..<IdempotencyKeys.maximumPerUID {
            #expect(send(index + 1, key: "k\(index)")?["result"] != nil)
            if index % 1024 == 0 { clock.advance(by: 1) }
        }
        let refused = send(10_000, key: "one-more")
        #expect(refused?["error"]?["code"] == "quota.exceeded" && refused?["error"]?["message"]?.stringValue?.hasPrefix("key: uid") == true, "\(refused ?? .null)")
        #expect(send(10_001, key: "k0")?["result"] != nil, "the first key still answers")
        clock.advance(by: IdempotencyKeys.lifetime + 5)
        #expect(send(10_002, key: "one-more")?["result"] != nil, "taken once the old keys expired")
    }

    /// A uid's results are bounded in bytes too (keyed `runtime.state` pages of ~200 KB each held 1.7 GB):
    /// a result past the largest is not remembered, and the oldest go until the new one has room.
    @Test func aUidsResultsAreBoundedInBytes() throws {
        let keys = IdempotencyKeys()
        let huge = JSONValue.string(String(repeating: "x", count: IdempotencyKeys.maximumResultBytes))
        keys.remember(uid: 7, key: "huge", result: ["page": huge], time: 0)
        #expect(try keys.result(uid: 7, key: "huge", request: 1, now: 0) == nil && keys.resultBytes(of: 7) == 0, "a read's large answer is read again")
        let page = JSONValue.string(String(repeating: "p", count: 100_000))
        let fit = IdempotencyKeys.maximumBytesPerUID / Timeline.size(of: ["page": page])
        for index in 0..<(fit + 5) {
            keys.remember(uid: 7, key: "k\(index)", result: ["page": page], time: Double(index))
        }
        #expect(keys.resultBytes(of: 7) <= IdempotencyKeys.maximumBytesPerUID)
        #expect(keys.count(of: 7) == fit, "\(keys.count(of: 7)) of \(fit)")
        #expect(try keys.result(uid: 7, key: "k4", request: 1, now: 100) == nil && keys.result(uid: 7, key: "k5", request: 1, now: 100) != nil, "the oldest went first")
        keys.remember(uid: 8, key: "small", result: ["ok": true], time: 0)
        #expect(try keys.result(uid: 8, key: "small", request: 1, now: 0) == ["ok": true], "another uid's room is its own")
        // Forgotten after their lifetime, their bytes with them.
        #expect(try keys.result(uid: 8, key: "small", request: 1, now: IdempotencyKeys.lifetime + 1) == nil && keys.resultBytes(of: 8) == 0)
    }

    /// A key names one request and its retries: sent again with another method or other params (a
    /// `runtime.destroy` under the key of the `runtime.create` before it), it is refused, not answered
    /// with the first request's result while nothing is done.
    @Test func aKeySentWithAnotherRequestIsRefused() throws {
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output, plugins: ["SetPlugin"])
        func send(_ id: Int, _ method: String, _ params: JSONValue) -> JSONValue? {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "key": "k1", "params": params]), from: 1)
            return output.lines.last { $0["id"] == .number(Double(id)) }
        }
        let created = send(1, "runtime.create", ["name": "idem"])
        #expect(created?["result"]?["runtime"] == "idem", "\(created ?? .null)")
        #expect(send(2, "runtime.create", ["name": "idem"])?["result"] == created?["result"], "a retry is answered with the first result")
        let destroy = send(3, "runtime.destroy", ["name": "idem"])
        #expect(destroy?["error"]?["code"] == "request.invalid", "\(destroy ?? .null)")
        #expect(destroy?["error"]?["message"]?.stringValue?.hasPrefix("key: already used by another request") == true)
        let other = send(4, "runtime.create", ["name": "other"])
        #expect(other?["error"]?["code"] == "request.invalid", "other params: \(other ?? .null)")
        #expect(context.engine.runtimes["0/idem"] != nil && context.engine.runtimes["0/other"] == nil, "nothing done")
    }
}
