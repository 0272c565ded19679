import MotionWire

/// A destroyed runtime, gone at once for everyone (its name free, its performers stopped, its properties
/// out of sight) and freed in slices between ticks (SPEC §5: bounded work per tick): destroying one of
/// 100,000 springs in one go held the engine thread 150 ms, every other client's frames with it.
final class RuntimeTeardown {
    let scope: RuntimeScope
    /// Its performers, each destroyed (its plugin's `destroy`) before any property handle is freed: a
    /// plugin that writes while it is destroyed writes a property that is gone, never another's.
    var performers: [PerformerRecord]
    var nextPerformer = 0
    var waits: CompositionState.RuntimeWaits?
    var composites: [Set<UInt64>]
    var properties: PropertyStore.Retired?

    init(scope: RuntimeScope, performers: [PerformerRecord], waits: CompositionState.RuntimeWaits?,
         composites: [Set<UInt64>], properties: PropertyStore.Retired?) {
        self.scope = scope
        self.performers = performers
        self.waits = waits
        self.composites = composites
        self.properties = properties
    }

    /// What is left to free, roughly in steps of equal cost.
    var size: Int { performers.count - nextPerformer + composites.reduce(0) { $0 + $1.count } + (properties?.remaining ?? 0) }
}

extension Engine {
    /// A teardown this small is done inside the request that destroys the runtime.
    static let inlineTeardownSize = 4096

    /// Whether destroyed runtimes are still being freed: the clock runs until they are.
    public var hasTeardowns: Bool { !teardowns.isEmpty }

    /// Makes `scope` (already out of `runtimes`) gone for everyone now, in O(its performers): they stop
    /// advancing, its composites and their leaves leave every table found by name, its properties go
    /// out of sight. The rest is freed in order by `continueTeardowns`.
    func retire(_ scope: RuntimeScope) {
        scope.isClosing = true
        var performers: [PerformerRecord] = []
        performers.reserveCapacity(scope.performerCount)
        for target in scope.targetOrder {
            for performer in target.performers.values {
                stopAdvancing(performer)
                performers.append(performer)
            }
        }
        scope.activeTokens = 0
        let (composites, waits) = retireComposites(of: scope.name)
        let properties = store.retire(runtime: scope.name)
        for handle in properties?.handles ?? [] where Int(handle) < animators.count { animators[Int(handle)] = nil }
        let teardown = RuntimeTeardown(scope: scope, performers: performers, waits: waits, composites: composites,
                                       properties: properties)
        forgetGestures(of: scope)
        if teardown.size <= Self.inlineTeardownSize {
            _ = free(teardown, until: .max)
        } else {
            teardowns.append(teardown)
        }
    }

    /// Frees destroyed runtimes, oldest first, until the monotonic clock passes `deadline`.
    public func continueTeardowns(until deadline: UInt64) {
        while let teardown = teardowns.first {
            guard free(teardown, until: deadline) else { return }
            teardowns.removeFirst()
        }
    }

    /// Frees every destroyed runtime now (before a plugin's performers are swapped or sampled).
    func finishTeardowns() {
        continueTeardowns(until: .max)
    }

    /// Performers first (checked after each: a plugin's `destroy` is one call), then composites, then
    /// properties; true once everything is freed.
    private func free(_ teardown: RuntimeTeardown, until deadline: UInt64) -> Bool {
        let scope = teardown.scope
        while teardown.nextPerformer < teardown.performers.count {
            let performer = teardown.performers[teardown.nextPerformer]
            teardown.nextPerformer += 1
            // Out of the table first: a call the plugin makes while it is destroyed finds no performer.
            performers[performer.id] = nil
            _ = teardown.waits?.removeAll(inTarget: performer.target.name)
            performer.tokens.removeAll()
            if let instance = performer.instance {
                performer.instance = nil
                calling(performer.label, "destroy") { performer.table.pointee.destroy(instance) }
            }
            scope.performerCount -= 1
            if let uid = scope.owner { usage[uid, default: Usage()].performers -= 1 }
            if MonotonicClock.now() >= deadline { return false }
        }
        teardown.performers = []
        teardown.nextPerformer = 0
        teardown.waits = nil
        while let ids = teardown.composites.popLast() {
            for id in ids { composition.composites.removeDetached(id) }
            if MonotonicClock.now() >= deadline, !teardown.composites.isEmpty { return false }
        }
        if var properties = teardown.properties {
            teardown.properties = nil
            defer { if properties.remaining > 0 { teardown.properties = properties } }
            guard store.forget(&properties, until: deadline) else { return false }
        }
        if let uid = scope.owner, usage[uid] == Usage() {
            usage[uid] = nil
            tokenCounts[uid] = nil
        }
        return true
    }
}
