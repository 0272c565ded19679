import MotionWire

/// Idempotency keys (docs/protocol.md#idempotency-keys): a request may carry `"key": "…"`; a retry with
/// the same key from the same uid within `lifetime` is answered with the first result and not applied
/// again. Per uid, at most `maximumPerUID` keys (the oldest forgotten first).
///
/// A journaled change carries its key in its first journal record, written with it, so a restart
/// remembers it too (`RuntimeJournal+Restore`): answered then with the result rebuilt from the replay,
/// marked `"replayed": true`. Only results are remembered: a request that failed was not applied, and
/// its retry is tried again.
///
/// Owned by the `EngineContext`, on the engine thread.
final class IdempotencyKeys {
    struct Remembered {
        var result: JSONValue
        /// Wall-clock seconds when it was answered (or replayed).
        var time: Double
    }

    /// Seconds a key is remembered at least.
    static let lifetime = 600.0
    static let maximumPerUID = 4096
    static let maximumKeyLength = 128

    private var remembered: [UInt32: [String: Remembered]] = [:]
    /// Keys whose request is being applied (waiting for the journal): a retry meanwhile is refused.
    private var pending: Set<Pair> = []
    /// The key of the request being answered now: `orApply` writes it into the journal record.
    var current: (uid: UInt32, key: String)?

    struct Pair: Hashable {
        var uid: UInt32
        var key: String
    }

    /// The first result, if `key` was answered within `lifetime`.
    func result(uid: UInt32, key: String, now: Double) -> JSONValue? {
        guard let entry = remembered[uid]?[key] else { return nil }
        guard now - entry.time <= Self.lifetime else {
            remembered[uid]?[key] = nil
            return nil
        }
        return entry.result
    }

    func isPending(uid: UInt32, key: String) -> Bool { pending.contains(Pair(uid: uid, key: key)) }

    func begin(uid: UInt32, key: String) { pending.insert(Pair(uid: uid, key: key)) }

    /// The request ended: `result` is remembered (nil: it failed, nothing is).
    func end(uid: UInt32, key: String, result: JSONValue?, now: Double) {
        pending.remove(Pair(uid: uid, key: key))
        guard let result else { return }
        remember(uid: uid, key: key, result: result, time: now)
    }

    func remember(uid: UInt32, key: String, result: JSONValue, time: Double) {
        var keys = remembered[uid] ?? [:]
        if keys.count >= Self.maximumPerUID {
            // The expired first; then, if none had, the oldest (a sort only when the cap is met).
            keys = keys.filter { time - $0.value.time <= Self.lifetime }
            if keys.count >= Self.maximumPerUID, let oldest = keys.min(by: { $0.value.time < $1.value.time }) {
                keys[oldest.key] = nil
            }
        }
        keys[key] = Remembered(result: result, time: time)
        remembered[uid] = keys
    }

    /// Keys remembered for `uid` (metrics, tests).
    func count(of uid: UInt32) -> Int { remembered[uid]?.count ?? 0 }

    /// A key as a request may carry it: 1 to `maximumKeyLength` bytes of text.
    static func check(_ value: JSONValue?) -> Result<String?, RequestFailure> {
        switch value {
        case nil, .null?: return .success(nil)
        case .string(let key)? where !key.isEmpty && key.utf8.count <= maximumKeyLength: return .success(key)
        default:
            return .failure(RequestFailure(id: .null, code: .invalidRequest,
                                           message: "key: expected a string of 1 to \(maximumKeyLength) bytes (an idempotency key)"))
        }
    }
}
