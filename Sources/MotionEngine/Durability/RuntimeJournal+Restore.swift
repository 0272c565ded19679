import MotionWire

extension RuntimeJournal {
    /// Replays the journal at start, whole: every journaled runtime comes back as it would be now
    /// (`beginRestore`, then `continueRestore` until it is done). Tests and tools; the daemon works it in
    /// slices while it answers `hello` and `status`.
    package func restoreRuntimes(from journal: any JournalStorage, now: Double? = nil, progress: ((_ done: Int, _ total: Int) -> Void)? = nil)
        -> JournalReplay.Outcome {
        if let outcome = beginRestore(from: journal, now: now, progress: progress) { return outcome }
        var outcome: JournalReplay.Outcome?
        while outcome == nil { outcome = continueRestore(until: .max) }
        return outcome!
    }

    /// Reads the journal and readies its replay (`isRestoring` until `continueRestore` has done it): every
    /// journaled runtime comes back as it would be at `now` (the wall clock's now by default), each target's
    /// plans performed from when they were added, in one exact step from each change of the target to its
    /// next and from its last to now (time in proportion to the records, not to the downtime). The outcome
    /// at once when there is nothing to replay, else nil; `finished` hears it when the replay is done.
    package func beginRestore(from journal: any JournalStorage, now: Double? = nil, progress: ((_ done: Int, _ total: Int) -> Void)? = nil,
                              finished: ((JournalReplay.Outcome) -> Void)? = nil) -> JournalReplay.Outcome? {
        let (startedMonotonic, startedWall) = (clock.now(), clock.wallNow())
        let explicitNow = now
        let now = now ?? startedWall
        let offset = (now - startedWall) * 1e9
        let monotonicNow = offset < 0 ? startedMonotonic - UInt64(min(-offset, Double(startedMonotonic))) : startedMonotonic + UInt64(offset)
        storage = journal
        let (loaded, unreadable) = journal.loadLines()
        var problems = unreadable
        let records = loaded.compactMap { line -> JournalRecord? in
            guard let record = JournalRecord(line.json) else {
                problems.append("journal: a record that does not read: \(JSONWriter.string(line.json).prefix(200))")
                return nil
            }
            return record
        }
        var keyed: [Int: IdempotencyKeys.Pair] = [:], compactedKeys: [Int: [JSONValue]] = [:]
        let matched = loaded.count == records.count
        if matched {
            for (index, line) in loaded.enumerated() {
                if let key = line.json["key"]?.stringValue, let uid = line.json["keyUid"]?.doubleValue.flatMap(UInt32.init(exactly:)) {
                    keyed[index] = IdempotencyKeys.Pair(uid: uid, key: key)
                }
                if let keys = line.json["keys"]?.arrayValue { compactedKeys[index] = keys }
            }
        }
        replaySteps = 0
        guard !records.isEmpty else {
            finished?((0, 0, problems))
            return (0, 0, problems)
        }
        restoring = JournalReplay(journal: journal, records: records, lines: matched ? loaded.map(\.line) : nil, keyed: keyed, compactedKeys: compactedKeys,
                                  refused: writtenOff(records), now: now, followsClock: explicitNow == nil, monotonicNow: monotonicNow, problems: problems,
                                  progress: progress, finished: finished)
        return nil
    }

    /// Whether a replay is under way: the clock does not tick, and a client's requests other than
    /// `hello` and `status` wait for it (`EngineContext.handle`).
    package var isRestoring: Bool { restoring != nil }

    /// Replays records until `deadline` (`WorkClock` nanoseconds; at least one). Returns the outcome when
    /// the last is done: then each target is brought to now, the journal compacted if it should be, and
    /// the requests that waited are answered.
    package func continueRestore(until deadline: UInt64) -> JournalReplay.Outcome? {
        guard let replay = restoring else { return nil }
        replaySlice(replay, until: deadline)
        guard replay.next == replay.records.count else { return nil }
        // Brought to the present of now, not of the replay's start: the replay took time of its own (the
        // clock has not ticked meanwhile), and the requests that waited for it then run at that present.
        let elapsed = replay.followsClock ? Double(clock.now() &- replay.monotonicNow) / 1e9 : 0
        withReplaySettings {
            for (runtime, target) in replay.clocks.all { advance(runtime, target, to: replay.now + elapsed, in: replay) }
        }
        resumesAt = replay.followsClock ? clock.now() : min(replay.monotonicNow, clock.now())
        restoring = nil
        // A journal far larger than what the runtimes need now (written before the bounds, or mostly
        // superseded), or with records that were refused, is rewritten once, at the start.
        compactedBytes = kept.totalBytes
        if replay.dropped > 0 || replay.journal.size > max(Self.journalCompactionBytes, 2 * kept.totalBytes) { compactJournal() }
        let outcome = (kept.all.count, replay.records.count, replay.problems)
        replay.finished?(outcome)
        // The requests that waited, as any others now: traced, within their composites' budgets.
        for session in sessions.values.sorted(by: { $0.id < $1.id }) {
            while session.journalPending == 0, session.job == nil, !session.isClosed, let next = session.nextWaiting() {
                context.handle(next, from: session.id, draining: true)
            }
            session.closeIfFinished()
        }
        context.publishControlFrame()
        return outcome
    }

    /// Replays records until `deadline` (at least one).
    private func replaySlice(_ replay: JournalReplay, until deadline: UInt64) {
        withReplaySettings {
            repeat {
                replayRecord(replay.next, of: replay)
                replay.next += 1
                if replay.next & 4095 == 0 { replay.progress?(replay.next, replay.records.count) }
            } while replay.next < replay.records.count && WorkClock.now() < deadline
        }
    }

    /// What the replay runs under: no trace events (nobody is told of a replay), no budget for starting a
    /// composite's next steps (it starts within the step that ended the last), and no frame.
    private func withReplaySettings(_ body: () -> Void) {
        context.dryRuns.isSampling = true
        let composites = engine.spread.compositeNanosPerUID
        engine.spread.compositeNanosPerUID = .max
        defer {
            engine.spread.compositeNanosPerUID = composites
            context.dryRuns.isSampling = false
            engine.clearFrame()
        }
        body()
    }

    /// Each target on a clock of its own (`TargetClocks`): a change moves only the target it touches,
    /// from that target's previous change to its own time, in one exact step. Moving every live
    /// animation in frame-sized steps to each record's time made a replay cost records × animations ×
    /// steps (150,000 repeating tweens: minutes, and longer the longer the daemon was down).
    private func advance(_ runtime: String, _ target: String, to time: Double, in replay: JournalReplay) {
        let last = replay.clocks.time(of: target, in: runtime)
        if let last, time - last > 1e-12 {
            engine.advance(runtime: runtime, target: target, by: time - last)
            engine.clearFrame()
            replaySteps += 1
        }
        // A wall clock set back between two records does not take a target back.
        replay.clocks.set(target, in: runtime, to: max(time, last ?? time))
    }

    /// Replays record `index`.
    private func replayRecord(_ index: Int, of replay: JournalReplay) {
        let record = replay.records[index]
        if case .refused = record {
            replay.dropped += 1  // rewritten at the start without it
            return
        }
        if replay.refused.contains(index) {
            replay.dropped += 1
            return
        }
        switch record {
        case .add(let runtime, let target, _, _, let time, _), .remove(let runtime, let target, _, let time):
            advance(runtime, target, to: time, in: replay)
        case .values(let runtime, let values, let time):
            for target in Set(values.map(\.target)) { advance(runtime, target, to: time, in: replay) }
        case .destroy(let runtime, _):
            replay.clocks.forget(runtime)
        case .create, .refused: break
        }
        if OwnedName.split(record.runtime).name == Engine.defaultRuntime, engine.runtimes[record.runtime] == nil {
            try? engine.createRuntime(record.runtime)
        }
        let line = replay.lines?[index] ?? record.line
        // A record with a key gets back what its request was answered with (docs/protocol.md#idempotency-keys).
        let key = replay.keyed[index].flatMap { replay.now - record.time <= IdempotencyKeys.lifetime ? $0 : nil }
        do throws(EngineError) {
            var answer: (performer: UInt64?, removed: Bool?) = (nil, nil)
            switch record {
            case .create(let runtime, let shared, _):
                // A uid's `default` is written as created when a compaction keeps it (`JournalKeeper`), and
                // may exist already (created above, or at a `hello` during the replay): it is that runtime,
                // not a second one (refused as "exists", then dropped, it made every start rewrite the journal).
                if OwnedName.split(runtime).name == Engine.defaultRuntime, engine.runtimes[runtime] != nil { break }
                try engine.createRuntime(runtime, shared: shared)
                if shared { hub.sharedRuntimes.insert(runtime) }
            case .add(let runtime, let target, let plan, let name, _, let instant):
                // Within its uid's quotas, as when it was asked: changes written but never applied (a
                // stop or a crash between the write and the apply) do not take a uid past them. Under
                // the settings it was added under (`instant`), not today's.
                let current = engine.composition.instantMotion
                engine.composition.instantMotion = instant
                defer { engine.composition.instantMotion = current }
                // Not the animations quota: other targets' animations are not yet at this record's time
                // (each target has its own clock), so ones that had ended by then still count.
                var quotas = context.quotas(of: runtime)
                quotas?.animations = .max
                quotas?.planBytes = .max
                answer.performer = try engine.addPlan(plan, to: target, in: runtime, named: name, quotas: quotas)
            case .remove(let runtime, let target, let name, _):
                answer.removed = try engine.removePlan(named: name, from: target, in: runtime)
            case .destroy(let runtime, _):
                try context.destroyRuntime(runtime)
                // Freed at once: what it held counts against its uid's quotas until it is.
                engine.continueTeardowns(until: .max)
            case .values(let runtime, let values, _):
                for (target, property, value) in values {
                    engine.timelines.write(value, velocity: [], to: property, target: target, runtime: runtime)
                }
            case .refused: break  // skipped above
            }
            // Kept with its line (and its keys, if any, so that a compaction keeps them too).
            // With its key and the keys of the records a compaction replaced by this one (with the answers
            // it wrote for them), still within their 10 minutes.
            var keys = (replay.compactedKeys[index] ?? []).compactMap(JournalKeeper.KeptKey.init(json:))
                .filter { replay.now - $0.time <= IdempotencyKeys.lifetime }
            if let key {
                keys.append(JournalKeeper.KeptKey(uid: key.uid, key: key.key, time: record.time,
                                                  answer: Self.answer(to: record, performer: answer.performer, removed: answer.removed)))
            }
            remember(record, line: line, keys: keys)
            for kept in keys { context.keys.remember(uid: kept.uid, key: kept.key, result: kept.answer, time: kept.time) }
        } catch {
            replay.problems.append("journal: \(record.runtime): \(error.message)")
            if error.code == .unknownPlanType {
                // Its plugin is not loaded this time (a directory missing): kept for a start that has it.
                remember(record, line: line)
            } else {
                // Refused again (a plan its plugin refused after it was written): not kept, so the
                // rewrite below leaves it out of the journal.
                replay.dropped += 1
            }
        }
    }

    /// What the request of `record` was answered with, rebuilt for its idempotency key (built only for a
    /// record that has one: a replay of 150,000 records built each one's, BENCHMARKS.md).
    private static func answer(to record: JournalRecord, performer: UInt64?, removed: Bool?) -> JSONValue {
        if let removed { return ["removed": .bool(removed), "replayed": true] }
        var result: JSONValue = ["runtime": .string(String(OwnedName.split(record.runtime).name)), "replayed": true]
        switch record {
        case .create(_, let shared, _):
            result["ephemeral"] = false
            result["shared"] = .bool(shared)
        case .add(_, let target, _, _, _, _):
            result["target"] = .string(target)
            if let performer { result["performer"] = .number(Double(performer)) }
        default: break
        }
        return result
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
