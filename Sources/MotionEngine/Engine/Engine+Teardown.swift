import MotionWire

/// A destroyed runtime, gone at once for everyone (its name free, its performers stopped, its properties
/// out of sight) and freed in slices between ticks (docs/protocol.md: bounded work per tick): destroying one of
/// 100,000 springs in one go held the engine thread 150 ms, every other client's frames with it.
final class RuntimeTeardown {
    let scope: RuntimeScope
    var waits: CompositionState.RuntimeWaits?
    var composites: [Set<UInt64>]
    var properties: PropertyStore.Retired?

    init(scope: RuntimeScope, waits: CompositionState.RuntimeWaits?, composites: [Set<UInt64>],
         properties: PropertyStore.Retired?) {
        self.scope = scope
        self.waits = waits
        self.composites = composites
        self.properties = properties
    }

    /// What is left to free, roughly in steps of equal cost.
    var size: Int {
        scope.targetOrder.count + scope.performerCount + composites.reduce(0) { $0 + $1.count } + (properties?.remaining ?? 0)
    }
}

extension Engine {
    /// A teardown this small is done inside the request that destroys the runtime.
    static let inlineTeardownSize = 4096

    /// Whether destroyed runtimes are still being freed: the clock runs until they are.
    package var hasTeardowns: Bool { !spread.teardowns.isEmpty }

    /// The performer a plugin's call names, nil once its runtime is destroyed: until a destroyed runtime's
    /// performers are freed they may still be advanced, and what they ask for then goes nowhere (their
    /// writes are dropped too: their properties are not writable).
    func performer(calling id: UInt64) -> PerformerRecord? {
        guard let performer = performers[id], !performer.runtime.isClosing else { return nil }
        return performer
    }

    /// Makes `scope` (already out of `runtimes`) gone for everyone now, in O(its properties), a few ns
    /// each, without a look at its targets or performers (at ~0.5 µs each, 50,000 of them held the
    /// engine thread 27 ms): its performers' calls go nowhere (`performer(calling:)`), its composites and
    /// their leaves leave every table found by name, its properties go out of sight. Swaps and
    /// migration samples pass over its performers (`isClosing`); the rest is freed by `continueTeardowns`.
    /// `dirtySince`: a `PropertyStore.dirtyMark` from before the runtime's first write (its properties
    /// are then looked for only among the writes since).
    func retire(_ scope: RuntimeScope, dirtySince: Int = 0) {
        scope.isClosing = true
        scope.activeTokens = 0
        let (retired, waits) = self.composites.retireComposites(of: scope.name)
        let properties = store.retire(runtime: scope.name, dirtySince: dirtySince)
        for handle in properties?.handles ?? [] where Int(handle) < animators.count { animators[Int(handle)] = nil }
        gestures.forgetGestures(of: scope)
        let teardown = RuntimeTeardown(scope: scope, waits: waits, composites: retired, properties: properties)
        if teardown.size <= Self.inlineTeardownSize {
            _ = free(teardown, until: .max)
        } else {
            spread.teardowns.append(teardown)
        }
    }

    /// Frees destroyed runtimes until the monotonic clock passes `deadline`, taking uids in turn (one uid
    /// destroying large runtimes again and again does not keep another's quotas charged).
    package func continueTeardowns(until deadline: UInt64) {
        while let (next, teardown) = spread.teardowns.next() {
            guard free(teardown, until: deadline) else { return }
            spread.teardowns.remove(at: next)
            if WorkClock.now() >= deadline { return }
        }
    }

    /// Targets first, from the last one created (each one's performers destroyed by their plugins, then
    /// the target dropped: it goes with its own tables, not all of them at the end), then composites, then
    /// properties; true once everything is freed.
    private func free(_ teardown: RuntimeTeardown, until deadline: UInt64) -> Bool {
        let scope = teardown.scope
        while let target = scope.targetOrder.last {
            _ = teardown.waits?.removeAll(inTarget: target.name)
            for performer in target.performers.values {
                stopAdvancing(performer)
                performer.tokens.removeAll()
                // Out of the table first: a call the plugin makes while it is destroyed finds no performer.
                performers[performer.id] = nil
                if let instance = performer.instance {
                    performer.instance = nil
                    calling(performer.label, "destroy") { performer.table.pointee.destroy(instance) }
                }
                scope.performerCount -= 1
                if let uid = scope.owner { ledger.usage[uid, default: Usage()].performers -= 1 }
                releaseCharges(of: performer)
            }
            target.performers.removeAll()
            target.named.removeAll()
            scope.targets[target.name] = nil
            scope.targetOrder.removeLast()
            if WorkClock.now() >= deadline { return false }
        }
        teardown.waits = nil
        while let ids = teardown.composites.popLast() {
            for id in ids { composition.composites.removeDetached(id) }
            if WorkClock.now() >= deadline, !teardown.composites.isEmpty { return false }
        }
        if var properties = teardown.properties {
            teardown.properties = nil
            defer { if properties.remaining > 0 { teardown.properties = properties } }
            guard store.forget(&properties, until: deadline) else { return false }
        }
        if let uid = scope.owner, ledger.usage[uid] == Usage() {
            ledger.usage[uid] = nil
            ledger.tokenCounts[uid] = nil
        }
        return true
    }
}
