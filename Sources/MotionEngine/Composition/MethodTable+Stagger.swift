import MotionWire

extension MethodTable {
    /// Targets one `plan.add {targets, stagger, plan}` may name. The request is applied in slices
    /// (`StaggerWork`), one journaled change: 1,000 plans took ~12 ms of the engine thread on AMD, and a
    /// second uid sending them back to back made 40 % of the ticks overrun; 256 take ~3 ms there, 14–20
    /// ms on an Intel Xeon.
    static let maximumStaggeredTargets = 256
    /// Bytes of plan a staggered `plan.add` may carry over all its targets (the plan's size × targets):
    /// each target is journaled with its own copy, and 256 copies of a 55 KB plan made one request write
    /// 14 MB (a second uid's flood grew the journal to 230 MB and froze others' frames for seconds).
    static let maximumStaggeredBytes = 1 << 20

    /// `plan.add {targets: [..], stagger: s, plan}` (docs/vocabulary.md): the plan on each target with `delay`
    /// i·s (added to its own), one performer per target, in one journaled change, applied in slices.
    func addStaggered(_ request: Request, _ params: Params, in session: Session) throws(EngineError) -> JSONValue? {
        guard params["target"] == nil, params["name"] == nil else {
            throw EngineError(.invalidRequest, "targets: give either target or targets (a staggered plan has no name)")
        }
        let name = try params.optionalName("runtime")
        let runtime = try context.runtimeKey(name, for: session, .change)
        guard let targets = try params.optionalStrings("targets"), !targets.isEmpty else {
            throw EngineError(.invalidRequest, "targets: expected 1 to \(Self.maximumStaggeredTargets) target names")
        }
        guard targets.count <= Self.maximumStaggeredTargets else {
            throw EngineError(.limitExceeded, "targets: \(targets.count) names; a staggered plan.add takes at most \(Self.maximumStaggeredTargets)")
        }
        for (index, target) in targets.enumerated() {
            try Params.check(name: target, "targets[\(index)]", maximumLength: Params.maximumNameLength)
        }
        let stagger = try params.optionalNumber("stagger") ?? 0
        guard stagger.isFinite, stagger >= 0, stagger * Double(targets.count) <= 3600 else {
            throw EngineError(.invalidRequest, "stagger: expected seconds ≥ 0 (at most an hour over all targets)")
        }
        var plan = try params.object("plan")
        if request.lineLength > EngineContext.maximumPlanBytes { try EngineContext.checkSize(of: plan) }
        let original = plan, uid = OwnedName.split(runtime).owner ?? session.uid
        let (resolved, used) = try context.themes.resolve(plan, for: uid)
        plan = resolved
        let planBytes = JSONWriter.bytes(plan).count
        guard planBytes * targets.count <= Self.maximumStaggeredBytes else {
            throw EngineError(.limitExceeded, "targets: \(targets.count) copies of a plan of \(planBytes) bytes; a staggered plan.add carries at most \(Self.maximumStaggeredBytes) bytes of plan over all its targets")
        }
        let base = plan["delay"]?.doubleValue ?? 0
        let plans = targets.indices.map { index -> JSONValue in
            var staggered = plan
            let delay = base + stagger * Double(index)
            if delay != base { staggered["delay"] = delay == 0 ? nil : .number(delay) }
            return staggered
        }
        var checked: [(factoryIndex: Int, planType: String)] = []
        for staggered in plans { checked.append(try engine.check(staggered)) }
        // Composites start all their plans too: 19 targets of a 1,000-plan Group were 19,000 plans in one
        // request (~90 ms without a frame, sent back to back by a second uid).
        let started = Composite.leafCount(of: plan) * targets.count
        guard started <= Self.maximumStaggeredTargets else {
            throw EngineError(.limitExceeded, "targets: \(targets.count) targets × \(started / targets.count) plans each; a staggered plan.add starts at most \(Self.maximumStaggeredTargets) plans")
        }
        let journaled = context.journal.willBeJournaled(runtime), shown = name ?? Engine.defaultRuntime
        let work = StaggerWork(runtime: runtime, shown: shown, targets: targets, plans: plans, checked: checked,
                               quotas: context.quotas(of: runtime), original: original, used: used, uid: uid)
        guard context.journal.takesPart(session, journaled: journaled) else {
            // Its key is remembered with the answer, once the last slice gives it.
            work.key = context.keys.current.map { IdempotencyKeys.Pair(uid: $0.uid, key: $0.key) }
            context.keys.current = nil
            context.dryRuns.perform(work, for: session, replyingTo: request.id)
            return nil
        }
        return try context.journal.orApply(session, id: request.id, journaled: journaled, record: {
            let now = clock.wallNow()
            return zip(targets, plans).map { .add(runtime: runtime, target: $0, plan: $1, name: nil, t: now, instant: engine.composition.instantMotion) }
        }, sliced: work)
    }
}
