import MotionWire

extension Engine {
    /// The performer for `factoryIndex` on `target` (made if there is none) after `deliver` handed it a
    /// plan. When a plugin refuses the first plan of a performer made for it, the request leaves nothing
    /// behind: the performer is destroyed unannounced (`performer.created` and what it traced about
    /// itself are dropped; what it did elsewhere, such as plans it emitted, stays and is traced), and a
    /// target made for it is forgotten (`isNewTarget`; not for a composite's leaf, whose composite is on
    /// the target), so `runtime.state`, `status` and the performer quota are as before.
    func undoingRefusal(of factoryIndex: Int, on target: TargetScope, isNewTarget: Bool, in scope: RuntimeScope,
                        deliver: (PerformerRecord) throws(EngineError) -> Void) throws(EngineError) -> PerformerRecord {
        if let existing = target.performers[factoryIndex] {
            try deliver(existing)
            return existing
        }
        let outermost = reports.heldTraces == nil
        if outermost { reports.heldTraces = [] }
        let mark = reports.heldTraces!.count
        defer {
            if outermost {
                let events = reports.heldTraces ?? []
                reports.heldTraces = nil
                for event in events { trace(event) }
            }
        }
        do {
            let performer = try performer(for: factoryIndex, on: target, in: scope)
            try deliver(performer)
            return performer
        } catch {
            if let made = target.performers[factoryIndex] {
                let own = JSONValue.number(Double(made.id))
                reports.heldTraces = Array(reports.heldTraces![..<mark]) + reports.heldTraces![mark...].filter { $0.fields["performer"] != own }
                abandon(made, on: target, in: scope)
            }
            if isNewTarget, target.performers.isEmpty, scope.targets[target.name] === target {
                removeTarget(target.name, in: scope.name, announcing: false)
            }
            throw error
        }
    }

    /// Destroys a performer that never took a plan.
    private func abandon(_ performer: PerformerRecord, on target: TargetScope, in scope: RuntimeScope) {
        let held = performer.tokens.count
        stopAdvancing(performer)
        destroyInstance(performer)
        releaseCharges(of: performer)
        scope.activeTokens -= held
        performer.tokens.removeAll()
        performers[performer.id] = nil
        target.performers[performer.factoryIndex] = nil
        target.named = target.named.filter { $0.value !== performer }
        scope.performerCount -= 1
        if let uid = scope.owner { ledger.usage[uid, default: Usage()].performers -= 1 }
        // Properties it claimed go back to no one (an earlier animator's end was traced as usual).
        for handle in target.properties.values where Int(handle) < animators.count && animators[Int(handle)] === performer {
            animators[Int(handle)] = nil
        }
        if held > 0, scope.activeTokens == 0 { trace(TraceEvent(kind: "runtime.idle", runtime: scope.name)) }
    }
}
