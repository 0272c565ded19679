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
}
