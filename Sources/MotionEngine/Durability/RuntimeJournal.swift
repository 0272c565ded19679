import Logging
import MotionWire

/// The runtime journal (docs/operations.md#animations-survive-a-restart): where lasting runtimes'
/// changes are written before they are applied, the groups being written and applied, what each runtime
/// keeps for a compaction, and the replay at start (`RuntimeJournal+Writes`, `RuntimeJournal+Restore`).
///
/// Owned by the `EngineContext`, on the engine thread; it reaches the engine, the sessions and the host's
/// threads through its coordinator.
package final class RuntimeJournal: ContextPart {
    unowned let context: EngineContext
    /// Where changes are journaled (nil without `--state-dir`: nothing is).
    package internal(set) var storage: (any JournalStorage)?
    /// The group waiting to be written, and the one being written (then applied).
    var group: [JournalEntry] = []
    var writing: [JournalEntry] = []
    /// `writing` is being applied (a slice at a time) once this is set.
    var applying: JournalApplication?
    /// Write-off lines whose write failed (a full disk): written with the next group, or at a graceful stop.
    var unwrittenWriteOffs: [UInt8] = []
    /// Each journaled runtime's records (the compaction's source).
    var kept = JournalKeeper()
    /// What the last compaction wrote: the next one waits until the journal is twice that.
    var compactedBytes = 0
    /// Runtimes whose `runtime.create` waits for the journal, and whether they will be journaled: later
    /// requests of the same connection may name them already.
    var pendingCreates: [String: Bool] = [:]
    /// Monotonic time the replay brought the animations to; the clock's first tick counts from it.
    package var resumesAt: UInt64?
    /// Steps the last replay took (one per stretch of a target between its changes, and one to now):
    /// proportional to the records, whatever the downtime.
    package internal(set) var replaySteps = 0
    /// Per runtime, when (monotonic seconds) the last "journal past the uid's journalBytes quota" line was
    /// logged and how many records went since (`remember`).
    var dropWarnings: [String: (said: Double, count: Int)] = [:]
    /// The replay under way at start (`beginRestore`), if any.
    var restoring: JournalReplay?

    init(context: EngineContext) {
        self.context = context
    }

    /// Journals to `storage` from now on, without a replay (tests, tools).
    package func use(_ storage: any JournalStorage) { self.storage = storage }

    static var sliceNanos: UInt64 { EngineContext.sliceNanos }
    static var reservedRuntimePrefix: String { EngineContext.reservedRuntimePrefix }
}
