import HashTreeCollections
import MotionPluginAPI

/// One performer: the plugin instance for one (runtime, target, plan type).
final class PerformerRecord {
    let id: UInt64
    let factoryIndex: Int
    /// The plugin's factory struct (handed back to the plugin) and the one the host reads members from
    /// (see `FactoryDescriptor.table`).
    let factory: UnsafePointer<motion_factory>
    let table: UnsafePointer<motion_factory>
    /// The plugin's crash-marker label.
    let label: UnsafePointer<CChar>?
    let planType: String
    let pluginID: String
    /// Bytes charged to its runtime's owner for the plan now running on each property, and for the plans
    /// it was given with a `delay`, together (`PlanCharge`).
    var charges: [String: Int] = [:]
    var waitingCharge = 0
    let isContinuous: Bool
    unowned let runtime: RuntimeScope
    unowned let target: TargetScope
    var instance: UnsafeMutableRawPointer?
    var tokens: Set<UInt64> = []
    /// Index in the engine's advance list, or -1 while the performer is at rest.
    var advanceSlot = -1
    /// A swap's new performer not committed yet: its token events wait until it is (a refused swap
    /// discards it without a trace).
    var isShadow = false

    init(id: UInt64, factoryIndex: Int, factory: RegisteredFactory, runtime: RuntimeScope, target: TargetScope) {
        self.id = id
        self.factoryIndex = factoryIndex
        self.factory = factory.descriptor.pointer
        self.table = factory.descriptor.table
        self.label = factory.label
        self.planType = factory.descriptor.planType
        self.pluginID = factory.pluginID
        self.isContinuous = factory.descriptor.isContinuous
        self.runtime = runtime
        self.target = target
    }
}

/// A target's performers (one per factory), its named plans and its interned properties.
final class TargetScope {
    let name: String
    /// Its place in its runtime's `targetOrder`.
    var ordinal = 0
    var performers: [Int: PerformerRecord] = [:]
    var named: [String: PerformerRecord] = [:]
    var properties: [String: UInt32] = [:]

    init(name: String) {
        self.name = name
    }
}

/// A named scope of targets, performers and tokens (docs/protocol.md).
final class RuntimeScope {
    let name: String
    /// The session that created an ephemeral runtime; it is destroyed when that session ends.
    let ephemeralOwner: UInt64?
    /// The uid it belongs to (from its key, see `OwnedName`); nil for the daemon's own.
    let owner: UInt32?
    /// Every uid may read it (its owner alone changes it).
    let isShared: Bool
    /// Performers created in it (they live as long as the runtime; a swap replaces one by one).
    var performerCount = 0
    /// A hash trie: growing it rehashes nothing (`Engine.performers`).
    var targets = TreeDictionary<String, TargetScope>()
    /// Pointer streams clients push into this runtime (docs/vocabulary.md#interactions); they end with it.
    var gestures: [String: Gesture] = [:]
    /// The handles performers interned for gesture names of this runtime (`Engine.gestureSlots`), by name.
    var gestureHandles: [String: UInt32] = [:]
    /// Targets in the order they were created (targets live as long as their runtime): `runtime.state`
    /// pages through them in O(page).
    var targetOrder: [TargetScope] = []
    var activeTokens = 0 {
        didSet { ownerTokens?.value += activeTokens - oldValue }
    }
    /// Its owner's tokens over all the owner's runtimes (the `animations` quota); nil: the daemon's.
    var ownerTokens: TokenCount?
    var timeline: Timeline
    /// False for the daemon's scratch runtimes (dry runs, replays): nobody scrubs those.
    let recordsTimeline: Bool
    /// A dry run's scratch runtime: advanced only by `advance(runtime:by:)`, never by the clock, and its
    /// properties never go out in frames (it may live across ticks while it is worked in slices).
    let isDryRun: Bool
    /// Destroyed, and being freed (`RuntimeTeardown`): its performers are no longer swapped or sampled.
    var isClosing = false
    /// Its own speed (`runtime.speed`): 1, or it is advanced apart by dt × speed (`Engine+RuntimeSpeed`).
    var speed = 1.0

    init(name: String, ephemeralOwner: UInt64?, isShared: Bool = false, createdAt: Double = 0, recordsTimeline: Bool = true,
         isDryRun: Bool = false) {
        self.isDryRun = isDryRun
        self.name = name
        self.ephemeralOwner = ephemeralOwner
        self.owner = OwnedName.split(name).owner
        self.isShared = isShared
        self.timeline = Timeline(createdAt: createdAt)
        self.recordsTimeline = recordsTimeline
    }

    func target(_ name: String) -> TargetScope {
        if let scope = targets[name] { return scope }
        let scope = TargetScope(name: name)
        scope.ordinal = targetOrder.count
        targets[name] = scope
        targetOrder.append(scope)
        return scope
    }

    var performers: [PerformerRecord] {
        targets.values.flatMap { $0.performers.values }.sorted { $0.id < $1.id }
    }
}

/// Is-active tokens held in all the runtimes of one uid, shared by those runtimes.
final class TokenCount {
    var value = 0
}
