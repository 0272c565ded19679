import MotionWire

/// Live retune (docs/themes.md#live-retune): when a token changes, every running animation
/// that used it goes on with the new values from its current value and velocity. The plans that can
/// (`PlanVocabulary.retunable`: a `Spring` without `from` continues from the property's state, a `Tween`
/// from its value and velocity for what is left of its new duration, a `Keyframes` likewise through the
/// values still ahead) are
/// remembered per property with the plan as written; a change re-resolves each and adds it again,
/// without `from`, `velocity` and `delay`, journaled as a client's change would be so that a restart's
/// replay reproduces it. Any later plan on the property, its plan's removal or its runtime's end
/// forgets it; a retune that finds it superseded by the time it applies is refused (and so not replayed).
extension Themes {
    /// One property's plan that used tokens.
    struct Tuned {
        let runtime: String, target: String, name: String?, uid: UInt32
        /// The runtime it was added to (one destroyed and made again under the name is another).
        let scope: ObjectIdentifier
        let original: JSONValue
        var resolved: JSONValue
        /// Which `planAdded` made it: a retune applies only while it is still this one.
        let generation: UInt64
        /// A timed plan's: its runtime's clock when the plan now running began, and that plan's duration
        /// and delay (after a retune, the rest of the way).
        var startClock = 0.0
        var runningDuration: Double?
        var runningDelay: Double?
        /// A repeating plan's: where its cycles began (its `from` when it has none: the property's value
        /// when it was added) and how many whole cycles earlier retunes have left behind.
        var start: [Double]?
        var cyclesDone = 0.0
        /// A loop whose curve or ends changed is bridged to the end of the way it was on
        /// (`loopBridge`): its runtime's clock when that bridge is over.
        var bridgeUntil: Double?
    }

    /// Properties remembered per uid at most (beyond, its plans are not retuned; docs/themes.md).
    static let maximumTunedPerUID = 1024

    /// A plan was added (as written, and as resolved with `used` tokens) to `target` of `runtime`:
    /// remembered if a retune can carry it on; the properties it drives are forgotten otherwise (a
    /// later plan took them over).
    func planAdded(original: JSONValue, resolved: JSONValue, used: Set<String>, runtime: String, target: String,
                   name: String?, uid: UInt32) {
        guard let property = resolved["property"]?.stringValue else {
            for property in Composite.properties(of: resolved) { forget(Self.key(runtime, target, property)) }
            return
        }
        let key = Self.key(runtime, target, property)
        forget(key)
        guard !used.isEmpty, let type = resolved["type"]?.stringValue, let retune = engine.vocabulary.retunable[type],
              let scope = engine.runtimes[runtime], (tunedPerUID[uid] ?? 0) < Self.maximumTunedPerUID
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
                           startClock: engine.clock(ofRuntime: runtime) ?? 0, start: start)
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

    /// A timed plan carried on with its new values: still in its delay, the rest of the delay and then the
    /// whole new plan; under way, from the property's value and velocity for the share of the new duration
    /// that the old plan had left (half-way through 0.4 s, retuned to 0.2 s: 0.1 s more).
    func carriedOn(_ entry: Tuned, _ plan: JSONValue, velocity: [Double], defaultDuration: Double, key: String) -> JSONValue {
        carriedOnWithProgress(entry, plan, velocity: velocity, defaultDuration: defaultDuration, key: key).plan
    }

    static func repeats(_ plan: JSONValue) -> Bool { plan["repeat"] != nil || plan["autoreverse"] != nil }

    /// A timed loop (`repeat`, `autoreverse`) carried on with its new values at the same phase: the cycles
    /// it has done are left behind (`repeat` counts the rest), and it starts that share of its new
    /// duration into the cycle under way (a negative `delay`), from where its cycles began. Its value goes
    /// on unbroken when the duration changes (a new curve or end moves it to the new cycle's value at that
    /// phase); nil when its cycles are over.
    func carriedOnInPhase(_ entry: Tuned, _ plan: JSONValue, defaultDuration: Double, key: String)
        -> (plan: JSONValue, phase: LoopPhase?)? {
        let clock = engine.clock(ofRuntime: entry.runtime) ?? entry.startClock
        let elapsed = max(0, clock - entry.startClock)
        let delay = entry.runningDelay ?? entry.resolved["delay"]?.doubleValue ?? 0
        let duration = entry.runningDuration ?? entry.resolved["duration"]?.doubleValue ?? defaultDuration
        let newDuration = plan["duration"]?.doubleValue ?? defaultDuration
        guard elapsed >= delay else {
            // Still waiting: the rest of the delay, then the whole new loop.
            tuned[key]?.startClock = clock
            tuned[key]?.runningDelay = delay - elapsed
            tuned[key]?.runningDuration = newDuration
            var continuing = plan
            continuing["delay"] = .number(delay - elapsed)
            return (continuing, nil)
        }
        guard duration > 0, newDuration > 0 else { return nil }
        // In durations: with `autoreverse` a cycle is there and back, two of them.
        let perCycle = plan["autoreverse"]?.boolValue == true ? 2.0 : 1.0
        let phase = (elapsed - delay) / duration
        let cycles = (phase / perCycle).rounded(.down)
        let done = entry.cyclesDone + cycles
        var continuing = plan
        let count = plan["repeat"]?.doubleValue ?? (plan["repeat"] == nil ? 1 : nil)
        if let count {
            guard count - done > 0 else { return nil }
            continuing["repeat"] = .number(count - done)
        }
        let inCycle = phase - cycles * perCycle
        let way = min(Int(inCycle), Int(perCycle) - 1)
        let along = inCycle * newDuration
        continuing["delay"] = along > 0 ? .number(-along) : nil
        continuing["velocity"] = nil
        if continuing["from"] == nil, let start = entry.start { continuing["from"] = JSONValue(start) }
        tuned[key]?.startClock = clock
        tuned[key]?.runningDelay = -along
        tuned[key]?.runningDuration = newDuration
        tuned[key]?.cyclesDone = done
        return (continuing, LoopPhase(way: way, wayDone: inCycle - Double(way), cyclesLeft: count.map { $0 - done },
                                      perCycle: perCycle, duration: newDuration))
    }

    /// A path (`Keyframes`) carried on as a timed plan is, from the property's `value`: its first value is
    /// where the property is, then the values still ahead, their `keyTimes` (and the timing of the
    /// segment under way and those after) over what is left.
    func carriedOnAlongPath(_ entry: Tuned, _ plan: JSONValue, value: [Double], velocity: [Double], defaultDuration: Double,
                            key: String) -> JSONValue {
        let (timed, done) = carriedOnWithProgress(entry, plan, velocity: velocity, defaultDuration: defaultDuration, key: key)
        guard let done, done < 1, let values = plan["values"]?.arrayValue, values.count >= 2 else { return timed }
        return Self.pathAhead(of: plan, from: value, done: done, into: timed) ?? timed
    }

    /// `into` going from `value` through the values of `plan`'s path still ahead at `done` (0–1), their
    /// `keyTimes` (and the timing of the segment under way and those after) over what is left; nil if the
    /// path is not one.
    static func pathAhead(of plan: JSONValue, from value: [Double], done: Double, into: JSONValue) -> JSONValue? {
        guard let values = plan["values"]?.arrayValue, values.count >= 2 else { return nil }
        let keyTimes = plan["keyTimes"]?.arrayValue?.compactMap(\.doubleValue)
            ?? values.indices.map { Double($0) / Double(values.count - 1) }
        guard keyTimes.count == values.count else { return nil }
        // The segment under way: the last that began at or before `done`.
        let segment = max(0, min(values.count - 2, (keyTimes.lastIndex { $0 <= done }) ?? 0))
        var continuing = into
        continuing["values"] = .array([JSONValue(value)] + values[(segment + 1)...])
        continuing["keyTimes"] = .array([.number(0)] + keyTimes[(segment + 1)...].map { .number(max(0, min(1, ($0 - done) / (1 - done)))) })
        if let each = plan["timing"]?.arrayValue, each.count == values.count - 1, each.first?.doubleValue == nil {
            continuing["timing"] = .array(Array(each[segment...]))
        }
        return continuing
    }

    /// `carriedOn`, and how far the old plan had come (0–1 of its duration; nil: still in its delay).
    private func carriedOnWithProgress(_ entry: Tuned, _ plan: JSONValue, velocity: [Double], defaultDuration: Double,
                                       key: String) -> (plan: JSONValue, done: Double?) {
        let clock = engine.clock(ofRuntime: entry.runtime) ?? entry.startClock
        let elapsed = max(0, clock - entry.startClock)
        let delay = entry.runningDelay ?? entry.resolved["delay"]?.doubleValue ?? 0
        let duration = entry.runningDuration ?? entry.resolved["duration"]?.doubleValue ?? defaultDuration
        let newDuration = plan["duration"]?.doubleValue ?? defaultDuration
        var continuing = plan
        tuned[key]?.startClock = clock
        if elapsed < delay {
            continuing["delay"] = .number(delay - elapsed)
            tuned[key]?.runningDelay = delay - elapsed
            tuned[key]?.runningDuration = newDuration
            return (continuing, nil)
        }
        let done = duration > 0 ? min(1, (elapsed - delay) / duration) : 1
        let remaining = newDuration * (1 - done)
        for key in ["from", "delay"] { continuing[key] = nil }
        continuing["velocity"] = JSONValue(velocity)
        continuing["duration"] = .number(remaining)
        tuned[key]?.runningDelay = 0
        tuned[key]?.runningDuration = remaining
        return (continuing, done)
    }

    static func key(_ runtime: String, _ target: String, _ property: String) -> String {
        runtime + "\u{0}" + target + "\u{0}" + property
    }

    /// Carries on every remembered plan of `uid` (nil: every uid's) whose tokens now resolve otherwise.
    /// Returns how many were added again.
    @discardableResult
    func retune(uid: UInt32?) -> Int {
        var retuned = 0
        for (key, entry) in tuned.sorted(by: { $0.key < $1.key }) where uid == nil || entry.uid == uid {
            guard let scope = engine.runtimes[entry.runtime], ObjectIdentifier(scope) == entry.scope,
                  engine.isActive(runtime: entry.runtime), let property = entry.resolved["property"]?.stringValue,
                  let velocity = engine.velocity(of: property, target: entry.target, runtime: entry.runtime),
                  let value = engine.value(of: property, target: entry.target, runtime: entry.runtime),
                  Self.repeats(entry.resolved) || velocity.contains(where: { $0 != 0 })
                    || JSONValue(value) != (entry.resolved["to"] ?? entry.resolved["values"]?.arrayValue?.last)
            else {
                forget(key)  // gone, or at rest: nothing to carry on
                continue
            }
            guard let (plan, _) = try? resolve(entry.original, for: entry.uid), plan != entry.resolved,
                  let type = plan["type"]?.stringValue, let retune = engine.vocabulary.retunable[type] else { continue }
            var continuing = plan
            switch retune {
            case .fromCurrentState:
                for key in ["from", "velocity", "delay"] { continuing[key] = nil }
            case .timed(let defaultDuration) where Self.repeats(plan), .path(let defaultDuration) where Self.repeats(plan):
                guard let (inPhase, phase) = carriedOnInPhase(entry, plan, defaultDuration: defaultDuration, key: key) else {
                    forget(key)
                    continue
                }
                continuing = inPhase
                // A new curve or end (or a bridge still under way): bridged to the end of the way it is on.
                let clock = engine.clock(ofRuntime: entry.runtime) ?? 0
                tuned[key]?.bridgeUntil = nil
                let isPath = if case .path = retune { true } else { false }
                if let phase, (entry.bridgeUntil ?? -.infinity) > clock || Self.withoutDuration(plan) != Self.withoutDuration(entry.resolved),
                   let bridged = loopBridge(entry, plan, phase, path: isPath, value: value, velocity: velocity) {
                    continuing = bridged
                    tuned[key]?.bridgeUntil = clock + (1 - phase.wayDone) * phase.duration
                }
            case .timed(let defaultDuration):
                continuing = carriedOn(entry, plan, velocity: velocity, defaultDuration: defaultDuration, key: key)
            case .path(let defaultDuration):
                continuing = carriedOnAlongPath(entry, plan, value: value, velocity: velocity, defaultDuration: defaultDuration, key: key)
            }
            tuned[key]?.resolved = plan
            let (runtime, target, name, generation) = (entry.runtime, entry.target, entry.name, entry.generation)
            let quotas = context.quotas(of: runtime)
            let add: (EngineContext) throws(EngineError) -> JSONValue = { context throws(EngineError) in
                // A plan added or removed meanwhile (a client's change ahead of it in the journal) wins.
                guard context.themes.tuned[key]?.generation == generation else {
                    throw EngineError(.invalidPlan, "a theme's retune of \(target).\(property) was superseded")
                }
                try context.engine.addPlan(continuing, to: target, in: runtime, named: name, quotas: quotas)
                return .null
            }
            if context.journal.isJournaled(runtime) {
                context.journal.applyJournaled([.add(runtime: runtime, target: target, plan: continuing, name: name,
                                                     t: clock.wallNow(), instant: engine.instantMotion)], apply: add)
            } else {
                _ = try? add(context)
            }
            retuned += 1
        }
        return retuned
    }
}
