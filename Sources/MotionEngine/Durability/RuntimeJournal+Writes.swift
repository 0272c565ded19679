import MotionWire

/// Animations survive a restart (docs/operations.md#animations-survive-a-restart): changes to non-ephemeral runtimes (`runtime.create`,
/// `plan.add`, `plan.remove`, `runtime.destroy`) are journaled durably **before** they are applied (a
/// failed write changes nothing: `state.write_failed`), and replayed at start to the present.
///
/// Writes are grouped: while one is being synced on the save queue, the requests that arrive wait in the
/// next group, so a burst costs a few syncs, not one each. A connection with a change in flight has its
/// other requests wait until that change is applied, so its replies keep their order.
extension RuntimeJournal {
    struct JournalEntry {
        /// Empty when the change is not journaled (it only keeps its place in line).
        var records: [JournalRecord]
        /// Their lines, serialized once (written, then kept for compactions).
        var lines: [[UInt8]] = []
        /// The runtime this entry creates, listed in `pendingCreates` until it is applied.
        var creates: String? = nil
        var sessionID: UInt64
        var id: JSONValue
        var apply: (EngineContext) throws(EngineError) -> JSONValue
        /// How many of `records` took effect when `apply` threw (a staggered plan.add refused at one
        /// target keeps those before it); nil: none did.
        var applied: AppliedCount? = nil
        /// Its lines write off records written earlier (kept for the next write if this one fails).
        var isWriteOff = false
        /// Where its reply goes in its connection's line of replies (a write-off's: the refusal's place).
        var slot: Session.ReplySlot? = nil
        /// The idempotency key of the request (its first record carries it in the journal).
        var key: IdempotencyKeys.Pair? = nil
        /// A change applied in slices (`StaggerWork`): `apply` is its answer once its work is done; the
        /// entries after it wait meanwhile.
        var sliced: StaggerWork? = nil
    }

    /// Counts the records of a journaled change that took effect (`JournalEntry.applied`).
    final class AppliedCount {
        var value = 0
    }

    /// Methods that may join a journal group; a connection waiting on the journal defers the others.
    static let journalMethods: Set<String> = ["plan.add", "plan.remove", "runtime.create", "runtime.destroy"]
    /// Past this size, and past twice what the last compaction wrote, the journal is rewritten from what
    /// the live runtimes need (so a large live state is not rewritten at every write).
    static let journalCompactionBytes = 4 << 20
    /// Records a runtime that is still moving keeps for its replay (one at rest is kept as its values):
    /// every one (a runtime of 25,000 moving springs came back as 2,663 when it kept 1,000), within its
    /// uid's `journalBytes` quota, which is the bound.
    static let maximumJournalRecords = Int.max - 1

    /// Whether changes to `key` are journaled: a client's own, lasting runtime.
    func isJournaled(_ key: String) -> Bool {
        guard storage != nil, let scope = engine.runtimes[key] else { return false }
        return scope.owner != nil && scope.ephemeralOwner == nil && !scope.isDryRun
            && !OwnedName.split(key).name.hasPrefix(Self.reservedRuntimePrefix)
    }

    /// Applies a change now, or (journaled, or behind another of this connection's changes) queues it for
    /// the journal and returns nil: the reply comes once it is written and applied.
    func orApply(_ session: Session, id: JSONValue, journaled: Bool, creates: String? = nil, record: () -> [JournalRecord],
                        applied: AppliedCount? = nil,
                        apply: @escaping (EngineContext) throws(EngineError) -> JSONValue) throws(EngineError) -> JSONValue? {
        guard takesPart(session, journaled: journaled) else { return try apply(context) }
        enqueue(session, id: id, journaled: journaled, creates: creates, records: record, applied: applied, apply: apply)
        return nil
    }

    /// `orApply` for a change applied in slices (`StaggerWork`), which takes part (`takesPart`).
    func orApply(_ session: Session, id: JSONValue, journaled: Bool, record: () -> [JournalRecord],
                 sliced work: StaggerWork) throws(EngineError) -> JSONValue? {
        enqueue(session, id: id, journaled: journaled, records: record, applied: work.applied, sliced: work) { context throws(EngineError) in
            guard case .result(let result) = try work.finish(in: context) else { return .null }
            return result
        }
        return nil
    }

    /// Whether a change goes through the journal's line (journaled, or behind its connection's changes
    /// that are), rather than being applied at once.
    func takesPart(_ session: Session, journaled: Bool) -> Bool {
        storage != nil && (journaled || session.journalPending > 0)
    }

    private func enqueue(_ session: Session, id: JSONValue, journaled: Bool, creates: String? = nil, records record: () -> [JournalRecord],
                         applied: AppliedCount?, sliced: StaggerWork? = nil,
                         apply: @escaping (EngineContext) throws(EngineError) -> JSONValue) {
        session.owedReplies += 1
        session.journalPending += 1
        if let creates { pendingCreates[creates] = journaled }
        let records = journaled ? record() : []
        var lines = records.map(\.line)
        // The request's idempotency key goes with it: answered when the entry is applied, remembered
        // across a restart through its first record.
        let key = context.keys.current.map { IdempotencyKeys.Pair(uid: $0.uid, key: $0.key) }
        context.keys.current = nil
        if let key, let first = records.first {
            var json = first.json
            json["key"] = .string(key.key)
            json["keyUid"] = .number(Double(key.uid))
            lines[0] = WireMessage.line(json)
        }
        group.append(JournalEntry(records: records, lines: lines, creates: creates, sessionID: session.id,
                                  id: id, apply: apply, applied: applied, key: key, sliced: sliced))
        flushJournal()
    }

    /// A change the daemon makes itself (a theme's retune, docs/themes.md#live-retune) to a journaled
    /// runtime: written as a client's would be, applied once written; nobody is answered.
    func applyJournaled(_ records: [JournalRecord], apply: @escaping (EngineContext) throws(EngineError) -> JSONValue) {
        group.append(JournalEntry(records: records, lines: records.map(\.line), sessionID: .max, id: .null, apply: apply))
        flushJournal()
    }

    /// A request refused while this connection's earlier changes wait for the journal: its error is
    /// answered after theirs.
    func queueError(_ error: EngineError, id: JSONValue, in session: Session) {
        queueReply(id: id, in: session) { _ throws(EngineError) in throw error }
    }

    /// A reply that keeps its place in line behind changes being written: `answer` gives it when its
    /// turn comes, nothing written for it.
    func queueReply(id: JSONValue, in session: Session, _ answer: @escaping (EngineContext) throws(EngineError) -> JSONValue) {
        session.owedReplies += 1
        session.journalPending += 1
        group.append(JournalEntry(records: [], sessionID: session.id, id: id, apply: answer))
        flushJournal()
    }

    /// Nothing waits to be written or applied.
    var isIdle: Bool { group.isEmpty && writing.isEmpty && applying == nil }

    /// Whether changes to `key` will be journaled, counting a runtime whose creation is still being written.
    func willBeJournaled(_ key: String) -> Bool {
        engine.runtimes[key] == nil ? (pendingCreates[key] ?? false) : isJournaled(key)
    }

    private func flushJournal() {
        guard writing.isEmpty, !group.isEmpty, let journal = storage else { return }
        writing = group
        group = []
        if !unwrittenWriteOffs.isEmpty {
            writing.insert(JournalEntry(records: [], lines: [unwrittenWriteOffs], sessionID: .max, id: .null,
                                               apply: { _ throws(EngineError) in .null }, isWriteOff: true), at: 0)
            unwrittenWriteOffs = []
        }
        let lines = writing.reduce(into: [UInt8]()) { lines, entry in for line in entry.lines { lines += line } }
        let write: @Sendable () -> Result<Void, EngineError> = {
            lines.isEmpty ? .success(()) : Result { () throws(EngineError) in try journal.append(lines) }
        }
        guard let offload = hooks.offload, let onEngineThread = hooks.onEngineThread else { return applyJournalGroup(written: write()) }
        offload {
            let written = write()
            onEngineThread { $0.journal.applyJournalGroup(written: written) }
        }
    }

    /// Applies the group just written (`writing`), or refuses its journaled changes if the write
    /// failed: in slices of about a millisecond, each next one queued at the front of the lane of the uid
    /// whose entry comes next (a group is as large as what arrived during one sync: one uid's flood of
    /// large plans applied whole, in the daemon's own lane, made everyone else wait for it; queued behind
    /// that uid's backlog, every other uid's changes in the group waited for the backlog too).
    func applyJournalGroup(written: Result<Void, EngineError>) {
        if case .failure(let error) = written {
            logger.error("journal not written; the changes are refused", metadata: ["error": "\(error.message)"])
        }
        applying = JournalApplication(written: written)
        continueJournalGroup()
    }

    func continueJournalGroup() {
        guard var application = applying else { return }
        let group = writing
        let deadline = WorkClock.now() + Self.sliceNanos
        while application.next < group.count {
            let entry = group[application.next]
            if apply(entry, written: application.written, until: deadline) { application.next += 1 }
            if application.next < group.count, WorkClock.now() > deadline, let onEngineThreadFor = hooks.onEngineThreadFor {
                applying = application
                onEngineThreadFor(sessions[group[application.next].sessionID]?.peer?.uid, true) { $0.journal.continueJournalGroup() }
                return
            }
        }
        applying = nil
        writing = []
        if let journal = storage, journal.size > max(Self.journalCompactionBytes, 2 * compactedBytes) {
            compactJournal()
        }
        for entry in group {
            guard let session = sessions[entry.sessionID] else { continue }
            while session.journalPending == 0, session.job == nil, !session.isClosed, let next = session.nextWaiting() {
                context.handle(next, from: session.id, draining: true)
            }
            session.closeIfFinished()
        }
        context.publishControlFrame()
        flushJournal()
    }

    /// One entry of the group: applied and answered (refused if the write failed). False when it is a
    /// change applied in slices that `deadline` interrupted: nothing is answered yet.
    private func apply(_ entry: JournalEntry, written: Result<Void, EngineError>, until deadline: UInt64) -> Bool {
        if let work = entry.sliced, case .success = written, !work.work(in: context, until: deadline) { return false }
        if let creates = entry.creates { pendingCreates[creates] = nil }
        if entry.isWriteOff, case .failure = written {
            // Until it is written, a start would replay what it writes off: it goes with the next write.
            for line in entry.lines { unwrittenWriteOffs += line }
        }
        let session = sessions[entry.sessionID]
        session?.journalPending -= 1
        var reply: JSONValue = .null
        defer {
            if let key = entry.key {
                context.keys.end(uid: key.uid, key: key.key, result: reply["result"], now: clock.wallNow())
            }
        }
        if session == nil, entry.records.isEmpty {
            return true  // its connection closed: nothing durable depends on it (an ephemeral runtime would be orphaned)
        } else if case .failure(let error) = written, !entry.records.isEmpty {
            reply = WireMessage.error(id: entry.id, code: error.code, message: error.message)
        } else {
            do throws(EngineError) {
                let result = try entry.apply(context)
                reply = WireMessage.result(id: entry.id, result)
                // The key goes with the first record, with what it was answered (a retry after a restart
                // gets it, `replayed`, should a compaction replace the record).
                var answered = result
                answered["replayed"] = true
                for (index, (record, line)) in zip(entry.records, entry.lines).enumerated() {
                    let key = index == 0 ? entry.key.map { JournalKeeper.KeptKey(uid: $0.uid, key: $0.key, time: record.time, answer: answered) } : nil
                    remember(record, line: line, keys: key.map { [$0] } ?? [])
                }
            } catch {
                // Written but refused (a quota, a plugin's `add_plan` that checks more than the schema):
                // not kept, so the next rewrite drops it, and written off, so no start replays it. Not a
                // rewrite now: a refused request is cheap to send, a rewrite is not.
                let kept = min(entry.applied?.value ?? 0, entry.records.count)
                for (record, line) in zip(entry.records, entry.lines).prefix(kept) { remember(record, line: line) }
                let refused = Array(entry.records.dropFirst(kept))
                if !refused.isEmpty {
                    writeOff(refused, answering: error, id: entry.id, in: session)
                    return true
                }
                reply = WireMessage.error(id: entry.id, code: error.code, message: error.message)
            }
        }
        if let slot = entry.slot { session?.fill(slot, with: reply) } else { session?.sendOwedReply(reply) }
        return true
    }

    /// Journals that `records`, written earlier, were refused, with the next group; the refusal is
    /// answered once that is written (answered at once, a `kill -9` before the write-off reached the disk
    /// had the next start replay the refused plan). It keeps its place in the connection's replies: those
    /// to its later changes, applied meanwhile, wait for it (`Session.reserveOwedReply`), and its other
    /// requests wait until then.
    private func writeOff(_ records: [JournalRecord], answering error: EngineError, id: JSONValue, in session: Session?) {
        let now = clock.wallNow()
        let lines = records.map { JournalRecord.refused(record: $0.json, t: max(now, $0.time)).line }
        session?.journalPending += 1
        group.append(JournalEntry(records: [], lines: lines, sessionID: session?.id ?? .max, id: id,
                                         apply: { _ throws(EngineError) in throw error }, isWriteOff: true,
                                         slot: session?.reserveOwedReply()))
    }

    /// At a graceful stop: the write-offs a full disk kept out of the journal, and those still waiting for
    /// the next group, written now if they can be (the disk may have room again), so that the next start
    /// does not replay what they write off. From the engine thread (the journal takes a lock).
    func writeUnwrittenWriteOffs() {
        guard let journal = storage else { return }
        for index in group.indices where group[index].isWriteOff {
            for line in group[index].lines { unwrittenWriteOffs += line }
            group[index].lines = []
        }
        guard !unwrittenWriteOffs.isEmpty else { return }
        do throws(EngineError) {
            try journal.append(unwrittenWriteOffs)
            unwrittenWriteOffs = []
        } catch {
            logger.error("journal: refused changes not written off; the next start replays them", metadata: ["error": "\(error.message)"])
        }
    }

    /// A written group being applied in slices.
    struct JournalApplication {
        var written: Result<Void, EngineError>
        /// The next entry of `writing` to apply.
        var next = 0
    }

    /// Keeps what a replay of `record`'s runtime needs (the compaction's source), within the uid's
    /// `journalBytes` quota (`JournalKeeper`).
    func remember(_ record: JournalRecord, line: [UInt8], keys: [JournalKeeper.KeptKey] = []) {
        kept.maximumRecords = Self.maximumJournalRecords
        kept.maximumOwnerBytes = settings.quotas.journalBytes
        // Compacted before anything is dropped: the uid's runtimes at rest are kept as their values
        // (nothing lost), and only then its oldest records go.
        let owner = OwnedName.split(record.runtime).owner ?? 0
        // (Not during the replay: a values record stamped now would come before older records of the runtime.)
        if restoring == nil, (kept.ownerBytes[owner] ?? 0) + line.count > kept.maximumOwnerBytes { compactResting(of: owner) }
        kept.remember(record, line: line, keys: keys)
        // Records go one at a time past the quota (one per record added): logged at most once a minute
        // per runtime, with how many went since the last line.
        if case .destroy = record { dropWarnings[record.runtime] = nil }
        let now = Double(clock.now()) / 1e9
        for (runtime, count) in kept.takeDropped() {
            var warning = dropWarnings[runtime] ?? (said: -.infinity, count: 0)
            warning.count += count
            if now - warning.said >= 60 {
                let (owner, name) = OwnedName.split(runtime)
                logger.warning("journal past the uid's journalBytes quota: the oldest records of a runtime are dropped; a restart will not bring them back",
                               metadata: ["uid": "\(owner ?? 0)", "runtime": "\(name)", "records": "\(warning.count)"])
                warning = (now, 0)
            }
            dropWarnings[runtime] = warning
        }
    }

    /// Keeps each of `owner`'s runtimes at rest as its creation and its values (what a compaction
    /// writes for it), in memory: the next compaction writes them so.
    private func compactResting(of owner: UInt32) {
        let now = clock.wallNow()
        for (runtime, records) in kept.runtimes where records.count > 2 && (OwnedName.split(runtime).owner ?? 0) == owner {
            guard records.first?.record.isCreate == true, engine.runtimes[runtime] != nil, !engine.isActive(runtime: runtime) else { continue }
            kept.replace(runtime, with: [records[records.startIndex], Self.resting(runtime, of: engine, at: now, keeping: Array(records.dropFirst()))])
        }
    }

    /// A runtime at rest as one record of its values, carrying the idempotency keys of `replaced` still
    /// within their 10 minutes (docs/protocol.md#idempotency-keys: kept across a restart), each with what
    /// a retry is answered.
    static func resting(_ runtime: String, of engine: Engine, at time: Double, keeping replaced: [JournalKeeper.Kept] = []) -> JournalKeeper.Kept {
        let values = engine.timelines.properties(ofRuntime: runtime).map { ($0.target, $0.property, engine.store.value($0.handle)) }
        let record = JournalRecord.values(runtime: runtime, values: values, t: time)
        let keys = replaced.flatMap(\.keys).filter { time - $0.time <= IdempotencyKeys.lifetime }
        guard !keys.isEmpty else { return JournalKeeper.Kept(record: record, line: record.line) }
        var json = record.json
        json["keys"] = .array(keys.map(\.json))
        return JournalKeeper.Kept(record: record, line: WireMessage.line(json), keys: keys)
    }

    /// Compacts now (tests; the daemon compacts past `journalCompactionBytes`).
    func compactForTesting() { compactJournal() }

    /// Rewrites the journal from memory: each live runtime's creation, then its values if it is at rest,
    /// else its plans. The lines were serialized when written: here they are only gathered, and joined on
    /// the save queue, off the engine thread.
    func compactJournal() {
        guard let journal = storage else { return }
        let now = clock.wallNow()
        var parts: [[JournalKeeper.Kept]] = []
        for (runtime, records) in kept.all {
            guard records.first?.record.isCreate == true else { continue }
            if engine.isActive(runtime: runtime) {
                parts.append(records)
            } else {
                let compacted = [records[0], Self.resting(runtime, of: engine, at: now, keeping: Array(records.dropFirst()))]
                kept.replace(runtime, with: compacted)
                parts.append(compacted)
            }
        }
        compactedBytes = kept.totalBytes
        let rewrite: @Sendable () -> Void = { [logger, parts] in
            var lines: [UInt8] = []
            lines.reserveCapacity(parts.reduce(0) { $0 + $1.reduce(0) { $0 + $1.line.count } })
            for kept in parts { for part in kept { lines += part.line } }
            do throws(EngineError) { try journal.rewrite(lines) } catch {
                logger.error("journal not compacted", metadata: ["error": "\(error.message)"])
            }
        }
        if let offload = hooks.offload { offload(rewrite) } else { rewrite() }
    }
}
