import HashTreeCollections

/// What the engine keeps for running composites, and which plans complete at once when added.
struct CompositionState {
    /// Reduce motion and speed 0 (docs/vocabulary.md): which plans complete at once when added.
    var instantMotion = InstantMotion.off

    /// A property a composite's leaf animates.
    struct Leaf: Hashable {
        var runtime: String
        var target: String
        var property: String
    }

    struct Wait {
        var composite: UInt64
        var performer: UInt64
        /// The name the leaf was handed to its performer with (echoed in its `animation.ended`), when the
        /// performer takes named plans: another animation of the same property is then never taken for it.
        var name: String?
    }

    /// A leaf's end, waiting to be handed to its composite at a safe point (never inside a plugin call).
    struct End {
        var composite: UInt64
        var reason: String
        var late: Double
    }

    var composites = Composites()
    var nextID: UInt64 = 1
    /// Leaves that run, by the property they animate.
    var waits = Waits()
    var ends: [End] = []
    var isDraining = false
    /// While a drain hands an end over: when its uid's budget runs out (`WorkClock`); a `Sequence` whose
    /// steps end at once stops there and carries the rest to the next frame (`Engine.runSequence`).
    var stepDeadline: UInt64?
    /// The leaf being handed to its performer: an end `finished` traced meanwhile means it ended at once.
    var delivering: Leaf?
    var deliveringName: String?
    var deliveredEnd: (reason: String, late: Double)?
    var nextLeaf: UInt64 = 1
    /// The performer that took the last leaf (what `plan.add` of a composite answers), and the last
    /// composite a plan started (not a child).
    var lastPerformer: UInt64 = 0
    var lastComposite: UInt64 = 0

    /// Running composites by id, and found by their runtime and target: a target that ends, or a
    /// performer that goes idle, costs what it holds, not what every uid runs (a second uid's 100,000
    /// waiting leaves made each of 5,120 ending tweens look at all of them: ~1 s without a frame).
    struct Composites {
        private var byID: [UInt64: Composite] = [:]
        private var byTarget: [String: [String: Set<UInt64>]] = [:]

        var isEmpty: Bool { byID.isEmpty }
        subscript(id: UInt64) -> Composite? { byID[id] }

        mutating func insert(_ composite: Composite) {
            byID[composite.id] = composite
            byTarget[composite.runtime, default: [:]][composite.target, default: []].insert(composite.id)
        }

        @discardableResult
        mutating func remove(_ id: UInt64) -> Composite? {
            guard let composite = byID.removeValue(forKey: id) else { return nil }
            byTarget[composite.runtime]?[composite.target]?.remove(id)
            if byTarget[composite.runtime]?[composite.target]?.isEmpty == true { byTarget[composite.runtime]?[composite.target] = nil }
            if byTarget[composite.runtime]?.isEmpty == true { byTarget[composite.runtime] = nil }
            return composite
        }

        /// Removes the composites of one target of a runtime; returns them by id.
        mutating func removeAll(inRuntime runtime: String, target: String) -> [Composite] {
            Array(byTarget[runtime]?[target] ?? []).sorted().compactMap { remove($0) }
        }

        /// Takes a destroyed runtime's composites out of its name's reach (a runtime of the same name may
        /// come next); they stay by id until `removeDetached` (nothing finds them by id once their leaves'
        /// waits and queued ends are gone).
        mutating func detach(runtime: String) -> [Set<UInt64>] {
            byTarget.removeValue(forKey: runtime).map { Array($0.values) } ?? []
        }

        mutating func removeDetached(_ id: UInt64) { byID[id] = nil }
    }

    /// Leaves that run, by the property they animate, and found by their performer and their target;
    /// one table per runtime (a runtime destroyed takes its table away whole, `detach`).
    struct Waits {
        private var byRuntime: [String: RuntimeWaits] = [:]
        private(set) var count = 0

        var isEmpty: Bool { count == 0 }
        subscript(leaf: Leaf) -> Wait? { byRuntime[leaf.runtime]?[leaf] }

        mutating func set(_ leaf: Leaf, _ wait: Wait) {
            count += byRuntime[leaf.runtime, default: RuntimeWaits()].set(leaf, wait)
        }

        @discardableResult
        mutating func remove(_ leaf: Leaf) -> Wait? {
            guard let wait = byRuntime[leaf.runtime]?.remove(leaf) else { return nil }
            count -= 1
            if byRuntime[leaf.runtime]?.isEmpty == true { byRuntime[leaf.runtime] = nil }
            return wait
        }

        /// Removes the leaves `performer` runs; returns their waits, by composite.
        mutating func removeAll(ofPerformer performer: UInt64, in runtime: String) -> [Wait] {
            guard let waits = byRuntime[runtime]?.removeAll(ofPerformer: performer) else { return [] }
            count -= waits.count
            if byRuntime[runtime]?.isEmpty == true { byRuntime[runtime] = nil }
            return waits
        }

        /// Removes the leaves of one target of a runtime.
        mutating func removeAll(inRuntime runtime: String, target: String) {
            guard let removed = byRuntime[runtime]?.removeAll(inTarget: target) else { return }
            count -= removed
            if byRuntime[runtime]?.isEmpty == true { byRuntime[runtime] = nil }
        }

        /// Takes a destroyed runtime's leaves away (to be emptied a performer at a time, `RuntimeTeardown`).
        mutating func detach(runtime: String) -> RuntimeWaits? {
            guard let waits = byRuntime.removeValue(forKey: runtime) else { return nil }
            count -= waits.count
            return waits
        }
    }

    /// One runtime's leaves.
    struct RuntimeWaits {
        /// A hash tree, not a `Dictionary`: growing never rehashes every leaf at once (100,000 leaves of
        /// `Group`s waiting: a `plan.add` that crossed a doubling took 26–38 ms, a frame missed by all).
        private var byLeaf = TreeDictionary<Leaf, Wait>()
        private var byPerformer: [UInt64: Set<Leaf>] = [:]
        private var byTarget: [String: Set<Leaf>] = [:]

        var isEmpty: Bool { byLeaf.isEmpty }
        var count: Int { byLeaf.count }
        subscript(leaf: Leaf) -> Wait? { byLeaf[leaf] }

        /// Returns 1 for a new leaf, 0 for one that waited already (now on `wait`).
        mutating func set(_ leaf: Leaf, _ wait: Wait) -> Int {
            let replaced = remove(leaf) != nil
            byLeaf[leaf] = wait
            byPerformer[wait.performer, default: []].insert(leaf)
            byTarget[leaf.target, default: []].insert(leaf)
            return replaced ? 0 : 1
        }

        @discardableResult
        mutating func remove(_ leaf: Leaf) -> Wait? {
            guard let wait = byLeaf.removeValue(forKey: leaf) else { return nil }
            byPerformer[wait.performer]?.remove(leaf)
            if byPerformer[wait.performer]?.isEmpty == true { byPerformer[wait.performer] = nil }
            byTarget[leaf.target]?.remove(leaf)
            if byTarget[leaf.target]?.isEmpty == true { byTarget[leaf.target] = nil }
            return wait
        }

        mutating func removeAll(ofPerformer performer: UInt64) -> [Wait] {
            guard let leaves = byPerformer[performer] else { return [] }
            return leaves.compactMap { remove($0) }.sorted { $0.composite < $1.composite }
        }

        /// Removes a target's leaves; returns how many. A performer runs leaves of its own target only:
        /// its entry goes whole.
        mutating func removeAll(inTarget target: String) -> Int {
            guard let leaves = byTarget.removeValue(forKey: target) else { return 0 }
            var performers = Set<UInt64>()
            for leaf in leaves {
                if let wait = byLeaf.removeValue(forKey: leaf) { performers.insert(wait.performer) }
            }
            for performer in performers { byPerformer[performer] = nil }
            return leaves.count
        }
    }
}
