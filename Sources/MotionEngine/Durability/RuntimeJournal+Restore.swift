import MotionWire

extension RuntimeJournal {
    /// Replays the journal at start (before the socket listens): every journaled runtime comes back as
    /// it would be now, each target's plans performed from when they were added, in one step from each
    /// change of the target to its next and from its last to now (time proportional to the records, not
    /// to the downtime). Returns the runtimes and records replayed and any problem.
    /// `progress` hears how many records are done of how many, every 4,096 (the host asks systemd for
    /// the time the rest will take, from the time these took).
    package func restoreRuntimes(from journal: any JournalStorage, now: Double? = nil, progress: ((_ done: Int, _ total: Int) -> Void)? = nil)
        -> (runtimes: Int, records: Int, problems: [String]) {
        // The monotonic instant matching `now`: the replay takes time of its own, which the clock's first
        // tick then makes up.
        let (startedMonotonic, startedWall) = (clock.now(), clock.wallNow())
        let now = now ?? startedWall
        let offset = (now - startedWall) * 1e9
        let monotonicNow = offset < 0 ? startedMonotonic - UInt64(min(-offset, Double(startedMonotonic))) : startedMonotonic + UInt64(offset)
        storage = journal
        let (loaded, unreadable) = journal.loadLines()
        let lines = loaded.map(\.json)
        var problems = unreadable
        // Each record with the idempotency key its first line carried, if any (`IdempotencyKeys`).
        var keyed: [Int: (key: IdempotencyKeys.Pair, line: JSONValue)] = [:]
        let records = lines.compactMap { line -> JournalRecord? in
            guard let record = JournalRecord(line) else {
                problems.append("journal: a record that does not read: \(JSONWriter.string(line).prefix(200))")
                return nil
            }
            return record
        }
        if lines.count == records.count {
            for (index, line) in lines.enumerated() {
                if let key = line["key"]?.stringValue, let uid = line["keyUid"]?.doubleValue.flatMap(UInt32.init(exactly:)) {
                    keyed[index] = (IdempotencyKeys.Pair(uid: uid, key: key), line)
                }
            }
        }
        guard !records.isEmpty else { return (0, 0, problems) }
        let refused = writtenOff(records)
        context.dryRuns.isSampling = true
        defer {
            context.dryRuns.isSampling = false
            engine.clearFrame()
        }
        // Each target on a clock of its own (`TargetClocks`): a change moves only the target it touches,
        // from that target's previous change to its own time, in one exact step. Moving every live
        // animation in frame-sized steps to each record's time made a replay cost records × animations ×
        // steps (150,000 repeating tweens: minutes, and longer the longer the daemon was down).
        var clocks = TargetClocks()
        replaySteps = 0
        let composites = engine.compositeNanosPerUID
        engine.compositeNanosPerUID = .max  // a composite's next step starts within the step that ended the last
        defer { engine.compositeNanosPerUID = composites }
        var dropped = 0
        func advance(_ runtime: String, _ target: String, to time: Double) {
            let last = clocks.time(of: target, in: runtime)
            if let last, time - last > 1e-12 {
                engine.advance(runtime: runtime, target: target, by: time - last)
                engine.clearFrame()
                replaySteps += 1
            }
            // A wall clock set back between two records does not take a target back.
            clocks.set(target, in: runtime, to: max(time, last ?? time))
        }
        for (index, record) in records.enumerated() {
            if index & 4095 == 4095 { progress?(index + 1, records.count) }
            if case .refused = record {
                dropped += 1  // rewritten at the start without it
                continue
            }
            if refused.contains(index) {
                dropped += 1
                continue
            }
            switch record {
            case .add(let runtime, let target, _, _, let time, _), .remove(let runtime, let target, _, let time):
                advance(runtime, target, to: time)
            case .values(let runtime, let values, let time):
                for target in Set(values.map(\.target)) { advance(runtime, target, to: time) }
            case .destroy(let runtime, _):
                clocks.forget(runtime)
            case .create, .refused: break
            }
            if OwnedName.split(record.runtime).name == Engine.defaultRuntime, engine.runtimes[record.runtime] == nil {
                try? engine.createRuntime(record.runtime)
            }
            do throws(EngineError) {
                // What the request was answered with, rebuilt for its key (docs/protocol.md#idempotency-keys).
                var result: JSONValue = ["runtime": .string(String(OwnedName.split(record.runtime).name)), "replayed": true]
                switch record {
                case .create(let runtime, let shared, _):
                    try engine.createRuntime(runtime, shared: shared)
                    if shared { hub.sharedRuntimes.insert(runtime) }
                    result["ephemeral"] = false
                    result["shared"] = .bool(shared)
                case .add(let runtime, let target, let plan, let name, _, let instant):
                    // Within its uid's quotas, as when it was asked: changes written but never applied (a
                    // stop or a crash between the write and the apply) do not take a uid past them. Under
                    // the settings it was added under (`instant`), not today's.
                    let current = engine.instantMotion
                    engine.instantMotion = instant
                    defer { engine.instantMotion = current }
                    let performer = try engine.addPlan(plan, to: target, in: runtime, named: name, quotas: context.quotas(of: runtime))
                    result["target"] = .string(target)
                    result["performer"] = .number(Double(performer))
                case .remove(let runtime, let target, let name, _):
                    result = ["removed": .bool(try engine.removePlan(named: name, from: target, in: runtime)), "replayed": true]
                case .destroy(let runtime, _):
                    try context.destroyRuntime(runtime)
                    // Freed at once: what it held counts against its uid's quotas until it is.
                    engine.continueTeardowns(until: .max)
                case .values(let runtime, let values, _):
                    for (target, property, value) in values {
                        engine.write(value, velocity: [], to: property, target: target, runtime: runtime)
                    }
                case .refused: break  // skipped above
                }
                if let (key, _) = keyed[index] {
                    // Kept with its key, so that a compaction keeps it too.
                    remember(record, line: loaded[index].line)
                    if now - record.time <= IdempotencyKeys.lifetime {
                        context.keys.remember(uid: key.uid, key: key.key, result: result, time: record.time)
                    }
                } else {
                    remember(record, line: lines.count == records.count ? loaded[index].line : record.line)
                }
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
        for (runtime, target) in clocks.all { advance(runtime, target, to: now) }
        resumesAt = min(monotonicNow, clock.now())
        // A journal far larger than what the runtimes need now (written before the bounds, or mostly
        // superseded), or with records that were refused, is rewritten once, at the start.
        compactedBytes = kept.totalBytes
        if dropped > 0 || journal.size > max(Self.journalCompactionBytes, 2 * kept.totalBytes) { compactJournal() }
        return (kept.all.count, records.count, problems)
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
