import MotionWire

/// A journal replay under way (`RuntimeJournal+Restore`): the records read at start and how far the replay
/// is, worked in slices on the engine thread while `hello` and `status` are answered in between
/// (docs/operations.md#animations-survive-a-restart).
package final class JournalReplay {
    /// What a finished replay reports: runtimes kept, records read, problems met.
    package typealias Outcome = (runtimes: Int, records: Int, problems: [String])

    let journal: any JournalStorage
    let records: [JournalRecord]
    /// Each record's line as written (when every line read as a record: the indices then match).
    let lines: [[UInt8]]?
    /// Each record with the idempotency key its line carried (`IdempotencyKeys`).
    let keyed: [Int: IdempotencyKeys.Pair]
    /// Values records a compaction wrote, with the keys of the records they replaced (`resting`).
    let compactedKeys: [Int: [JSONValue]]
    /// Records a later `refused` record writes off.
    let refused: Set<Int>
    /// The wall-clock present the runtimes are brought to, and the monotonic instant matching it: the
    /// replay takes time of its own, which the clock's first tick then makes up.
    let now: Double
    /// `now` is the clock's (not one a test gave): the replay's own time is added at its end.
    let followsClock: Bool
    let monotonicNow: UInt64
    var next = 0
    var clocks = TargetClocks()
    var dropped = 0
    var problems: [String]
    /// Hears how many records are done of how many, every 4,096.
    let progress: ((_ done: Int, _ total: Int) -> Void)?
    /// Hears the outcome once the last record is replayed.
    let finished: ((Outcome) -> Void)?

    init(journal: any JournalStorage, records: [JournalRecord], lines: [[UInt8]]?, keyed: [Int: IdempotencyKeys.Pair],
         compactedKeys: [Int: [JSONValue]] = [:],
         refused: Set<Int>, now: Double, followsClock: Bool, monotonicNow: UInt64, problems: [String],
         progress: ((Int, Int) -> Void)?, finished: ((Outcome) -> Void)?) {
        self.journal = journal
        self.records = records
        self.lines = lines
        self.keyed = keyed
        self.compactedKeys = compactedKeys
        self.refused = refused
        self.now = now
        self.followsClock = followsClock
        self.monotonicNow = monotonicNow
        self.problems = problems
        self.progress = progress
        self.finished = finished
    }

    /// Records done and in all, for `status`.
    package var done: (records: Int, of: Int) { (next, records.count) }
}
