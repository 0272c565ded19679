import MotionJSON
import DequeModule

/// What a replay of each journaled runtime needs, the compaction's source (docs/operations.md#animations-survive-a-restart), within bounds: a
/// runtime keeps its creation and its records (at most `maximumRecords`), and the runtimes of one uid at
/// most `maximumOwnerBytes` of journal lines together (past it, that uid's oldest records go, one at a
/// time and no more than bring it back under, and `takeDropped` says how many of which runtime). A client that journals 10,000 plans of 60 KB no longer makes a
/// 566 MB journal that every later write waits on, nor a restart that replays it for 23 s.
///
/// Each record is kept with its line, serialized once when it was written: a compaction only
/// concatenates them (off the engine thread).
struct JournalKeeper {
    struct Kept {
        var record: JournalRecord
        var line: [UInt8]
        /// The idempotency keys its line carries (`key`, or a compaction's `keys`): a compaction keeps them.
        var keys: [KeptKey] = []
    }

    /// An idempotency key a kept record carries (docs/protocol.md#idempotency-keys), with the answer a
    /// retry after a restart gets (`replayed`).
    struct KeptKey {
        var uid: UInt32
        var key: String
        /// When it was answered (wall-clock seconds).
        var time: Double
        var answer: JSONValue

        var json: JSONValue { ["key": .string(key), "keyUid": .number(Double(uid)), "t": .number(time), "answer": answer] }

        init(uid: UInt32, key: String, time: Double, answer: JSONValue) {
            (self.uid, self.key, self.time, self.answer) = (uid, key, time, answer)
        }

        init?(json: JSONValue) {
            guard let key = json["key"]?.stringValue, let uid = json["keyUid"]?.doubleValue.flatMap(UInt32.init(exactly:)),
                  let time = json["t"]?.doubleValue, let answer = json["answer"] else { return nil }
            self.init(uid: uid, key: key, time: time, answer: answer)
        }
    }

    var maximumRecords = 1000
    var maximumOwnerBytes = 16 << 20
    /// A deque: the oldest records leave from the front, one at a time, in constant time.
    private(set) var runtimes: [String: Deque<Kept>] = [:]
    private(set) var bytes: [String: Int] = [:]
    private(set) var ownerBytes: [UInt32: Int] = [:]
    /// Records dropped to stay within bounds since the last `takeDropped`, by runtime.
    private var dropped: [String: Int] = [:]

    /// What was dropped since the last call (a restart will not bring it back), by runtime.
    mutating func takeDropped() -> [(runtime: String, count: Int)] {
        guard !dropped.isEmpty else { return [] }
        defer { dropped = [:] }
        return dropped.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Bytes kept for all runtimes.
    var totalBytes: Int { bytes.values.reduce(0, +) }

    /// Keeps `record` (written as `line`); a destroy forgets its runtime.
    mutating func remember(_ record: JournalRecord, line: [UInt8], keys: [KeptKey] = []) {
        let runtime = record.runtime
        if case .destroy = record {
            set(runtime, nil)
            return
        }
        if runtimes[runtime]?.isEmpty ?? true, !record.isCreate {
            // A uid's `default` comes into being at hello, unjournaled: its creation is implied.
            let create = JournalRecord.create(runtime: runtime, shared: false, t: record.time)
            append(Kept(record: create, line: create.line), to: runtime)
        }
        // In place, counted by the line added: a copy of the runtime's records and a sum of their bytes at
        // each write cost in proportion to them (100,000 records within a uid's 16 MiB).
        append(Kept(record: record, line: line, keys: keys), to: runtime)
        if let count = runtimes[runtime]?.count, count > maximumRecords + 1, var kept = runtimes.removeValue(forKey: runtime) {
            dropped[runtime, default: 0] += count - maximumRecords - 1
            kept.removeSubrange(1..<(count - maximumRecords))
            runtimes[runtime] = kept
            set(runtime, kept)
        }
        trim(owner: OwnedName.split(runtime).owner ?? 0)
    }

    /// Replaces what `runtime` keeps (a compaction of a runtime at rest: its creation and its values).
    mutating func replace(_ runtime: String, with kept: [Kept]) { set(runtime, Deque(kept)) }

    /// Every runtime's kept records, by name.
    var all: [(runtime: String, kept: [Kept])] { runtimes.sorted { $0.key < $1.key }.map { ($0.key, Array($0.value)) } }

    private mutating func append(_ kept: Kept, to runtime: String) {
        runtimes[runtime, default: []].append(kept)
        bytes[runtime, default: 0] += kept.line.count
        ownerBytes[OwnedName.split(runtime).owner ?? 0, default: 0] += kept.line.count
    }

    private mutating func set(_ runtime: String, _ kept: Deque<Kept>?) {
        let owner = OwnedName.split(runtime).owner ?? 0
        let before = bytes[runtime] ?? 0
        let after = kept?.reduce(0) { $0 + $1.line.count } ?? 0
        runtimes[runtime] = kept
        bytes[runtime] = kept == nil ? nil : after
        ownerBytes[owner, default: 0] += after - before
        if ownerBytes[owner] == 0 { ownerBytes[owner] = nil }
    }

    /// Drops `owner`'s oldest records (after each runtime's creation; each keeps its newest) one at a
    /// time until its runtimes fit `maximumOwnerBytes`: no more than that (half of a runtime at once lost
    /// ~44,700 acknowledged animations where a few were enough).
    private mutating func trim(owner: UInt32) {
        guard (ownerBytes[owner] ?? 0) > maximumOwnerBytes else { return }
        let mine = runtimes.keys.filter { OwnedName.split($0).owner ?? 0 == owner }
        while (ownerBytes[owner] ?? 0) > maximumOwnerBytes {
            let oldest = mine.filter { (runtimes[$0]?.count ?? 0) > 2 }.min { runtimes[$0]![1].record.time < runtimes[$1]![1].record.time }
            guard let oldest else { return }
            let line = runtimes[oldest]!.remove(at: 1).line
            bytes[oldest, default: 0] -= line.count
            ownerBytes[owner, default: 0] -= line.count
            dropped[oldest, default: 0] += 1
        }
    }
}

extension JournalRecord {
    var isCreate: Bool { if case .create = self { true } else { false } }
}
