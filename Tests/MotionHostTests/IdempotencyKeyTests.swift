@testable import MotionEngine
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

    @Test func aKeyIsRememberedForItsLifetimeAndPerUid() {
        let keys = IdempotencyKeys()
        keys.begin(uid: 1000, key: "k")
        #expect(keys.isPending(uid: 1000, key: "k") && !keys.isPending(uid: 1001, key: "k"))
        keys.end(uid: 1000, key: "k", result: ["ok": true], now: 100)
        #expect(!keys.isPending(uid: 1000, key: "k"))
        #expect(keys.result(uid: 1000, key: "k", now: 100 + IdempotencyKeys.lifetime) == ["ok": true])
        #expect(keys.result(uid: 1001, key: "k", now: 101) == nil, "another uid's key is its own")
        #expect(keys.result(uid: 1000, key: "k", now: 100 + IdempotencyKeys.lifetime + 1) == nil, "forgotten after its lifetime")
        keys.begin(uid: 1000, key: "failed")
        keys.end(uid: 1000, key: "failed", result: nil, now: 100)
        #expect(keys.result(uid: 1000, key: "failed", now: 100) == nil, "a failure is not remembered")
    }

    @Test func aUidKeepsAtMostItsCapTheOldestGoingFirst() {
        let keys = IdempotencyKeys()
        for index in 0...IdempotencyKeys.maximumPerUID {
            keys.remember(uid: 7, key: "k\(index)", result: .number(Double(index)), time: Double(index) * 0.001)
        }
        #expect(keys.count(of: 7) == IdempotencyKeys.maximumPerUID)
        #expect(keys.result(uid: 7, key: "k0", now: 5) == nil && keys.result(uid: 7, key: "k1", now: 5) == 1)
    }

    /// A uid's results are bounded in bytes too (keyed `runtime.state` pages of ~200 KB each held 1.7 GB):
    /// a result past the largest is not remembered, and the oldest go until the new one has room.
    @Test func aUidsResultsAreBoundedInBytes() {
        let keys = IdempotencyKeys()
        let huge = JSONValue.string(String(repeating: "x", count: IdempotencyKeys.maximumResultBytes))
        keys.remember(uid: 7, key: "huge", result: ["page": huge], time: 0)
        #expect(keys.result(uid: 7, key: "huge", now: 0) == nil && keys.resultBytes(of: 7) == 0, "a read's large answer is read again")
        let page = JSONValue.string(String(repeating: "p", count: 100_000))
        let fit = IdempotencyKeys.maximumBytesPerUID / Timeline.size(of: ["page": page])
        for index in 0..<(fit + 5) {
            keys.remember(uid: 7, key: "k\(index)", result: ["page": page], time: Double(index))
        }
        #expect(keys.resultBytes(of: 7) <= IdempotencyKeys.maximumBytesPerUID)
        #expect(keys.count(of: 7) == fit, "\(keys.count(of: 7)) of \(fit)")
        #expect(keys.result(uid: 7, key: "k4", now: 100) == nil && keys.result(uid: 7, key: "k5", now: 100) != nil, "the oldest went first")
        keys.remember(uid: 8, key: "small", result: ["ok": true], time: 0)
        #expect(keys.result(uid: 8, key: "small", now: 0) == ["ok": true], "another uid's room is its own")
        // Forgotten after their lifetime, their bytes with them.
        #expect(keys.result(uid: 8, key: "small", now: IdempotencyKeys.lifetime + 1) == nil && keys.resultBytes(of: 8) == 0)
    }
}
