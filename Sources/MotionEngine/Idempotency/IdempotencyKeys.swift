import MotionJSON
import MotionWire

/// Idempotency keys (docs/protocol.md#idempotency-keys): a request may carry `"key": "…"`; a retry with
/// the same key from the same uid within `lifetime` is answered with the first result and not applied
/// again. Per uid, at most `maximumPerUID` keys and `maximumBytesPerUID` of results: a keyed request past
/// them is refused before it is applied (`admits`), so every key taken is kept its 10 minutes; a result
/// past `maximumResultBytes` is not remembered (only a read answers that much, and a retry of a read reads
/// again): 4,200 keyed pages of `runtime.state` held 1.7 GB of one uid for ten minutes.
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
        /// The result's size as JSON text (`Timeline.size`).
        var bytes: Int
        /// Which request it answered (`fingerprint`): a key sent again with another request is refused,
        /// not answered with this one's result. Nil for a key remembered from the journal at a start.
        var request: Int?
    }

    /// Seconds a key is remembered at least.
    static let lifetime = 600.0
    static let maximumPerUID = 4096
    static let maximumKeyLength = 128
    /// The largest result remembered (a staggered `plan.add` of 256 targets with 256-byte names answers
    /// ~70 KB), and all of one uid's results together, as JSON text.
    static let maximumResultBytes = 128 << 10
    static let maximumBytesPerUID = 2 << 20

    private var remembered: [UInt32: [String: Remembered]] = [:]
    private var bytes: [UInt32: Int] = [:]
    /// Keys whose request is being applied (waiting for the journal): a retry meanwhile is refused.
    private var pending: [Pair: Int] = [:]
    private var pendingPerUID: [UInt32: Int] = [:]
    /// The key of the request being answered now: `orApply` writes it into the journal record.
    var current: (uid: UInt32, key: String)?

    struct Pair: Hashable {
        var uid: UInt32
        var key: String
    }

    /// Method and params as one number (`JSONWriter` sorts keys: equal params, equal bytes).
    static func fingerprint(of request: Request) -> Int {
        var hasher = Hasher()
        hasher.combine(request.method)
        hasher.combine(JSONWriter.bytes(.object(request.params.members)))
        return hasher.finalize()
    }

    /// The first result, if `key` was answered within `lifetime`; `request.invalid` if it answered
    /// another request (another method, or other params).
    func result(uid: UInt32, key: String, request: Int, now: Double) throws(EngineError) -> JSONValue? {
        guard let entry = remembered[uid]?[key] else { return nil }
        guard now - entry.time <= Self.lifetime else {
            forget(uid: uid, key: key)
            return nil
        }
        if let first = entry.request, first != request {
            throw EngineError(.invalidRequest, "key: already used by another request (another method or other params) in the last \(Int(Self.lifetime / 60)) minutes; a key names one request and its retries")
        }
        return entry.result
    }

    private func forget(uid: UInt32, key: String) {
        guard let entry = remembered[uid]?.removeValue(forKey: key) else { return }
        bytes[uid, default: 0] -= entry.bytes
        if remembered[uid]?.isEmpty == true { (remembered[uid], bytes[uid]) = (nil, nil) }
    }

    func isPending(uid: UInt32, key: String) -> Bool { pending[Pair(uid: uid, key: key)] != nil }

    /// Whether `uid` may start one more keyed request: a key taken is remembered for all of `lifetime`, so
    /// a uid whose keys of the last 10 minutes (with those being applied) fill `maximumPerUID`, or whose
    /// results leave less than `maximumResultBytes` of `maximumBytesPerUID`, is refused before anything is
    /// applied — not answered and then made to forget a young key (a retry of it would apply it again).
    func admits(uid: UInt32, now: Double) -> Bool {
        let waiting = pendingPerUID[uid] ?? 0
        if (remembered[uid]?.count ?? 0) + waiting < Self.maximumPerUID, (bytes[uid] ?? 0) + Self.maximumResultBytes <= Self.maximumBytesPerUID {
            return true
        }
        // The expired go first (a walk only when a cap is near).
        for (key, entry) in remembered[uid] ?? [:] where now - entry.time > Self.lifetime { forget(uid: uid, key: key) }
        return (remembered[uid]?.count ?? 0) + waiting < Self.maximumPerUID && (bytes[uid] ?? 0) + Self.maximumResultBytes <= Self.maximumBytesPerUID
    }

    func begin(uid: UInt32, key: String, request: Int) {
        if pending.updateValue(request, forKey: Pair(uid: uid, key: key)) == nil { pendingPerUID[uid, default: 0] += 1 }
    }

    /// The request ended: `result` is remembered (nil: it failed, nothing is).
    func end(uid: UInt32, key: String, result: JSONValue?, now: Double) {
        let request = pending.removeValue(forKey: Pair(uid: uid, key: key))
        if request != nil {
            pendingPerUID[uid, default: 1] -= 1
            if pendingPerUID[uid] == 0 { pendingPerUID[uid] = nil }
        }
        guard let result else { return }
        remember(uid: uid, key: key, result: result, time: now, request: request)
    }

    func remember(uid: UInt32, key: String, result: JSONValue, time: Double, request: Int? = nil) {
        forget(uid: uid, key: key)
        let size = Timeline.size(of: result)
        guard size <= Self.maximumResultBytes else { return }
        var keys = remembered[uid] ?? [:]
        var total = bytes[uid] ?? 0
        if keys.count >= Self.maximumPerUID || total + size > Self.maximumBytesPerUID {
            // The expired first; then the oldest until there is room (a sort only when a cap is met).
            keys = keys.filter { time - $0.value.time <= Self.lifetime }
            total = keys.values.reduce(0) { $0 + $1.bytes }
            var oldestFirst = keys.sorted { $0.value.time < $1.value.time }[...]
            while keys.count >= Self.maximumPerUID || total + size > Self.maximumBytesPerUID, let oldest = oldestFirst.popFirst() {
                keys[oldest.key] = nil
                total -= oldest.value.bytes
            }
        }
        keys[key] = Remembered(result: result, time: time, bytes: size, request: request)
        remembered[uid] = keys
        bytes[uid] = total + size
    }

    /// Keys remembered for `uid` (metrics, tests), and the size of their results.
    func count(of uid: UInt32) -> Int { remembered[uid]?.count ?? 0 }
    func resultBytes(of uid: UInt32) -> Int { bytes[uid] ?? 0 }

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
