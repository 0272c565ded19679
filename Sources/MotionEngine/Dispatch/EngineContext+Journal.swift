import MotionWire

/// Animations survive a restart (docs/operations.md#animations-survive-a-restart): changes to non-ephemeral runtimes (`runtime.create`,
/// `plan.add`, `plan.remove`, `runtime.destroy`) are journaled durably **before** they are applied (a
/// failed write changes nothing: `state.write_failed`), and replayed at start to the present.
///
/// Writes are grouped: while one is being synced on the save queue, the requests that arrive wait in the
/// next group, so a burst costs a few syncs, not one each. A connection with a change in flight has its
/// other requests wait until that change is applied, so its replies keep their order.
extension EngineContext {
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
        guard journal != nil, let scope = engine.runtimes[key] else { return false }
        return scope.owner != nil && scope.ephemeralOwner == nil && !scope.isDryRun
            && !OwnedName.split(key).name.hasPrefix(Self.reservedRuntimePrefix)
    }

    /// Applies a change now, or (journaled, or behind another of this connection's changes) queues it for
    /// the journal and returns nil: the reply comes once it is written and applied.
    func journalOrApply(_ session: Session, id: JSONValue, journaled: Bool, creates: String? = nil, record: () -> [JournalRecord],
                        applied: AppliedCount? = nil,
                        apply: @escaping (EngineContext) throws(EngineError) -> JSONValue) throws(EngineError) -> JSONValue? {
        guard journal != nil, journaled || session.journalPending > 0 else { return try apply(self) }
        session.owedReplies += 1
        session.journalPending += 1
        if let creates { pendingCreates[creates] = journaled }
        let records = journaled ? record() : []
        journalGroup.append(JournalEntry(records: records, lines: records.map(\.line), creates: creates, sessionID: session.id,
                                         id: id, apply: apply, applied: applied))
        flushJournal()
        return nil
    }

    /// A request refused while this connection's earlier changes wait for the journal: its error is
    /// answered after theirs.
    func queueJournalError(_ error: EngineError, id: JSONValue, in session: Session) {
        session.owedReplies += 1
        session.journalPending += 1
        journalGroup.append(JournalEntry(records: [], sessionID: session.id, id: id, apply: { _ throws(EngineError) in throw error }))
        flushJournal()
    }

    /// Whether changes to `key` will be journaled, counting a runtime whose creation is still being written.
    func willBeJournaled(_ key: String) -> Bool {
        engine.runtimes[key] == nil ? (pendingCreates[key] ?? false) : isJournaled(key)
    }

    private func flushJournal() {
        guard journalWriting.isEmpty, !journalGroup.isEmpty, let journal else { return }
        journalWriting = journalGroup
        journalGroup = []
        if !unwrittenWriteOffs.isEmpty {
            journalWriting.insert(JournalEntry(records: [], lines: [unwrittenWriteOffs], sessionID: .max, id: .null,
                                               apply: { _ throws(EngineError) in .null }, isWriteOff: true), at: 0)
            unwrittenWriteOffs = []
        }
        let lines = journalWriting.reduce(into: [UInt8]()) { lines, entry in for line in entry.lines { lines += line } }
        let write: @Sendable () -> Result<Void, EngineError> = {
            lines.isEmpty ? .success(()) : Result { () throws(EngineError) in try journal.append(lines) }
        }
        guard let offload, let onEngineThread else { return applyJournalGroup(written: write()) }
        offload {
            let written = write()
            onEngineThread { $0.applyJournalGroup(written: written) }
        }
    }

    /// Applies the group just written (`journalWriting`), or refuses its journaled changes if the write
    /// failed: in slices of about a millisecond, each next one queued at the front of the lane of the uid
    /// whose entry comes next (a group is as large as what arrived during one sync: one uid's flood of
    /// large plans applied whole, in the daemon's own lane, made everyone else wait for it; queued behind
    /// that uid's backlog, every other uid's changes in the group waited for the backlog too).
    private func applyJournalGroup(written: Result<Void, EngineError>) {
        if case .failure(let error) = written {
            logger.error("journal not written; the changes are refused", metadata: ["error": "\(error.message)"])
        }
        journalApplying = JournalApplication(written: written)
        continueJournalGroup()
    }

    private func continueJournalGroup() {
        guard var application = journalApplying else { return }
        let group = journalWriting
        let deadline = WorkClock.now() + Self.sliceNanos
        while application.next < group.count {
            let entry = group[application.next]
            application.next += 1
            apply(entry, written: application.written)
            if application.next < group.count, WorkClock.now() > deadline, let onEngineThreadFor {
                journalApplying = application
                onEngineThreadFor(sessions[group[application.next].sessionID]?.peer?.uid, true) { $0.continueJournalGroup() }
                return
            }
        }
        journalApplying = nil
        journalWriting = []
        if let journal, journal.size > max(Self.journalCompactionBytes, 2 * journalCompactedBytes) {
            compactJournal()
        }
        for entry in group {
            guard let session = sessions[entry.sessionID] else { continue }
            while session.journalPending == 0, session.job == nil, !session.isClosed, let next = session.deferred.popFirst() {
                handle(next, from: session.id, draining: true)
            }
            session.closeIfFinished()
        }
        publishControlFrame()
        flushJournal()
    }

    /// One entry of the group: applied and answered (refused if the write failed).
    private func apply(_ entry: JournalEntry, written: Result<Void, EngineError>) {
        if let creates = entry.creates { pendingCreates[creates] = nil }
        if entry.isWriteOff, case .failure = written {
            // Until it is written, a start would replay what it writes off: it goes with the next write.
            for line in entry.lines { unwrittenWriteOffs += line }
        }
        let session = sessions[entry.sessionID]
        session?.journalPending -= 1
        let reply: JSONValue
        if session == nil, entry.records.isEmpty {
            return  // its connection closed: nothing durable depends on it (an ephemeral runtime would be orphaned)
        } else if case .failure(let error) = written, !entry.records.isEmpty {
            reply = WireMessage.error(id: entry.id, code: error.code, message: error.message)
        } else {
            do throws(EngineError) {
                reply = WireMessage.result(id: entry.id, try entry.apply(self))
                for (record, line) in zip(entry.records, entry.lines) { remember(record, line: line) }
            } catch {
                // Written but refused (a quota, a plugin's `add_plan` that checks more than the schema):
                // not kept, so the next rewrite drops it, and written off, so no start replays it. Not a
                // rewrite now: a refused request is cheap to send, a rewrite is not.
                let kept = min(entry.applied?.value ?? 0, entry.records.count)
                for (record, line) in zip(entry.records, entry.lines).prefix(kept) { remember(record, line: line) }
                let refused = Array(entry.records.dropFirst(kept))
                if !refused.isEmpty {
                    return writeOff(refused, answering: error, id: entry.id, in: session)
                }
                reply = WireMessage.error(id: entry.id, code: error.code, message: error.message)
            }
        }
        if let slot = entry.slot { session?.fill(slot, with: reply) } else { session?.sendOwedReply(reply) }
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
        journalGroup.append(JournalEntry(records: [], lines: lines, sessionID: session?.id ?? .max, id: id,
                                         apply: { _ throws(EngineError) in throw error }, isWriteOff: true,
                                         slot: session?.reserveOwedReply()))
    }

    /// At a graceful stop: the write-offs a full disk kept out of the journal, and those still waiting for
    /// the next group, written now if they can be (the disk may have room again), so that the next start
    /// does not replay what they write off. From the engine thread (the journal takes a lock).
    func writeUnwrittenWriteOffs() {
        guard let journal else { return }
        for index in journalGroup.indices where journalGroup[index].isWriteOff {
            for line in journalGroup[index].lines { unwrittenWriteOffs += line }
            journalGroup[index].lines = []
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
        /// The next entry of `journalWriting` to apply.
        var next = 0
    }

    /// Keeps what a replay of `record`'s runtime needs (the compaction's source), within the uid's
    /// `journalBytes` quota (`JournalKeeper`).
    private func remember(_ record: JournalRecord, line: [UInt8]) {
        journalKept.maximumRecords = Self.maximumJournalRecords
        journalKept.maximumOwnerBytes = settings.quotas.journalBytes
        journalKept.remember(record, line: line)
        for (runtime, count) in journalKept.takeDropped() {
            let (owner, name) = OwnedName.split(runtime)
            logger.warning("journal past the uid's journalBytes quota: the oldest records of a runtime are dropped; a restart will not bring them back",
                           metadata: ["uid": "\(owner ?? 0)", "runtime": "\(name)", "records": "\(count)"])
        }
    }

    /// Compacts now (tests; the daemon compacts past `journalCompactionBytes`).
    func compactForTesting() { compactJournal() }

    /// Rewrites the journal from memory: each live runtime's creation, then its values if it is at rest,
    /// else its plans. The lines were serialized when written: here they are only gathered, and joined on
    /// the save queue, off the engine thread.
    private func compactJournal() {
        guard let journal else { return }
        let now = clock.wallNow()
        var parts: [[JournalKeeper.Kept]] = []
        for (runtime, kept) in journalKept.all {
            guard kept.first?.record.isCreate == true else { continue }
            if engine.isActive(runtime: runtime) {
                parts.append(kept)
            } else {
                let values = engine.properties(ofRuntime: runtime).map { ($0.target, $0.property, engine.store.value($0.handle)) }
                let resting = JournalRecord.values(runtime: runtime, values: values, t: now)
                let compacted = [kept[0], JournalKeeper.Kept(record: resting, line: resting.line)]
                journalKept.replace(runtime, with: compacted)
                parts.append(compacted)
            }
        }
        journalCompactedBytes = journalKept.totalBytes
        let rewrite: @Sendable () -> Void = { [logger, parts] in
            var lines: [UInt8] = []
            lines.reserveCapacity(parts.reduce(0) { $0 + $1.reduce(0) { $0 + $1.line.count } })
            for kept in parts { for part in kept { lines += part.line } }
            do throws(EngineError) { try journal.rewrite(lines) } catch {
                logger.error("journal not compacted", metadata: ["error": "\(error.message)"])
            }
        }
        if let offload { offload(rewrite) } else { rewrite() }
    }

    // MARK: Restore

    /// Replays the journal at start (before the socket listens): every journaled runtime comes back as
    /// it would be now, its plans performed in frame-sized steps from when they were added (stretches
    /// where nothing moves are skipped). Returns the runtimes and records replayed and any problem.
    package func restoreRuntimes(from journal: any JournalStorage, now: Double? = nil)
        -> (runtimes: Int, records: Int, problems: [String]) {
        // The monotonic instant matching `now`: the replay takes time of its own, which the clock's first
        // tick then makes up.
        let (startedMonotonic, startedWall) = (clock.now(), clock.wallNow())
        let now = now ?? startedWall
        let offset = (now - startedWall) * 1e9
        let monotonicNow = offset < 0 ? startedMonotonic - UInt64(min(-offset, Double(startedMonotonic))) : startedMonotonic + UInt64(offset)
        self.journal = journal
        let (lines, unreadable) = journal.load()
        var problems = unreadable
        let records = lines.compactMap { line -> JournalRecord? in
            guard let record = JournalRecord(line) else {
                problems.append("journal: a record that does not read: \(JSONWriter.string(line).prefix(200))")
                return nil
            }
            return record
        }
        guard let first = records.first else { return (0, 0, problems) }
        let refused = writtenOff(records)
        isSampling = true
        defer {
            isSampling = false
            engine.clearFrame()
        }
        var replayed = first.time
        var dropped = 0
        let frame = 1 / settings.rate
        func advance(to time: Double) {
            while time - replayed > 1e-9 {
                guard engine.isAnimating else {
                    replayed = time
                    return
                }
                // At most 10,000 steps per stretch: something that animates for a month (a tween repeated
                // forever) does not hold the start for hours; beyond that stretch steps are coarser.
                let dt = min(max(frame, (time - replayed) / 10_000), time - replayed)
                engine.advance(by: dt)
                engine.clearFrame()
                replayed += dt
            }
        }
        for (index, record) in records.enumerated() {
            if case .refused = record {
                dropped += 1  // rewritten at the start without it
                continue
            }
            if refused.contains(index) {
                dropped += 1
                continue
            }
            advance(to: record.time)
            if OwnedName.split(record.runtime).name == Engine.defaultRuntime, engine.runtimes[record.runtime] == nil {
                try? engine.createRuntime(record.runtime)
            }
            do throws(EngineError) {
                switch record {
                case .create(let runtime, let shared, _):
                    try engine.createRuntime(runtime, shared: shared)
                    if shared { hub.sharedRuntimes.insert(runtime) }
                case .add(let runtime, let target, let plan, let name, _):
                    // Within its uid's quotas, as when it was asked: changes written but never applied (a
                    // stop or a crash between the write and the apply) do not take a uid past them.
                    try engine.addPlan(plan, to: target, in: runtime, named: name, quotas: quotas(of: runtime))
                case .remove(let runtime, let target, let name, _):
                    try engine.removePlan(named: name, from: target, in: runtime)
                case .destroy(let runtime, _):
                    try destroyRuntime(runtime)
                    // Freed at once: what it held counts against its uid's quotas until it is.
                    engine.continueTeardowns(until: .max)
                case .values(let runtime, let values, _):
                    for (target, property, value) in values {
                        engine.write(value, velocity: [], to: property, target: target, runtime: runtime)
                    }
                case .refused: break  // skipped above
                }
                remember(record, line: record.line)
            } catch {
                problems.append("journal: \(record.runtime): \(error.message)")
                if error.code == .unknownPlanType {
                    // Its plugin is not loaded this time (a directory missing): kept for a start that has it.
                    remember(record, line: record.line)
                } else {
                    // Refused again (a plan its plugin refused after it was written): not kept, so the
                    // rewrite below leaves it out of the journal.
                    dropped += 1
                }
            }
        }
        advance(to: now)
        resumesAt = min(monotonicNow, clock.now())
        // A journal far larger than what the runtimes need now (written before the bounds, or mostly
        // superseded), or with records that were refused, is rewritten once, at the start.
        journalCompactedBytes = journalKept.totalBytes
        if dropped > 0 || journal.size > max(Self.journalCompactionBytes, 2 * journalKept.totalBytes) { compactJournal() }
        return (journalKept.all.count, records.count, problems)
    }

    /// The records a later `refused` record writes off: for each, the newest earlier record written as
    /// it says not yet written off (looked for among the 100,000 before it: it follows within a group or two).
    private func writtenOff(_ records: [JournalRecord]) -> Set<Int> {
        var refused = Set<Int>()
        for (index, record) in records.enumerated() {
            guard case .refused(let written, _) = record else { continue }
            for earlier in stride(from: index - 1, through: max(0, index - 100_000), by: -1)
            where records[earlier].runtime == record.runtime && !refused.contains(earlier) && records[earlier].json == written {
                refused.insert(earlier)
                break
            }
        }
        return refused
    }
}
