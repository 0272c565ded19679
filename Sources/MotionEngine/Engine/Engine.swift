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

    enum Phase { case control, frame }

    /// Replaced only by `extendRegistry`, which keeps every existing factory at its index.
    package internal(set) var registry: PluginRegistry
    package let host: HostServices
    let store = PropertyStore()
    let curves = CurveTable()
    var runtimes: [String: RuntimeScope] = [:]
    /// Runtimes at a speed of their own (`runtime.speed`), advanced apart from the groups.
    var slowedRuntimes: [RuntimeScope] = []
    /// A hash trie, not a `Dictionary`: it never rehashes everything at once (at 393,216 performers a
    /// Dictionary's growth held the engine thread 8 ms, and the other tables keyed per property with it
    /// 112 ms in one `plan.add`).
    var performers = TreeDictionary<UInt64, PerformerRecord>()
    /// Indexed by property handle: the performer animating the property, its newest claimant
    /// ("motion.claim/1"). A column rather than a dictionary per target: no allocation per target.
    var animators: ContiguousArray<PerformerRecord?> = []
    /// Destroyed runtimes still being freed (`Engine+Teardown`).
    var teardowns = TeardownQueue()
    /// Swaps whose performers are still moving (`beginSwap`).
    var swapJobs: [SwapJob] = []
    /// Continuous performers holding a token, advanced every tick, grouped by factory (indexed like
    /// `registry.factories`) so that a factory with "motion.batch/1" is advanced with one call.
    var advanceGroups: [AdvanceGroup] = []
    var advancingCount = 0
    /// Performers that took their first token during a frame: advanced from the next tick on.
    var startsAfterFrame: [PerformerRecord] = []
    /// Claims made during a frame ("motion.claim/1"), carried out when it is over.
    var claimsAfterFrame: [(property: UInt32, performer: UInt64)] = []
    var stopsAfterFrame: [PerformerRecord] = []
    var phase = Phase.control
    var emitDepth = 0
    var nextPerformerID: UInt64 = 1
    /// Trace events held while a new performer takes its first plan: sent if the plugin takes it,
    /// dropped if it refuses (`Engine+Refusals`).
    var heldTraces: [TraceEvent]?
    var nextToken: UInt64 = 1
    /// Seconds advanced so far (the sum of every tick's dt): the engine's own clock.
    package internal(set) var time = 0.0
    package weak var observer: (any TraceObserver)?
    /// Gestures performers interned ("motion.gesture/1"), by handle.
    var gestureSlots = GestureSlots()
    /// What each uid holds (docs/protocol.md#ownership-and-quotas quotas), kept as runtimes and performers come and go.
    package internal(set) var usage: [UInt32: Usage] = [:]
    /// Per uid, the tokens its runtimes hold (shared with each of its runtimes).
    var tokenCounts: [UInt32: TokenCount] = [:]
    /// Running `Sequence` and `Group` plans and the leaves they wait on.
    var composition = CompositionState()
    /// The plan being delivered, for its charge (`PlanCharge`): `finished` once it ended at once.
    var charging: (performer: UInt64, property: String, finished: Bool)?
    /// Reduce motion and speed 0 (docs/vocabulary.md): which plans complete at once when added.
    package var instantMotion = InstantMotion.off
    /// The plans the engine writes itself, in the loaded plugins' words (set by the host that loads them).
    package let vocabulary: PlanVocabulary
    /// Every uid's quotas (set by its owner): what a plan a performer emits is held to, as any plan of
    /// the uid's (nil: none, an engine used without sessions).
    package var quotas: Quotas?
    /// Why the last `intern_property` was refused by a quota (the answer to a plan refused after it).
    var internRefusal: String?
    /// The uid whose named plan a scratch performer is trying (`checkReplacement`): its properties quota
    /// holds there as in the real runtime.
    var replacementOwner: UInt32?
    /// Set by the clock before a tick that no frame subscriber will see: plugins with "motion.kept/1" may
    /// then keep the values instead of writing them (`Engine+KeptWrites`).
    package var writesUnread = false
    /// With `writesUnread`: a byte per property handle, nonzero where someone reads the value anyway (a
    /// filtered subscriber); what "motion.unread/1" `read_properties` lends for the tick.
    package var readProperties: UnsafeBufferPointer<UInt8>?
    /// The same properties as a list of handles (no order): `read_property_list`.
    package var readPropertyList: UnsafeBufferPointer<UInt32>?
    /// True during an `advance(by:)` begun with `writesUnread`: what "motion.unread/1" answers.
    var isKeepingWrites = false
    /// Factories without `write_kept_some` asked for everything since the store last went stale.
    var keptWrittenWhole: Set<UInt> = []
    /// Plugin calls that held the engine thread past `slowCallLimit` (`Engine+SlowCalls`).
    var slowCalls = SlowCalls()
    /// Performers already reported for writing a value that is not finite (once each).
    var reportedNonFinite: Set<UInt64> = []
    /// When the log last heard of a plugin's non-finite value, and how many it has not heard of since (`Engine+NonFinite`).
    var nonFiniteLogged: [String: (at: UInt64, unsaid: Int)] = [:]

    package struct Usage: Equatable, Sendable {
        package var runtimes = 0
        package var performers = 0
        /// What its running plans are charged (`PlanCharge`).
        package var planBytes = 0
    }

    struct AdvanceGroup {
        let factory: UnsafePointer<motion_factory>
        let label: UnsafePointer<CChar>?
        /// Nil only for factories that are not continuous, whose performers never join a group.
        let advance: (@convention(c) (UnsafeMutableRawPointer?, Double) -> Void)?
        let batch: (@convention(c) (UnsafePointer<motion_factory>?, UnsafePointer<UnsafeMutableRawPointer?>?, Int, Double) -> Void)?
        /// "motion.kept/1": the factory's batches may keep values that no one reads.
        let kept: UnsafePointer<motion_kept>?
        /// Parallel arrays: the tick loop reads only `instances`, free of reference counting.
        var instances: ContiguousArray<UnsafeMutableRawPointer?> = []
        var records: [PerformerRecord] = []
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

    /// What a uid's composites may spend starting their next steps in one drain (`drainCompositeEnds`).
    var compositeNanosPerUID = Engine.defaultCompositeNanosPerUID
    /// Engine time after which a `runtime.state` page ends (`state(ofRuntime:)`).
    var statePageNanos = Engine.defaultStatePageNanos
    /// True while some continuous performer holds a token and needs ticks.
    package var isAnimating: Bool { advancingCount > 0 || (!slowedRuntimes.isEmpty && hasOwnPacedMotion) }
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
        time += dt
        if !composition.ends.isEmpty { ageCarriedEnds(by: dt) }
        phase = .frame
        slowCalls.markTick()
        // Starts and stops wait until the frame is over: no group changes while a plugin loops over it.
        for index in advanceGroups.indices where !advanceGroups[index].instances.isEmpty {
            let group = advanceGroups[index]
            // Only a factory the engine can ask for what it kept may keep ("motion.unread/1" answers per
            // group). Marked before the call too: a read from inside it asks for what it kept so far.
            let keeps = writesUnread && group.kept != nil
            isKeepingWrites = keeps
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
        isKeepingWrites = false
        if !slowedRuntimes.isEmpty { advanceOwnPacedRuntimes(by: dt) }
        finishFrame()
    }

    func finishFrame() {
        phase = .control
        for performer in startsAfterFrame {
            performer.advanceSlot = -1
            if !performer.tokens.isEmpty { startAdvancing(performer) }
        }
        startsAfterFrame.removeAll(keepingCapacity: true)
        for performer in stopsAfterFrame where performer.tokens.isEmpty {
            stopAdvancing(performer)
        }
        stopsAfterFrame.removeAll(keepingCapacity: true)
        if !claimsAfterFrame.isEmpty {
            let claims = claimsAfterFrame
            claimsAfterFrame.removeAll()
            for (property, performer) in claims { claimProperty(property, for: performer) }
        }
        drainCompositeEnds()
    }

    /// Advances only the animating performers of a dry-run runtime (`plan.sample`, replays), which the
    /// clock never advances. Its writes are taken out of the frame (`dropDryRunWrites`).
    package func advance(runtime name: String, by dt: Double) {
        guard let scope = runtimes[name], scope.isDryRun else { return }
        let active = scope.performers.filter { $0.isContinuous && !$0.tokens.isEmpty }
        phase = .frame
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
        if heldTraces != nil {
            heldTraces!.append(event)
            return
        }
        observer?.engine(self, didTrace: event)
    }

    func startAdvancing(_ performer: PerformerRecord) {
        guard performer.advanceSlot == -1, !performer.runtime.isDryRun, performer.runtime.timeline.pausedAt == nil,
              performer.runtime.speed == 1, let instance = performer.instance,
            performer.table.pointee.advance != nil
        else { return }
        if phase == .frame {
            performer.advanceSlot = -2
            startsAfterFrame.append(performer)
            return
        }
        let index = performer.factoryIndex
        while advanceGroups.count <= index {
            let registered = registry.factories[advanceGroups.count], descriptor = registered.descriptor
            advanceGroups.append(AdvanceGroup(factory: descriptor.pointer, label: registered.label, advance: descriptor.table.pointee.advance,
                                              batch: descriptor.batch?.pointee.advance_batch, kept: descriptor.kept))
        }
        performer.advanceSlot = advanceGroups[index].instances.count
        advanceGroups[index].instances.append(instance)
        advanceGroups[index].records.append(performer)
        advancingCount += 1
    }

    func stopAdvancing(_ performer: PerformerRecord) {
        let slot = performer.advanceSlot
        guard slot >= 0 else { return }
        if phase == .frame {
            stopsAfterFrame.append(performer)
            return
        }
        let index = performer.factoryIndex
        let last = advanceGroups[index].instances.count - 1
        if slot != last {
            advanceGroups[index].instances[slot] = advanceGroups[index].instances[last]
            advanceGroups[index].records[slot] = advanceGroups[index].records[last]
            advanceGroups[index].records[slot].advanceSlot = slot
        }
        advanceGroups[index].instances.removeLast()
        advanceGroups[index].records.removeLast()
        performer.advanceSlot = -1
        advancingCount -= 1
    }

    func destroyInstance(_ performer: PerformerRecord) {
        guard let instance = performer.instance else { return }
        // Its animations' latest values stay in the store when it goes (kept ones included).
        for property in performer.target.properties.values { store.refreshIfStale(property) }
        performer.instance = nil
        calling(performer.label, "destroy") { performer.table.pointee.destroy(instance) }
    }
}
