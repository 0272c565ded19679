import MotionWire

/// Live retune (docs/themes.md#live-retune): when a token changes, every running animation
/// that used it goes on with the new values from its current value and velocity. The plans that can
/// (`PlanVocabulary.retunable`, carried on as `Themes+Carry` says), and the composites whose running
/// steps can (`Themes+Composites`), are remembered with the plan as written; a change re-resolves each
/// and adds it again, carried on, journaled as a client's change would be so that a restart's replay
/// reproduces it. Any later plan on the property, its plan's removal or its runtime's end forgets it; a
/// retune that finds it superseded by the time it applies is refused (and so not replayed).

extension Themes {
    /// One property's plan (or one composite) that used tokens.
    struct Tuned {
        let runtime: String, target: String, name: String?, uid: UInt32
        /// The runtime it was added to (one destroyed and made again under the name is another).
        let scope: ObjectIdentifier
        var original: JSONValue
        var resolved: JSONValue
        /// Which `planAdded` made it: a retune applies only while it is still this one.
        let generation: UInt64
        var progress: Progress
        /// A composite's: the `Sequence` or `Group` running it, and the progress of its children that an
        /// earlier retune carried on, by their place in it (indices from the top).
        var composite: UInt64?
        var children: [[Int]: Progress] = [:]
    }

    /// Plans remembered per uid at most (beyond, its plans are not retuned; docs/themes.md).
    static let maximumTunedPerUID = 1024

    /// A plan was added (as written, and as resolved with `used` tokens) to `target` of `runtime`:
    /// remembered if a retune can carry it on; the properties it drives are forgotten otherwise (a
    /// later plan took them over).
    func planAdded(original: JSONValue, resolved: JSONValue, used: Set<String>, runtime: String, target: String,
                   name: String?, uid: UInt32) {
        guard let property = resolved["property"]?.stringValue else {
            for property in Composite.properties(of: resolved) { forget(Self.key(runtime, target, property)) }
            if !used.isEmpty, Composite.kind(of: resolved) != nil { compositeAdded(original, resolved, runtime, target, name, uid) }
            return
        }
        let key = Self.key(runtime, target, property)
        forget(key)
        guard !used.isEmpty, let type = resolved["type"]?.stringValue, let retune = engine.vocabulary.retunable[type],
              let scope = engine.runtimes[runtime], hasRoom(for: uid)
        else { return }
        // A timed loop carries on in phase (`carriedOnInPhase`) from where its cycles began: a `Tween` without
        // `from` began at the property's value now, unless it waits for a delay (then it is not retuned).
        var start: [Double]?
        if retune != .fromCurrentState, Self.repeats(resolved), case .timed = retune, resolved["from"] == nil {
            guard (resolved["delay"]?.doubleValue ?? 0) == 0,
                  let value = engine.value(of: property, target: target, runtime: runtime) else { return }
            start = value
        }
        tunedGeneration += 1
        tuned[key] = Tuned(runtime: runtime, target: target, name: name, uid: uid, scope: ObjectIdentifier(scope),
                           original: original, resolved: resolved, generation: tunedGeneration,
                           progress: Progress(startClock: engine.timelines.clock(ofRuntime: runtime) ?? 0, start: start))
        tunedPerUID[uid, default: 0] += 1
    }

    /// A named plan was removed: its property is no longer its to carry on.
    func planRemoved(runtime: String, target: String, name: String) {
        for (key, entry) in tuned where entry.runtime == runtime && entry.target == target && entry.name == name { forget(key) }
    }

    func forget(_ key: String) {
        guard let entry = tuned.removeValue(forKey: key) else { return }
        tunedPerUID[entry.uid] = (tunedPerUID[entry.uid] ?? 1) > 1 ? tunedPerUID[entry.uid]! - 1 : nil
    }

    static func key(_ runtime: String, _ target: String, _ property: String) -> String {
        runtime + "\u{0}" + target + "\u{0}" + property
    }

    /// Carries on every remembered plan of `uid` (nil: every uid's) whose tokens now resolve otherwise, in
    /// slices of `EngineContext.sliceNanos` between ticks, taking turns in `lane`'s line (the uid whose
    /// change it is): a uid's overlay change over 1,024 composites of 51 steps took ~600 ms at once,
    /// holding every uid's frames. Each plan is looked at when its turn comes (one a later plan replaced
    /// meanwhile is not carried on); without an engine loop (tests, tools) it is done at once.
    func retune(uid: UInt32?, lane: UInt32?) {
        let keys = tuned.filter { uid == nil || $0.value.uid == uid }.map(\.key).sorted()
        guard !keys.isEmpty else { return }
        retuneID += 1
        retunes[retuneID] = Retune(keys: keys, lane: lane)
        continueRetune(retuneID)
    }

    /// A retune under way: the remembered plans it has still to look at.
    struct Retune {
        let keys: [String]
        let lane: UInt32?
        var next = 0
    }

    func continueRetune(_ id: UInt64) {
        guard var work = retunes[id] else { return }
        let deadline = WorkClock.now() + EngineContext.sliceNanos
        while work.next < work.keys.count {
            let key = work.keys[work.next]
            work.next += 1
            if let entry = tuned[key] { carryOn(key, entry) }
            if work.next < work.keys.count, WorkClock.now() >= deadline, let later = hooks.onEngineThreadFor {
                retunes[id] = work
                later(work.lane, false) { $0.themes.continueRetune(id) }
                return
            }
        }
        retunes[id] = nil
    }

    /// `plan`, carried on as of a retune `late` seconds ago, applied now (after its journal write, frames
    /// later): still on schedule, from where the property is now. A loop keeps its phase (its delay that
    /// much further along); a plan still waiting waits that much less; one under way ends when it would
    /// have (its duration that much shorter), a timed one from the property's velocity now and a path
    /// from its value now (`values[0]`); one that goes on from the property's state (`Spring`) is as it is.
    /// Going back to the state the retune saw would throw the property back by what it moved meanwhile.
    static func onSchedule(_ plan: JSONValue, late: Double, retune: PlanVocabulary.Retune, value: [Double]?,
                           velocity: [Double]?) -> JSONValue {
        var applied = plan
        let delay = plan["delay"]?.doubleValue ?? 0
        // A loop in phase (and whatever goes on from the property's state: a `Spring`'s `duration` is its
        // physics, not a schedule) only moves along in time.
        if repeats(plan) || delay - late > 0 {
            applied["delay"] = .number(max(-3600, delay - late))
            return applied
        }
        if case .fromCurrentState = retune {
            applied["delay"] = nil
            return applied
        }
        // Under way (or its delay ran out meanwhile): the rest of it, from where the property is.
        applied["delay"] = nil
        guard let duration = plan["duration"]?.doubleValue else { return applied }
        applied["duration"] = .number(max(0, duration - (late - max(0, delay))))
        if let velocity, plan["velocity"] != nil { applied["velocity"] = JSONValue(velocity) }
        if let value, var values = plan["values"]?.arrayValue, !values.isEmpty {
            values[0] = JSONValue(value)
            applied["values"] = .array(values)
        }
        return applied
    }

    /// Carries one remembered plan on, if its tokens now resolve otherwise.
    private func carryOn(_ key: String, _ entry: Tuned) {
        guard let scope = engine.runtimes[entry.runtime], ObjectIdentifier(scope) == entry.scope,
              engine.isActive(runtime: entry.runtime) else {
            forget(key)  // gone, or at rest: nothing to carry on
            return
        }
        var updated = entry
        let continuing: JSONValue
        // The state it is carried on from (nil for a composite), and whether the plan takes it as its own
        // (a plan without `from` goes on from the property's state).
        var retunedAt: (clock: Double, retune: PlanVocabulary.Retune)?
        if let id = entry.composite {
            guard engine.composites.isRunningComposite(id) else {
                forget(key)
                return
            }
            guard let (plan, _) = try? resolve(entry.original, for: entry.uid), plan != entry.resolved,
                  let carried = carriedOnComposite(&updated, as: plan) else { return }
            continuing = carried
        } else {
            guard let property = entry.resolved["property"]?.stringValue,
                  let velocity = engine.velocity(of: property, target: entry.target, runtime: entry.runtime),
                  let value = engine.value(of: property, target: entry.target, runtime: entry.runtime),
                  Self.repeats(entry.resolved) || velocity.contains(where: { $0 != 0 })
                    || JSONValue(value) != (entry.resolved["to"] ?? entry.resolved["values"]?.arrayValue?.last)
            else {
                forget(key)
                return
            }
            guard let (plan, _) = try? resolve(entry.original, for: entry.uid), plan != entry.resolved,
                  let type = plan["type"]?.stringValue, let retune = engine.vocabulary.retunable[type] else { return }
            let clock = engine.timelines.clock(ofRuntime: entry.runtime) ?? entry.progress.startClock
            guard let carried = carriedOn(&updated.progress, from: entry.resolved, to: plan, retune: retune, value: value,
                                          velocity: velocity, clock: clock, canBridge: entry.name == nil) else {
                forget(key)
                return
            }
            updated.resolved = plan
            continuing = carried
            retunedAt = (clock, retune)
        }
        // A composite's entry changes once the composite carrying it on runs (`compositeRestarted`).
        if entry.composite == nil { tuned[key] = updated }
        let (runtime, target, name, generation, composite) = (entry.runtime, entry.target, entry.name, entry.generation, entry.composite)
        let what = entry.resolved["property"]?.stringValue.map { "\(target).\($0)" } ?? "\(target)'s composite"
        let quotas = context.quotas(of: runtime), carried = updated
        let add: (EngineContext) throws(EngineError) -> JSONValue = { context throws(EngineError) in
            // A plan added or removed meanwhile (a client's change ahead of it in the journal) wins.
            guard context.themes.tuned[key]?.generation == generation, composite.map(context.engine.composites.isRunningComposite) ?? true else {
                throw EngineError(.invalidPlan, "a theme's retune of \(what) was superseded")
            }
            // Applied after its journal write, frames later: on the retune's schedule from where the
            // property is now (`onSchedule`); the replay adds the record at the retune's time, so both end
            // together.
            var applied = continuing
            if let retunedAt, let now = context.engine.timelines.clock(ofRuntime: runtime), now - retunedAt.clock > 1e-9,
               let property = continuing["property"]?.stringValue {
                applied = Self.onSchedule(continuing, late: now - retunedAt.clock, retune: retunedAt.retune,
                                          value: context.engine.value(of: property, target: target, runtime: runtime),
                                          velocity: context.engine.velocity(of: property, target: target, runtime: runtime))
            }
            try context.engine.addPlan(applied, to: target, in: runtime, named: name, quotas: quotas)
            if composite != nil {
                context.themes.tuned[key] = carried
                context.themes.compositeRestarted(key)
            }
            return .null
        }
        if context.journal.isJournaled(runtime) {
            // Written at the time of the state it was carried on from (the last tick's): the replay adds it
            // there.
            // (A composite is carried on from its own progress, not a state: written now.)
            let wall = clock.wallNow(), sinceTick = retunedAt == nil ? 0 : context.ticks.lastTickAt.map { Double(clock.now() &- $0) / 1e9 } ?? 0
            let record = JournalRecord.add(runtime: runtime, target: target, plan: continuing, name: name,
                                           t: wall - min(max(0, sinceTick), 0.1), instant: engine.composition.instantMotion)
            if context.journal.isIdle {
                // Nothing of anyone's waits to be written: applied now, from the very state it was carried on
                // from, and written behind it (in order with what follows). The replay then does exactly
                // what clients saw; a crash in the milliseconds before the write lands loses the retune
                // (the plan replays as it was), nothing else. Applied only once written, it met the
                // property frames later (`onSchedule`).
                do throws(EngineError) { _ = try add(context) } catch { return }
                context.journal.applyJournaled([record]) { _ throws(EngineError) in .null }
            } else {
                context.journal.applyJournaled([record], apply: add)
            }
        } else {
            do throws(EngineError) { _ = try add(context) } catch {
                // Its plugin refused the new token's motion (a theme read from a file at start is not
                // tried as `theme.set` tries one): the plan goes on as it was.
                logger.warning("a theme's retune was refused; the plan goes on as it was",
                               metadata: ["runtime": "\(runtime)", "property": "\(what)", "error": "\(error.message)"])
            }
        }
    }
}
