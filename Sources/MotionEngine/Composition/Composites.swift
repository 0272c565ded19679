import MotionWire

/// Sequences and Groups, a room of the engine (docs/architecture.md): made when needed
/// (`Engine.composites`), its state the engine's (`CompositionState`).
struct Composites {
    unowned let engine: Engine

    /// Starts a `Sequence` or `Group` that `check` accepted; returns the performer of its first leaf.
    func addComposite(_ plan: JSONValue, kind: Composite.Kind, to target: String, in scope: RuntimeScope,
                      quotas: Quotas?) throws(EngineError) -> UInt64 {
        engine.composition.lastPerformer = 0
        // A client's composite starts within its uid's budget too (a Group of 250 springs took ~10 ms on an
        // Intel Xeon): the plans past it start the next frames, as far along as they would be.
        let outer = engine.composition.stepDeadline
        if outer == nil, scope.owner != nil, engine.spread.compositeNanosPerUID != .max {
            engine.composition.stepDeadline = WorkClock.now() &+ engine.spread.compositeNanosPerUID
        }
        defer { engine.composition.stepDeadline = outer }
        _ = try start(plan, kind: kind, target: target, in: scope, parent: nil, late: 0, quotas: quotas)
        return engine.composition.lastPerformer
    }

    /// Nanoseconds a uid's composites may spend (`compositeNanosPerUID`, this by default) starting their next steps in one drain. A thousand
    /// `Sequence`s of a tween then 255 `Set`s, whose tweens all ended at one tick, started 255,000 plans
    /// in it (~600 ms without a frame for everyone); past the budget a uid's ends wait for the next
    /// frame, `late` by that frame's time, so the steps they start are as far along as ever. The budget
    /// holds inside one Sequence too: its 255 `Set`s took ~10 ms on an Intel Xeon, past it they go on next frame.
    static let defaultCompositeNanosPerUID: UInt64 = 1_000_000

    /// Hands the ends traced so far to their composites (which may start their next steps), within each
    /// uid's `compositeNanosPerUID` (the daemon's own, dry runs included, are not counted).
    func drainCompositeEnds() {
        guard !engine.composition.isDraining, !engine.composition.ends.isEmpty, engine.cycle.emitDepth == 0, engine.cycle.phase == .control else { return }
        engine.composition.isDraining = true
        defer { engine.composition.isDraining = false }
        var carried: [CompositionState.End] = []
        var spent: [UInt32: UInt64] = [:]
        var index = 0
        while index < engine.composition.ends.count {
            let end = engine.composition.ends[index]
            index += 1
            guard let owner = engine.composition.composites[end.composite].flatMap({ engine.runtimes[$0.runtime]?.owner }) else {
                childEnded(end.composite, reason: end.reason, late: end.late)
                continue
            }
            if spent[owner, default: 0] >= engine.spread.compositeNanosPerUID {
                carried.append(end)
                continue
            }
            let began = WorkClock.now()
            engine.composition.stepDeadline = engine.spread.compositeNanosPerUID == .max ? nil : began &+ (engine.spread.compositeNanosPerUID - spent[owner, default: 0])
            childEnded(end.composite, reason: end.reason, late: end.late)
            engine.composition.stepDeadline = nil
            spent[owner, default: 0] &+= WorkClock.now() &- began
        }
        engine.composition.ends = carried
    }

    /// The last composite a plan started, and whether a composite still runs (`Themes+Composites`).
    var lastCompositeID: UInt64 { engine.composition.lastComposite }
    /// (One of whose plans was interrupted, by a client's plan on its property, is not: it is no longer
    /// the composite's to carry on.)
    func isRunningComposite(_ id: UInt64) -> Bool { engine.composition.composites[id].map { !$0.interrupted } ?? false }

    /// Ends that waited for this frame (their uid's budget was spent) are `dt` later.
    func ageCarriedEnds(by dt: Double) {
        for index in engine.composition.ends.indices { engine.composition.ends[index].late += dt }
    }

    /// Whether composite ends wait for the next frame: the clock must run until they are handed over.
    var hasCarriedCompositeEnds: Bool { !engine.composition.ends.isEmpty }

    /// An `animation.ended` a performer traced: the end of a composite's leaf, if one waits on it.
    func leafTraced(ended fields: [String: JSONValue], by performer: PerformerRecord) {
        guard case .string(let property)? = fields["property"], case .string(let reason)? = fields["reason"] else { return }
        let leaf = CompositionState.Leaf(runtime: performer.runtime.name, target: performer.target.name, property: property)
        let late = fields["late"]?.doubleValue ?? 0, name = fields["name"]?.stringValue
        if engine.composition.delivering == leaf, reason == "finished", engine.composition.deliveringName == nil || name == engine.composition.deliveringName {
            engine.composition.deliveredEnd = (reason, late)
            return
        }
        guard let wait = engine.composition.waits[leaf], wait.name == nil || wait.name == name else { return }
        engine.composition.waits.remove(leaf)
        engine.composition.ends.append(.init(composite: wait.composite, reason: reason, late: late))
    }

    /// A performer released its last token: leaves it ran that never traced their end (a plugin that
    /// does not trace `animation.ended`) are taken as finished.
    func leafPerformerIdle(_ performer: PerformerRecord) {
        for wait in engine.composition.waits.removeAll(ofPerformer: performer.id, in: performer.runtime.name) {
            engine.composition.ends.append(.init(composite: wait.composite, reason: "finished", late: 0))
        }
    }

    /// Forgets the composites of a target that ends (they end `interrupted`, releasing their hold on
    /// the runtime). A runtime destroyed takes its composites away whole (`retireComposites`).
    func dropComposites(of runtime: String, target: String) {
        for composite in engine.composition.composites.removeAll(inRuntime: runtime, target: target) {
            guard let scope = engine.runtimes[runtime] else { continue }
            scope.activeTokens = max(scope.activeTokens - 1, 0)
            engine.trace(TraceEvent(kind: "animation.ended", runtime: runtime, target: composite.target, fields: [
                "planType": .string(composite.kind.rawValue), "reason": "interrupted", "composite": .number(Double(composite.id))]))
        }
        engine.composition.waits.removeAll(inRuntime: runtime, target: target)
        engine.composition.ends.removeAll { engine.composition.composites[$0.composite] == nil }
    }

    /// Takes a destroyed runtime's composites and the leaves they wait on out of reach at once (its ends
    /// queued for a later frame included); returns what is left to free (`RuntimeTeardown`).
    func retireComposites(of runtime: String) -> (composites: [Set<UInt64>], waits: CompositionState.RuntimeWaits?) {
        let waits = engine.composition.waits.detach(runtime: runtime)
        guard !engine.composition.composites.isEmpty else { return ([], waits) }
        let composites = engine.composition.composites.detach(runtime: runtime)
        if !engine.composition.ends.isEmpty {
            engine.composition.ends.removeAll { engine.composition.composites[$0.composite]?.runtime == runtime }
        }
        return (composites, waits)
    }

    // MARK: Running

    /// Starts a composite; returns how late it ended if it ended at once, nil while it runs.
    private func start(_ plan: JSONValue, kind: Composite.Kind, target: String, in scope: RuntimeScope, parent: UInt64?,
                       late: Double, quotas: Quotas?) throws(EngineError) -> Double? {
        let composite = Composite(id: engine.composition.nextID, kind: kind, children: Composite.inherited(plan),
                                  runtime: scope.name, target: target, parent: parent, quotas: quotas)
        engine.composition.nextID += 1
        engine.composition.composites.insert(composite)
        if let parent, let outer = engine.composition.composites[parent] {
            outer.childIDs[outer.next - 1] = composite.id
        } else if parent == nil {
            engine.composition.lastComposite = composite.id
        }
        scope.activeTokens += 1
        if scope.activeTokens == 1 { engine.trace(TraceEvent(kind: "runtime.active", runtime: scope.name)) }
        composite.isLaunching = true
        defer { composite.isLaunching = false }
        switch kind {
        case .sequence:
            try runSequence(composite, late: late, quotas: quotas, throwing: parent == nil)
        case .group:
            try launchGroup(composite, late: late, quotas: quotas, throwing: parent == nil)
        }
        return engine.composition.composites[composite.id] == nil ? composite.endedLate : nil
    }

    /// Starts the Group's plans from `next`, all `late` along; ends it if none keeps running. Past the
    /// drain's or the request's deadline the rest wait for the next frame: a `resume` end stands for them
    /// (it counts as running) and comes back `late` by that frame, so they start as far along as ever.
    private func launchGroup(_ composite: Composite, late: Double, quotas: Quotas?, throwing: Bool = false) throws(EngineError) {
        var lastLate = late
        composite.stepStartedAt = (engine.timelines.clock(ofRuntime: composite.runtime) ?? 0) - late
        while composite.next < composite.children.count {
            let child = composite.children[composite.next]
            composite.next += 1
            do throws(EngineError) {
                if let ended = try launch(child, in: composite, late: late, quotas: quotas) {
                    lastLate = ended
                } else {
                    composite.running += 1
                }
            } catch {
                composite.interrupted = true
                if throwing, composite.running == 0 {
                    end(composite, late: late)
                    throw error
                }
            }
            if composite.next < composite.children.count, let deadline = engine.composition.stepDeadline, WorkClock.now() >= deadline {
                composite.running += 1
                engine.composition.ends.append(.init(composite: composite.id, reason: Self.resumeReason, late: late))
                return
            }
        }
        if composite.running == 0 { end(composite, late: lastLate) }
    }

    /// The reason of a carried end that stands for a Group's plans still to start.
    static let resumeReason = "motiond.resume"

    /// Starts the Sequence's next steps until one keeps running; ends it after its last.
    private func runSequence(_ composite: Composite, late: Double, quotas: Quotas? = nil,
                             throwing: Bool = false) throws(EngineError) {
        var late = late
        while composite.next < composite.children.count {
            let child = composite.children[composite.next]
            composite.next += 1
            composite.stepStartedAt = (engine.timelines.clock(ofRuntime: composite.runtime) ?? 0) - late
            do throws(EngineError) {
                guard let ended = try launch(child, in: composite, late: late, quotas: quotas) else {
                    composite.running = 1
                    return
                }
                late = ended
                // Steps that end at once (255 `Set`s) within a drain: past the uid's budget the rest
                // start next frame, as if the step just started had ended then (`late` grows by the frame).
                if composite.next < composite.children.count, let deadline = engine.composition.stepDeadline, WorkClock.now() >= deadline {
                    composite.running = 1
                    engine.composition.ends.append(.init(composite: composite.id, reason: "finished", late: late))
                    return
                }
            } catch {
                composite.interrupted = true
                end(composite, late: late)
                if throwing && composite.next == 1 { throw error }
                return
            }
        }
        end(composite, late: late)
    }

    /// Starts one child `late` seconds along; returns how late it ended if it ended at once.
    private func launch(_ child: JSONValue, in composite: Composite, late: Double,
                        quotas: Quotas?) throws(EngineError) -> Double? {
        guard let scope = engine.runtimes[composite.runtime] else { throw EngineError(.runtimeNotFound, "runtime: gone") }
        if let kind = Composite.kind(of: child) {
            return try start(child, kind: kind, target: composite.target, in: scope, parent: composite.id, late: late,
                             quotas: quotas)
        }
        let plan = Composite.delayed(child, by: -late)
        let leaf = CompositionState.Leaf(runtime: scope.name, target: composite.target,
                                         property: plan["property"]?.stringValue ?? "")
        // A performer may add a composite while it handles a leaf (emit_plan): the outer leaf's capture
        // is kept aside meanwhile.
        let outer = (engine.composition.delivering, engine.composition.deliveringName, engine.composition.deliveredEnd)
        let name = "motiond.leaf.\(engine.composition.nextLeaf)"
        engine.composition.nextLeaf += 1
        engine.composition.delivering = leaf
        engine.composition.deliveredEnd = nil
        defer { (engine.composition.delivering, engine.composition.deliveringName, engine.composition.deliveredEnd) = outer }
        let performer = try engine.deliverLeaf(plan, to: composite.target, in: scope, quotas: quotas) { performer in
            engine.composition.deliveringName = performer.table.pointee.add_named_plan == nil ? nil : name
            return engine.composition.deliveringName
        }
        engine.composition.lastPerformer = engine.composition.lastPerformer == 0 ? performer.id : engine.composition.lastPerformer
        if let ended = engine.composition.deliveredEnd { return ended.late }
        // A plan that never animates (a `Set`) has ended once it is delivered.
        guard performer.isContinuous, !performer.tokens.isEmpty else { return late }
        if let previous = engine.composition.waits[leaf] {
            engine.composition.ends.append(.init(composite: previous.composite, reason: "interrupted", late: 0))
        }
        engine.composition.waits.set(leaf, .init(composite: composite.id, performer: performer.id, name: engine.composition.deliveringName))
        return nil
    }

    private func childEnded(_ id: UInt64, reason: String, late: Double) {
        guard let composite = engine.composition.composites[id] else { return }
        composite.running -= 1
        if reason == Self.resumeReason {
            try? launchGroup(composite, late: late, quotas: composite.quotas)
            return
        }
        if reason != "finished" { composite.interrupted = true }
        switch composite.kind {
        case .sequence:
            if composite.interrupted {
                end(composite, late: late)
            } else {
                try? runSequence(composite, late: late, quotas: composite.quotas)
            }
        case .group:
            if composite.running <= 0 { end(composite, late: late) }
        }
    }

    private func end(_ composite: Composite, late: Double) {
        guard engine.composition.composites.remove(composite.id) != nil else { return }
        composite.endedLate = late
        let reason = composite.interrupted ? "interrupted" : "finished"
        var fields: [String: JSONValue] = [
            "planType": .string(composite.kind.rawValue), "reason": .string(reason), "composite": .number(Double(composite.id)),
        ]
        if let property = composite.property { fields["property"] = .string(property) }
        if late > 0 { fields["late"] = .number(late) }
        engine.trace(TraceEvent(kind: "animation.ended", runtime: composite.runtime, target: composite.target, fields: fields))
        if let scope = engine.runtimes[composite.runtime], scope.activeTokens > 0 {
            scope.activeTokens -= 1
            if scope.activeTokens == 0 { engine.trace(TraceEvent(kind: "runtime.idle", runtime: scope.name)) }
        }
        // A composite that ends while its parent launches it is answered by `start`'s return value.
        if let parent = composite.parent, !composite.isLaunching {
            childEnded(parent, reason: reason, late: late)
        }
    }
}
