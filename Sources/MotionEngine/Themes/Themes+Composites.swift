import MotionWire

/// A running `Sequence` or `Group` that used tokens, retuned (docs/themes.md#live-retune): added again as
/// a composite of what is left of it, each step under way carried on as a plan run alone would be
/// (`Themes+Carry`), a Sequence's later steps as now resolved, a Group's ended plans left out. The new
/// composite takes the old one's place (its leaves take over their properties, so the old one ends
/// `interrupted`) and is remembered in its place, with the progress of the steps it carried on.
extension Themes {
    static func compositeKey(_ runtime: String, _ target: String, _ id: UInt64) -> String {
        key(runtime, target, "\u{1}\(id)")
    }

    /// A composite was added with tokens: remembered under the composite now running it.
    func compositeAdded(_ original: JSONValue, _ resolved: JSONValue, _ runtime: String, _ target: String, _ name: String?,
                        _ uid: UInt32) {
        let id = engine.composites.lastCompositeID
        guard engine.composites.isRunningComposite(id), let scope = engine.runtimes[runtime] else { return }
        guard hasRoom(for: uid) else { return }
        tunedGeneration += 1
        tuned[Self.compositeKey(runtime, target, id)] = Tuned(
            runtime: runtime, target: target, name: name, uid: uid, scope: ObjectIdentifier(scope), original: original,
            resolved: resolved, generation: tunedGeneration, progress: Progress(startClock: engine.timelines.clock(ofRuntime: runtime) ?? 0),
            composite: id)
        tunedPerUID[uid, default: 0] += 1
    }

    /// Whether `uid` may have one more plan remembered; at the limit, its composites that have ended
    /// since are forgotten first (a composite's end is not announced to the themes: found when looked for).
    func hasRoom(for uid: UInt32) -> Bool {
        guard (tunedPerUID[uid] ?? 0) >= Self.maximumTunedPerUID else { return true }
        for (key, entry) in tuned where entry.uid == uid {
            if let composite = entry.composite, !engine.composites.isRunningComposite(composite) { forget(key) }
        }
        return (tunedPerUID[uid] ?? 0) < Self.maximumTunedPerUID
    }

    /// The composite a retune added in place of the one under `key`: remembered under it.
    func compositeRestarted(_ key: String) {
        guard var entry = tuned[key] else { return }
        forget(key)
        let id = engine.composites.lastCompositeID
        guard engine.composites.isRunningComposite(id) else { return }
        entry.composite = id
        tuned[Self.compositeKey(entry.runtime, entry.target, id)] = entry
        tunedPerUID[entry.uid, default: 0] += 1
    }

    /// The composite of `entry`, whose plan now resolves as `plan`, carried on; `entry` then describes
    /// the composite added in its place. Nil when it cannot be (a step under way of a type that cannot be
    /// carried on, a loop without `from` in it, steps waiting for the next frame to start).
    func carriedOnComposite(_ entry: inout Tuned, as plan: JSONValue) -> JSONValue? {
        guard let id = entry.composite, let clock = engine.timelines.clock(ofRuntime: entry.runtime) else { return nil }
        var progress: [[Int]: Progress] = [:]
        guard let carried = carryOn(composite: id, old: entry.resolved, new: plan, written: entry.original, at: [], to: [],
                                    entry: entry, clock: clock, progress: &progress) else { return nil }
        entry.original = carried.written
        entry.resolved = carried.resolved
        entry.children = progress
        return carried.plan
    }

    /// One composite (nested ones too): the plan that carries it on, and the same as written and as resolved
    /// (whole steps, for the next retune). `old` and `from` place it in the running composite, `to` in the new one.
    private func carryOn(composite id: UInt64, old: JSONValue, new: JSONValue, written: JSONValue, at from: [Int], to: [Int],
                         entry: Tuned, clock: Double, progress: inout [[Int]: Progress])
        -> (plan: JSONValue, written: JSONValue, resolved: JSONValue)? {
        let composition = engine.composition
        guard let composite = composition.composites[id], !composite.interrupted, Composite.kind(of: new) == composite.kind,
              !composition.ends.contains(where: { $0.composite == id }) else { return nil }
        var withDelay = written
        withDelay["delay"] = new["delay"]
        let olds = Composite.inherited(old), news = Composite.inherited(new), writtens = Composite.inherited(withDelay)
        guard olds.count == composite.children.count, news.count == olds.count, writtens.count == olds.count else { return nil }
        let running: [Int]
        switch composite.kind {
        case .sequence:
            guard composite.running == 1, composite.next >= 1 else { return nil }
            running = [composite.next - 1]
        case .group:
            running = olds.indices.filter { index in
                if Composite.kind(of: olds[index]) != nil {
                    return composite.childIDs[index].map(engine.composites.isRunningComposite) ?? false
                }
                let leaf = CompositionState.Leaf(runtime: composite.runtime, target: composite.target,
                                                 property: olds[index]["property"]?.stringValue ?? "")
                // Its own leaf, or a loop an earlier retune bridged (a `Sequence` in its place).
                guard let waiting = composition.waits[leaf]?.composite else { return false }
                return waiting == id || composite.childIDs[index] == waiting
            }
        }
        var plans: [JSONValue] = [], writtenSteps: [JSONValue] = [], resolvedSteps: [JSONValue] = []
        for index in running {
            let place = to + [plans.count]
            if Composite.kind(of: olds[index]) != nil {
                guard let child = composite.childIDs[index],
                      let carried = carryOn(composite: child, old: olds[index], new: news[index], written: writtens[index],
                                            at: from + [index], to: place, entry: entry, clock: clock, progress: &progress)
                else { return nil }
                plans.append(carried.plan)
                writtenSteps.append(carried.written)
                resolvedSteps.append(carried.resolved)
                continue
            }
            guard let property = olds[index]["property"]?.stringValue, let type = news[index]["type"]?.stringValue,
                  let retune = engine.vocabulary.retunable[type],
                  let value = engine.value(of: property, target: composite.target, runtime: composite.runtime),
                  let velocity = engine.velocity(of: property, target: composite.target, runtime: composite.runtime)
            else { return nil }
            var step = entry.children[from + [index]] ?? Progress(startClock: composite.stepStartedAt)
            // A loop without `from` began where its property was when the step started: not known here.
            if case .timed = retune, Self.repeats(news[index]), news[index]["from"] == nil, step.start == nil { return nil }
            guard let carried = carriedOn(&step, from: olds[index], to: news[index], retune: retune, value: value,
                                          velocity: velocity, clock: clock, canBridge: true) else { return nil }
            progress[place] = step
            plans.append(carried)
            writtenSteps.append(writtens[index])
            resolvedSteps.append(news[index])
        }
        if composite.kind == .sequence, let current = running.first, current + 1 < news.count {
            plans += news[(current + 1)...]
            writtenSteps += writtens[(current + 1)...]
            resolvedSteps += news[(current + 1)...]
        }
        guard !plans.isEmpty else { return nil }
        let list = composite.kind == .sequence ? "steps" : "plans"
        let kind = JSONValue.string(composite.kind.rawValue)
        func make(_ children: [JSONValue]) -> JSONValue { ["type": kind, list: .array(children)] }
        return (make(plans), make(writtenSteps), make(resolvedSteps))
    }
}
