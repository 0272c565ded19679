import HashTreeCollections
import Logging
import MotionPluginAPI
import MotionWire

/// The motion engine: runtimes, performers, named plans, tokens and the property store (docs/protocol.md).
///
/// Pure logic with no I/O and no threads of its own. Whoever owns it calls it from one thread only:
/// control operations (`addPlan`, …) and `advance(by:)` never overlap, and plugins are only called from
/// inside them.
package final class Engine {
    package static let defaultRuntime = "default"
    static let maximumEmitDepth = 32

    /// Replaced only by `extendRegistry`, which keeps every existing factory at its index.
    package internal(set) var registry: PluginRegistry
    package let host: HostServices
    let store = PropertyStore()
    let curves = CurveTable()
    /// The plans the engine writes itself, in the loaded plugins' words (set by the host that loads them).
    package let vocabulary: PlanVocabulary
    var runtimes: [String: RuntimeScope] = [:]
    /// A hash trie, not a `Dictionary`: it never rehashes everything at once (at 393,216 performers a
    /// Dictionary's growth held the engine thread 8 ms, and the other tables keyed per property with it
    /// 112 ms in one `plan.add`).
    var performers = TreeDictionary<UInt64, PerformerRecord>()
    /// Indexed by property handle: the performer animating the property, its newest claimant
    /// ("motion.claim/1"). A column rather than a dictionary per target: no allocation per target.
    var animators: ContiguousArray<PerformerRecord?> = []
    /// Gestures performers interned ("motion.gesture/1"), by handle.
    var gestureSlots = GestureSlots()
    /// The frame clock's side: who is advanced each tick, what waits for the frame to end, the engine's time.
    var cycle = FrameCycle()
    /// Ticks whose values no one reads ("motion.kept/1", "motion.unread/1").
    package var unread = UnreadWrites()
    /// Running `Sequence` and `Group` plans, the leaves they wait on, and which plans complete at once.
    var composition = CompositionState()
    /// What each uid holds and may hold; the tokens and performer ids given out.
    var ledger = TenancyLedger()
    /// Work carried on between frames (runtime teardowns, hot swaps) and what a slice of work may spend.
    var spread = SpreadWork()
    /// Where trace events go, and what was already reported of misbehaving plugins.
    var reports = Reports()

    /// Hot swap (Plugins/HotSwaps): a room made when needed, its state `spread.swapJobs`.
    package var swaps: HotSwaps { HotSwaps(engine: self) }
    /// `Sequence` and `Group` (Composition/Composites): a room made when needed, its state `composition`.
    var composites: Composites { Composites(engine: self) }
    /// Gestures as performers read them (Gestures/Gestures): a room made when needed, its state `gestureSlots`
    /// and each runtime's `gestures`.
    var gestures: Gestures { Gestures(engine: self) }
    /// Each runtime's timeline and its own speed (Timeline/Timelines): a room made when needed, its state each
    /// runtime's `timeline` and `speed`, and `cycle.slowedRuntimes`.
    var timelines: Timelines { Timelines(engine: self) }

    /// Seconds advanced so far (the sum of every tick's dt): the engine's own clock.
    package var time: Double { cycle.time }
    package var observer: (any TraceObserver)? {
        get { reports.observer }
        set { reports.observer = newValue }
    }
    /// What each uid holds (docs/protocol.md#ownership-and-quotas), kept as runtimes and performers come and go.
    package var usage: [UInt32: Usage] { ledger.usage }

    package struct Usage: Equatable, Sendable {
        package var runtimes = 0
        package var performers = 0
        /// What its running plans are charged (`PlanCharge`).
        package var planBytes = 0
    }

    package init(registry: PluginRegistry, host: HostServices, vocabulary: PlanVocabulary) {
        self.registry = registry
        self.vocabulary = vocabulary
        self.host = host
        runtimes[Self.defaultRuntime] = RuntimeScope(name: Self.defaultRuntime, ephemeralOwner: nil)
        curves.register(registry.plugins)
        host.engine = self
        store.refresh = { [unowned self] in self.writeKeptValues() }
        store.refreshSome = { [unowned self] handles in self.writeKeptValues(of: handles) }
        store.onNonFinite = { [unowned self] handle in self.reportNonFinite(handle) }
    }

    deinit {
        // Nothing reads the store once the engine goes: what plugins kept is not asked for.
        store.refresh = nil
        store.refreshSome = nil
        store.onNonFinite = nil
        for performer in performers.values { destroyInstance(performer) }
        host.engine = nil
    }

    // MARK: Queries

    /// True while some continuous performer holds a token and needs ticks.
    package var isAnimating: Bool { cycle.advancingCount > 0 || (!cycle.slowedRuntimes.isEmpty && timelines.hasOwnPacedMotion) }
    package var hasPendingFrame: Bool { !store.dirty.isEmpty }
    package var runtimeNames: [String] { runtimes.keys.sorted() }
    package var activeTokenCount: Int { runtimes.values.reduce(0) { $0 + $1.activeTokens } }
    package var performerCount: Int { performers.count }
    package var propertyCount: Int { store.liveCount }
    package func isActive(runtime: String) -> Bool { (runtimes[runtime]?.activeTokens ?? 0) > 0 }

    /// The current value of a property, if it has one.
    package func value(of property: String, target: String, runtime: String = defaultRuntime) -> [Double]? {
        guard let handle = store.handle(for: .init(runtime: runtime, target: target, property: property)) else {
            return nil
        }
        let value = store.value(handle)
        return value.isEmpty ? nil : value
    }

    package func velocity(of property: String, target: String, runtime: String = defaultRuntime) -> [Double]? {
        guard let handle = store.handle(for: .init(runtime: runtime, target: target, property: property)) else {
            return nil
        }
        return store.velocity(handle)
    }

    /// Adopts a registry built with `PluginRegistryBuilder(extending: registry)`: new plan types become
    /// available; performers keep the factories they were created with.
    package func extendRegistry(_ extended: PluginRegistry) {
        precondition(extended.factories.count >= registry.factories.count, "a registry may only grow")
        let added = extended.plugins.dropFirst(registry.plugins.count)
        let newRejections = extended.rejected.filter { rejection in !registry.rejected.contains(rejection) }
        registry = extended
        curves.register(extended.plugins)
        for entry in added {
            trace(TraceEvent(kind: "plugin.loaded", fields: [
                "plugin": .string(entry.plugin.id), "version": .string(entry.plugin.version),
                "generation": .number(Double(entry.generation)), "file": .string(entry.plugin.file),
                "planTypes": .array(entry.plugin.factories.map { .string($0.planType) }),
            ]))
        }
        for rejection in newRejections {
            trace(TraceEvent(kind: "plugin.rejected", fields: ["file": .string(rejection.file), "reason": .string(rejection.reason)]))
        }
    }

    // MARK: Frame

    /// Advances every animating performer by `dt` seconds. Tokens released during the frame stop the
    /// performer's ticks once the frame is over.
    package func advance(by dt: Double) {
        cycle.time += dt
        if !composition.ends.isEmpty { composites.ageCarriedEnds(by: dt) }
        cycle.phase = .frame
        reports.slowCalls.markTick()
        // Starts and stops wait until the frame is over: no group changes while a plugin loops over it.
        for index in cycle.advanceGroups.indices where !cycle.advanceGroups[index].instances.isEmpty {
            let group = cycle.advanceGroups[index]
            // Only a factory the engine can ask for what it kept may keep ("motion.unread/1" answers per
            // group). Marked before the call too: a read from inside it asks for what it kept so far.
            let keeps = unread.writesUnread && group.kept != nil
            unread.isKeepingWrites = keeps
            if keeps { markKept() }
            calling(group.label, "advance", performers: group.instances.count) {
                group.instances.withUnsafeBufferPointer { instances in
                    if let batch = group.batch {
                        batch(group.factory, instances.baseAddress, instances.count, dt)
                    } else if let advance = group.advance {
                        for instance in instances { advance(instance, dt) }
                    }
                }
            }
            if keeps { markKept() }
        }
        unread.isKeepingWrites = false
        if !cycle.slowedRuntimes.isEmpty { timelines.advanceOwnPacedRuntimes(by: dt) }
        finishFrame()
    }

    func finishFrame() {
        cycle.phase = .control
        for performer in cycle.startsAfterFrame {
            performer.advanceSlot = -1
            if !performer.tokens.isEmpty { startAdvancing(performer) }
        }
        cycle.startsAfterFrame.removeAll(keepingCapacity: true)
        for performer in cycle.stopsAfterFrame where performer.tokens.isEmpty {
            stopAdvancing(performer)
        }
        cycle.stopsAfterFrame.removeAll(keepingCapacity: true)
        if !cycle.claimsAfterFrame.isEmpty {
            let claims = cycle.claimsAfterFrame
            cycle.claimsAfterFrame.removeAll()
            for (property, performer) in claims { claimProperty(property, for: performer) }
        }
        composites.drainCompositeEnds()
    }

    /// Advances only the animating performers of a dry-run runtime (`plan.sample`, replays), which the
    /// clock never advances. Its writes are taken out of the frame (`dropDryRunWrites`).
    package func advance(runtime name: String, by dt: Double) {
        guard let scope = runtimes[name], scope.isDryRun else { return }
        let active = scope.performers.filter { $0.isContinuous && !$0.tokens.isEmpty }
        cycle.phase = .frame
        for performer in active {
            if let instance = performer.instance, let advance = performer.table.pointee.advance {
                calling(performer.label, "advance") { advance(instance, dt) }
            }
        }
        finishFrame()
    }

    /// Takes dry runs' writes out of this frame: nobody sees a dry run, even one worked across ticks.
    package func dropDryRunWrites() { store.dropHiddenFromDirty() }

    /// Handles of the properties written since the last `clearFrame()`.
    var dirtyProperties: UnsafeBufferPointer<UInt32> { store.dirty }

    package func clearFrame() { store.clearDirty() }

    // MARK: Internals shared by the extensions

    func trace(_ event: TraceEvent) {
        if reports.heldTraces != nil {
            reports.heldTraces!.append(event)
            return
        }
        reports.observer?.engine(self, didTrace: event)
    }

    func startAdvancing(_ performer: PerformerRecord) {
        guard performer.advanceSlot == -1, !performer.runtime.isDryRun, performer.runtime.timeline.pausedAt == nil,
              performer.runtime.speed == 1, let instance = performer.instance,
            performer.table.pointee.advance != nil
        else { return }
        if cycle.phase == .frame {
            performer.advanceSlot = -2
            cycle.startsAfterFrame.append(performer)
            return
        }
        let index = performer.factoryIndex
        while cycle.advanceGroups.count <= index {
            let registered = registry.factories[cycle.advanceGroups.count], descriptor = registered.descriptor
            cycle.advanceGroups.append(FrameCycle.AdvanceGroup(factory: descriptor.pointer, label: registered.label, advance: descriptor.table.pointee.advance,
                                              batch: descriptor.batch?.pointee.advance_batch, kept: descriptor.kept))
        }
        performer.advanceSlot = cycle.advanceGroups[index].instances.count
        cycle.advanceGroups[index].instances.append(instance)
        cycle.advanceGroups[index].records.append(performer)
        cycle.advancingCount += 1
    }

    func stopAdvancing(_ performer: PerformerRecord) {
        let slot = performer.advanceSlot
        guard slot >= 0 else { return }
        if cycle.phase == .frame {
            cycle.stopsAfterFrame.append(performer)
            return
        }
        let index = performer.factoryIndex
        let last = cycle.advanceGroups[index].instances.count - 1
        if slot != last {
            cycle.advanceGroups[index].instances[slot] = cycle.advanceGroups[index].instances[last]
            cycle.advanceGroups[index].records[slot] = cycle.advanceGroups[index].records[last]
            cycle.advanceGroups[index].records[slot].advanceSlot = slot
        }
        cycle.advanceGroups[index].instances.removeLast()
        cycle.advanceGroups[index].records.removeLast()
        performer.advanceSlot = -1
        cycle.advancingCount -= 1
    }

    func destroyInstance(_ performer: PerformerRecord) {
        guard let instance = performer.instance else { return }
        // Its animations' latest values stay in the store when it goes (kept ones included).
        for property in performer.target.properties.values { store.refreshIfStale(property) }
        performer.instance = nil
        calling(performer.label, "destroy") { performer.table.pointee.destroy(instance) }
    }
}
