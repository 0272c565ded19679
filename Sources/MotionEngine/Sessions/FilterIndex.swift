/// Frame subscribers with a `runtime` filter, by runtime key, and those with only a `targets` filter, by
/// target name; and per property handle, whether any of them may want it.
///
/// A frame looks up each written property some filtered subscriber watches once, so a subscriber costs
/// what it receives, not what moves elsewhere, whatever the size of its filter. A written property nobody
/// filters on costs a flag read, not two string hashes: 250,000 moving springs and one subscriber filtered
/// to an idle target took the tick's p99 from 5 to 34 ms.
final class FilterIndex {
    private var byRuntime: [String: [Subscription]] = [:]
    private var byTarget: [String: [Subscription]] = [:]
    /// Per handle: whether a subscriber here may want it, as of the handle's generation in
    /// `watchedGeneration` (a reused handle is looked at again).
    private var watched: [Bool] = []
    private var watchedGeneration: [UInt32] = []
    /// The handles whose `watched` flag is set, in no order, and each one's place in it (−1: not there):
    /// a plugin that keeps its values finds the few it must write from it, not from a pass over its lanes.
    private var watchedList: [UInt32] = []
    private var watchedPlace: [Int32] = []
    /// Names whose handles' flags change with a subscription added or removed, until `update` (the engine
    /// calls it right after, so nothing piles up while nothing moves): from no filtered subscriber to
    /// one, every flag is cleared first.
    private var rewatch: [(name: String, isTarget: Bool)] = []
    private var clearsWatched = false
    /// Reused each frame by `markWritten`.
    private var watchedDirty: [UInt32] = []
    private var relook: [Int] = []

    /// Subscriptions with many targets on their way out, each with its targets still to take out of
    /// `byTarget` (from the end): taken out a slice at a time between frames. Removed at once, a uid's
    /// connection closing with 16 subscriptions of 4,096 targets held every uid's frames ~55 ms.
    private var leaving: [(subscription: Subscription, targets: [String])] = []
    /// A subscription with at most this many targets is taken out at once (a few µs).
    static let removedAtOnce = 256

    var isEmpty: Bool { byRuntime.isEmpty && byTarget.isEmpty }
    var hasRemovals: Bool { !leaving.isEmpty }
    /// The target names `uid`'s leaving subscriptions still hold in the index (its `filterTargets` quota).
    func leavingTargets(of uid: UInt32) -> Int {
        leaving.reduce(0) { $0 + ($1.subscription.viewer == uid ? $1.targets.count : 0) }
    }

    /// A subscription with a `runtime` or `targets` filter.
    func add(_ subscription: Subscription) {
        if byRuntime.isEmpty && byTarget.isEmpty { clearsWatched = true }
        noteRewatch(subscription)
        if let runtime = subscription.runtime {
            byRuntime[runtime, default: []].append(subscription)
        } else if let targets = subscription.targets {
            for target in targets { byTarget[target, default: []].append(subscription) }
        }
    }

    func remove(_ subscription: Subscription) {
        if subscription.runtime == nil, let targets = subscription.targets, targets.count > Self.removedAtOnce {
            subscription.isLeaving = true
            leaving.append((subscription, Array(targets)))
            return
        }
        noteRewatch(subscription)
        if let runtime = subscription.runtime {
            byRuntime[runtime]?.removeAll { $0 === subscription }
            if byRuntime[runtime]?.isEmpty == true { byRuntime[runtime] = nil }
        } else if let targets = subscription.targets {
            for target in targets {
                byTarget[target]?.removeAll { $0 === subscription }
                if byTarget[target]?.isEmpty == true { byTarget[target] = nil }
            }
        }
    }

    /// Takes leaving subscriptions' targets out of the index until the monotonic clock passes `deadline`
    /// (64 at least), the oldest first; their properties' flags are looked at again at the next update.
    func continueRemovals(until deadline: UInt64) {
        while !leaving.isEmpty {
            let subscription = leaving[0].subscription
            for _ in 0..<64 {
                guard let target = leaving[0].targets.popLast() else { break }
                rewatch.append((target, true))
                byTarget[target]?.removeAll { $0 === subscription }
                if byTarget[target]?.isEmpty == true { byTarget[target] = nil }
            }
            if leaving[0].targets.isEmpty { leaving.removeFirst() }
            if WorkClock.now() >= deadline { return }
        }
    }

    /// The handles a filtered subscription may match: those of its targets, else of its runtime.
    private func noteRewatch(_ subscription: Subscription) {
        if let targets = subscription.targets {
            rewatch.append(contentsOf: targets.map { ($0, true) })
        } else if let runtime = subscription.runtime {
            rewatch.append((runtime, false))
        }
    }

    /// Brings the watch flags up to date with the subscriptions: the handles of the names subscriptions
    /// came or went for.
    func update(_ store: PropertyStore) {
        let count = store.keys.count
        if watched.count < count {
            watched.append(contentsOf: repeatElement(false, count: count - watched.count))
            watchedGeneration.append(contentsOf: repeatElement(0, count: count - watchedGeneration.count))
            watchedPlace.append(contentsOf: repeatElement(-1, count: count - watchedPlace.count))
        }
        if clearsWatched {
            clearsWatched = false
            let generations = store.generations
            for slot in 0..<count {
                watched[slot] = false
                watchedGeneration[slot] = generations[slot]
            }
            for handle in watchedList { watchedPlace[Int(handle)] = -1 }
            watchedList.removeAll(keepingCapacity: true)
        }
        for (name, isTarget) in rewatch {
            guard let handles = isTarget ? store.handlesByTarget[name] : store.handlesByRuntime[name] else { continue }
            for handle in handles {
                let slot = Int(handle)
                watchedGeneration[slot] = store.generations[slot]
                setWatched(slot, isWatched(slot, store))
            }
        }
        rewatch.removeAll(keepingCapacity: true)
    }

    private func setWatched(_ slot: Int, _ isWatched: Bool) {
        guard watched[slot] != isWatched else { return }
        watched[slot] = isWatched
        if isWatched {
            watchedPlace[slot] = Int32(watchedList.count)
            watchedList.append(UInt32(slot))
        } else {
            let place = Int(watchedPlace[slot]), last = watchedList.removeLast()
            if place < watchedList.count {
                watchedList[place] = last
                watchedPlace[Int(last)] = Int32(place)
            }
            watchedPlace[slot] = -1
        }
    }

    private func isWatched(_ slot: Int, _ store: PropertyStore) -> Bool {
        guard let key = store.keys[slot] else { return false }
        return byRuntime[key.runtime] != nil || byTarget[key.target] != nil
    }

    /// Marks the properties of `dirty` pending for the filtered subscribers that may see them and asked
    /// for them. A subscriber in the index a property is found in already matches that part of its
    /// filter, so what remains per subscriber is an array read or two.
    func markWritten(_ dirty: UnsafeBufferPointer<UInt32>, _ store: PropertyStore) {
        if !rewatch.isEmpty || clearsWatched || watched.count < store.keys.count { update(store) }
        guard !byRuntime.isEmpty || !byTarget.isEmpty else { return }
        collectWatched(dirty, store)
        let owners = store.owners, shared = store.isShared, count = store.keys.count
        for handle in watchedDirty {
            guard let key = store.keys[Int(handle)] else { continue }
            let owner = owners[Int(handle)], isShared = shared[Int(handle)]
            if let interested = byRuntime[key.runtime] {
                for subscription in interested where subscription.seesAll || owner == subscription.viewer || isShared {
                    if let targets = subscription.targets, !targets.contains(key.target) { continue }
                    if subscription.isLeaving { continue }
                    subscription.mark(handle, count: count)
                }
            }
            if let interested = byTarget[key.target] {
                for subscription in interested where !subscription.isLeaving && (subscription.seesAll || owner == subscription.viewer || isShared) {
                    subscription.mark(handle, count: count)
                }
            }
        }
    }

    /// Runs `body` with a byte per handle, nonzero where some filtered subscriber may read the property,
    /// exact for every handle (those given to a property since the last tick are looked at again), and
    /// the same handles as a list, for a tick whose other values no one reads (`UnreadWrites.readProperties`,
    /// `readPropertyList`). Then forgets the handles given since the last tick.
    func withReadFlags(_ store: PropertyStore, _ body: (_ flags: UnsafeBufferPointer<UInt8>, _ list: UnsafeBufferPointer<UInt32>) -> Void) {
        if !rewatch.isEmpty || clearsWatched || watched.count < store.keys.count { update(store) }
        let generations = store.generations
        func look(_ slot: Int) {
            guard watchedGeneration[slot] != generations[slot] else { return }
            watchedGeneration[slot] = generations[slot]
            setWatched(slot, isWatched(slot, store))
        }
        if store.internedOverflow {
            for slot in 0..<store.keys.count { look(slot) }
        } else {
            for handle in store.interned where Int(handle) < watched.count { look(Int(handle)) }
        }
        // Before the tick: handles given out during it are looked at before the next one.
        store.clearInterned()
        watched.withUnsafeBufferPointer { flags in
            UnsafeRawBufferPointer(flags).withMemoryRebound(to: UInt8.self) { flags in
                watchedList.withUnsafeBufferPointer { body(flags, $0) }
            }
        }
    }

    /// The written handles some filtered subscriber watches, into `watchedDirty`: a pass over the flags
    /// alone, after looking again at handles reused since.
    private func collectWatched(_ dirty: UnsafeBufferPointer<UInt32>, _ store: PropertyStore) {
        watchedDirty.removeAll(keepingCapacity: true)
        let generations = store.generations
        relook.removeAll(keepingCapacity: true)
        watchedGeneration.withUnsafeMutableBufferPointer { seen in
            for handle in dirty where seen[Int(handle)] != generations[Int(handle)] {
                seen[Int(handle)] = generations[Int(handle)]
                relook.append(Int(handle))
            }
        }
        for slot in relook { setWatched(slot, isWatched(slot, store)) }
        watched.withUnsafeBufferPointer { watched in
            for handle in dirty where watched[Int(handle)] { watchedDirty.append(handle) }
        }
    }
}
