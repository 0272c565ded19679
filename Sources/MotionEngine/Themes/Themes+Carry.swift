import MotionWire

/// How one running plan is carried on with its tokens' new values (docs/themes.md#live-retune): a plan
/// that goes on from the property's state (`Spring`) without `from`; a timed one from its value and
/// velocity for its share of the new duration; a path through its values still ahead; a loop in phase, or
/// bridged when its curve changed (`Themes+Loops`). A plan run alone and a composite's step alike.
extension Themes {
    /// How far a running plan has come, in its runtime's clock.
    struct Progress {
        /// When the plan now running began, and its duration and delay (after a retune, the rest of the way).
        var startClock: Double
        var runningDuration: Double?
        var runningDelay: Double?
        /// The share (0–1) of the plan as written that earlier retunes left behind.
        var doneBefore = 0.0
        /// A loop's: where its cycles began (its `from` when it has none: the property's value when it
        /// was added), how many whole cycles earlier retunes left behind, and when a bridge (`loopBridge`)
        /// is over.
        var start: [Double]?
        var cyclesDone = 0.0
        var bridgeUntil: Double?
    }

    static func repeats(_ plan: JSONValue) -> Bool { plan["repeat"] != nil || plan["autoreverse"] != nil }

    /// The running plan `old` (as resolved before), at `progress`, carried on as `plan` (as resolved now);
    /// nil when a loop's cycles are over. A loop is bridged only if it `canBridge` (a named plan cannot
    /// be a `Sequence`: it moves to its new curve in phase).
    func carriedOn(_ progress: inout Progress, from old: JSONValue, to plan: JSONValue, retune: PlanVocabulary.Retune,
                   value: [Double], velocity: [Double], clock: Double, canBridge: Bool) -> JSONValue? {
        switch retune {
        case .fromCurrentState:
            let elapsed = max(0, clock - progress.startClock)
            let delay = progress.runningDelay ?? old["delay"]?.doubleValue ?? 0
            var continuing = plan
            progress.startClock = clock
            guard elapsed >= delay else {
                // Still waiting (a composite's step): the rest of the delay, from where it would have begun.
                continuing["delay"] = .number(delay - elapsed)
                progress.runningDelay = delay - elapsed
                return continuing
            }
            for key in ["from", "velocity", "delay"] { continuing[key] = nil }
            progress.runningDelay = 0
            return continuing
        case .timed(let defaultDuration) where Self.repeats(plan), .path(let defaultDuration) where Self.repeats(plan):
            let before = progress
            guard let (inPhase, phase) = carriedOnInPhase(&progress, from: old, to: plan, defaultDuration: defaultDuration,
                                                          clock: clock) else { return nil }
            // A new curve or end (or a bridge still under way): bridged to the end of the way it is on.
            progress.bridgeUntil = nil
            let isPath = if case .path = retune { true } else { false }
            if canBridge, let phase, (before.bridgeUntil ?? -.infinity) > clock || Self.shape(of: plan) != Self.shape(of: old),
               let bridged = loopBridge(plan, phase, start: progress.start, path: isPath, value: value, velocity: velocity) {
                progress.bridgeUntil = clock + (1 - phase.wayDone) * phase.duration
                return bridged
            }
            return inPhase
        case .timed(let defaultDuration):
            return carriedOnWithProgress(&progress, from: old, to: plan, velocity: velocity, defaultDuration: defaultDuration,
                                         clock: clock).plan
        case .path(let defaultDuration):
            let (timed, done) = carriedOnWithProgress(&progress, from: old, to: plan, velocity: velocity,
                                                      defaultDuration: defaultDuration, clock: clock)
            guard let done, done < 1 else { return timed }
            return Self.pathAhead(of: plan, from: value, done: done, into: timed) ?? timed
        }
    }

    /// A timed loop (`repeat`, `autoreverse`) carried on with its new values at the same phase: the cycles
    /// it has done are left behind (`repeat` counts the rest), and it starts that share of its new
    /// duration into the cycle under way (a negative `delay`), from where its cycles began; and where it
    /// is (nil: still in its delay). Nil when its cycles are over.
    private func carriedOnInPhase(_ progress: inout Progress, from old: JSONValue, to plan: JSONValue, defaultDuration: Double,
                                  clock: Double) -> (plan: JSONValue, phase: LoopPhase?)? {
        let elapsed = max(0, clock - progress.startClock)
        let delay = progress.runningDelay ?? old["delay"]?.doubleValue ?? 0
        let duration = progress.runningDuration ?? old["duration"]?.doubleValue ?? defaultDuration
        let newDuration = plan["duration"]?.doubleValue ?? defaultDuration
        progress.startClock = clock
        guard elapsed >= delay else {
            // Still waiting: the rest of the delay, then the whole new loop.
            progress.runningDelay = delay - elapsed
            progress.runningDuration = newDuration
            var continuing = plan
            continuing["delay"] = .number(delay - elapsed)
            return (continuing, nil)
        }
        guard duration > 0, newDuration > 0 else { return nil }
        // In durations: with `autoreverse` a cycle is there and back, two of them.
        let perCycle = plan["autoreverse"]?.boolValue == true ? 2.0 : 1.0
        let phase = (elapsed - delay) / duration
        let cycles = (phase / perCycle).rounded(.down)
        let done = progress.cyclesDone + cycles
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
        if continuing["from"] == nil, let start = progress.start { continuing["from"] = JSONValue(start) }
        progress.runningDelay = -along
        progress.runningDuration = newDuration
        progress.cyclesDone = done
        return (continuing, LoopPhase(way: way, wayDone: inCycle - Double(way), cyclesLeft: count.map { $0 - done },
                                      perCycle: perCycle, duration: newDuration))
    }

    /// A timed plan carried on with its new values: still in its delay, the rest of the delay and then the
    /// whole new plan; under way, from the property's value and velocity for the share of the new duration
    /// that the old plan had left (half-way through 0.4 s, retuned to 0.2 s: 0.1 s more); and how far the
    /// plan as written had come (0–1; nil: still in its delay).
    private func carriedOnWithProgress(_ progress: inout Progress, from old: JSONValue, to plan: JSONValue, velocity: [Double],
                                       defaultDuration: Double, clock: Double) -> (plan: JSONValue, done: Double?) {
        let elapsed = max(0, clock - progress.startClock)
        let delay = progress.runningDelay ?? old["delay"]?.doubleValue ?? 0
        let duration = progress.runningDuration ?? old["duration"]?.doubleValue ?? defaultDuration
        let newDuration = plan["duration"]?.doubleValue ?? defaultDuration
        var continuing = plan
        progress.startClock = clock
        if elapsed < delay {
            continuing["delay"] = .number(delay - elapsed)
            progress.runningDelay = delay - elapsed
            progress.runningDuration = newDuration * (1 - progress.doneBefore)
            return (continuing, nil)
        }
        // The running piece is what earlier retunes left of the plan: its share of the whole counts.
        let piece = duration > 0 ? min(1, (elapsed - delay) / duration) : 1
        let done = progress.doneBefore + (1 - progress.doneBefore) * piece
        let remaining = newDuration * (1 - done)
        for key in ["from", "delay"] { continuing[key] = nil }
        continuing["velocity"] = JSONValue(velocity)
        continuing["duration"] = .number(remaining)
        progress.runningDelay = 0
        progress.runningDuration = remaining
        progress.doneBefore = done
        return (continuing, done)
    }

    /// A path's `keyTimes`, or its `count` values spread evenly.
    static func keyTimes(of plan: JSONValue, count: Int) -> [Double] {
        plan["keyTimes"]?.arrayValue?.compactMap(\.doubleValue) ?? (0..<count).map { Double($0) / Double(count - 1) }
    }

    /// `into` going from `value` through the values of `plan`'s path still ahead at `done` (0–1), their
    /// `keyTimes` (and the timing of the segment under way and those after) over what is left; nil if the
    /// path is not one.
    static func pathAhead(of plan: JSONValue, from value: [Double], done: Double, into: JSONValue) -> JSONValue? {
        guard let values = plan["values"]?.arrayValue, values.count >= 2 else { return nil }
        let keyTimes = keyTimes(of: plan, count: values.count)
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
}
