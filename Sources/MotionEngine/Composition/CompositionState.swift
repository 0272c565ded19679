/// What the engine keeps for running composites.
struct CompositionState {
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
    /// The leaf being handed to its performer: an end `finished` traced meanwhile means it ended at once.
    var delivering: Leaf?
    var deliveringName: String?
    var deliveredEnd: (reason: String, late: Double)?
    var nextLeaf: UInt64 = 1
    /// The performer that took the last leaf (what `plan.add` of a composite answers).
    var lastPerformer: UInt64 = 0

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

        /// Removes the composites of a runtime (or of one of its targets); returns them by id.
        mutating func removeAll(inRuntime runtime: String, target: String?) -> [Composite] {
            let ids: [UInt64] = if let target { Array(byTarget[runtime]?[target] ?? []) }
                                else { byTarget[runtime]?.values.flatMap { $0 } ?? [] }
            return ids.sorted().compactMap { remove($0) }
        }
    }

    /// Leaves that run, by the property they animate, and found by their performer and their target.
    struct Waits {
        private var byLeaf: [Leaf: Wait] = [:]
        private var byPerformer: [UInt64: Set<Leaf>] = [:]
        private var byTarget: [String: [String: Set<Leaf>]] = [:]

        var isEmpty: Bool { byLeaf.isEmpty }
        var count: Int { byLeaf.count }
        subscript(leaf: Leaf) -> Wait? { byLeaf[leaf] }

        mutating func set(_ leaf: Leaf, _ wait: Wait) {
            remove(leaf)
            byLeaf[leaf] = wait
            byPerformer[wait.performer, default: []].insert(leaf)
            byTarget[leaf.runtime, default: [:]][leaf.target, default: []].insert(leaf)
        }

        @discardableResult
        mutating func remove(_ leaf: Leaf) -> Wait? {
            guard let wait = byLeaf.removeValue(forKey: leaf) else { return nil }
            byPerformer[wait.performer]?.remove(leaf)
            if byPerformer[wait.performer]?.isEmpty == true { byPerformer[wait.performer] = nil }
            byTarget[leaf.runtime]?[leaf.target]?.remove(leaf)
            if byTarget[leaf.runtime]?[leaf.target]?.isEmpty == true { byTarget[leaf.runtime]?[leaf.target] = nil }
            if byTarget[leaf.runtime]?.isEmpty == true { byTarget[leaf.runtime] = nil }
            return wait
        }

        /// Removes the leaves `performer` runs; returns their waits, by composite.
        mutating func removeAll(ofPerformer performer: UInt64) -> [Wait] {
            guard let leaves = byPerformer[performer] else { return [] }
            return leaves.compactMap { remove($0) }.sorted { $0.composite < $1.composite }
        }

        /// Removes the leaves of a runtime (or of one of its targets). A performer runs leaves of its own
        /// target only: its entry goes whole.
        mutating func removeAll(inRuntime runtime: String, target: String?) {
            var removed: [Set<Leaf>] = []
            if let target {
                if let leaves = byTarget[runtime]?.removeValue(forKey: target) { removed.append(leaves) }
                if byTarget[runtime]?.isEmpty == true { byTarget[runtime] = nil }
            } else if let targets = byTarget.removeValue(forKey: runtime) {
                removed.append(contentsOf: targets.values)
            }
            var performers = Set<UInt64>()
            for leaves in removed {
                for leaf in leaves {
                    if let wait = byLeaf.removeValue(forKey: leaf) { performers.insert(wait.performer) }
                }
            }
            for performer in performers { byPerformer[performer] = nil }
        }
    }
}
