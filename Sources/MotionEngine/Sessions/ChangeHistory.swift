import GrowingMemory

/// The properties written at each of the last `depth` frame steps, so that a subscriber without a filter
/// marks what changed when it is served, not at every step: 64 shared-memory subscribers of one uid over
/// its 110,000 moving springs took 7 million marks a tick, before its frame budget could defer any of them
/// (another uid's client fell to 51–59 frames/s). Marked when served, the marking is part of the frame
/// work its uid's budget bounds.
///
/// A subscriber served every twelfth step (`maxRate: 10`, or one its uid's budget defers) has twelve
/// steps of writes to mark, most of them the same properties again. So each property's last step is
/// kept too, and when the steps to mark hold more entries than a quarter of the store, the subscriber
/// looks at each property once instead: a catch-up costs at most a pass over the store, whatever the
/// wait. Writes are counted per uid, so that `dropped` stays exact either way.
final class ChangeHistory {
    static let depth = 32
    private var lists: [[UInt32]] = Array(repeating: [], count: ChangeHistory.depth)
    /// The last step recorded (steps count from 1).
    private(set) var latest: UInt64 = 0
    /// By property handle: the last step it was written at (0: none recorded).
    private var writtenAt = GrowingArray<UInt64>()
    private var writtenAtCapacity = 0
    /// Writes recorded since the first step: all, of shared (or the daemon's) properties, and of each
    /// uid's own properties (not shared).
    private var writes: UInt64 = 0
    private var sharedWrites: UInt64 = 0
    private var writesByOwner: [UInt32: UInt64] = [:]

    deinit { writtenAt.deallocate() }

    private func list(_ step: UInt64) -> Int { Int(step % UInt64(Self.depth)) }

    /// The properties written at the next step.
    func record(_ dirty: UnsafeBufferPointer<UInt32>, store: PropertyStore) {
        latest += 1
        // All the lists grow together, when one must: a larger frame then allocates at one step, not at
        // each of the next 32 (a steady state allocates nothing).
        if lists[list(latest)].capacity < dirty.count {
            for index in lists.indices { lists[index].reserveCapacity(dirty.count) }
        }
        lists[list(latest)].removeAll(keepingCapacity: true)
        lists[list(latest)].append(contentsOf: dirty)
        let handles = store.keys.count
        if writtenAtCapacity < handles {
            let grown = max(handles, writtenAtCapacity * 2, 1024)
            writtenAt.grow(to: grown, keeping: writtenAtCapacity, zeroed: true)
            writtenAtCapacity = grown
        }
        let writtenAt = writtenAt.pointer, step = latest
        writes &+= UInt64(dirty.count)
        store.owners.withUnsafeBufferPointer { owners in
            store.isShared.withUnsafeBufferPointer { isShared in
                // Owners in runs (a runtime's properties are written together).
                var owner = PropertyStore.daemon, run: UInt64 = 0
                for handle in dirty {
                    let index = Int(handle)
                    writtenAt[index] = step
                    if isShared[index] {
                        sharedWrites &+= 1
                    } else if owners[index] == owner {
                        run &+= 1
                    } else {
                        if run > 0 { writesByOwner[owner, default: 0] &+= run }
                        owner = owners[index]
                        run = 1
                    }
                }
                if run > 0 { writesByOwner[owner, default: 0] &+= run }
            }
        }
    }

    /// Writes recorded so far of the properties `subscription` may see.
    private func visibleWrites(_ subscription: Subscription) -> UInt64 {
        subscription.seesAll ? writes : writesByOwner[subscription.viewer, default: 0] &+ sharedWrites
    }

    /// Starts `subscription` at the latest step: what was written before is not its to mark.
    func start(_ subscription: Subscription) {
        subscription.markedThrough = latest
        subscription.writesMarked = visibleWrites(subscription)
    }

    /// Whether anything was written after `step`.
    func hasChanges(after step: UInt64) -> Bool {
        guard step < latest else { return false }
        guard latest - step <= UInt64(Self.depth) else { return true }
        for recorded in (step + 1)...latest where !lists[list(recorded)].isEmpty { return true }
        return false
    }

    /// Marks pending for `subscription` what it may see of what was written after its `markedThrough`,
    /// each property once; a value written again before it was sent counts as `dropped`.
    func catchUp(_ subscription: Subscription, store: PropertyStore, countsDrops: Bool = true) {
        let from = subscription.markedThrough
        guard from < latest else { return }
        let visible = visibleWrites(subscription)
        let entries = latest - from <= UInt64(Self.depth)
            ? ((from + 1)...latest).reduce(0) { $0 + lists[list($1)].count } : .max
        subscription.markedThrough = latest
        subscription.growPending(to: store.keys.count)
        guard entries > store.keys.count / 4 else {
            for recorded in (from + 1)...latest {
                lists[list(recorded)].withUnsafeBufferPointer { subscription.mark($0, in: store) }
            }
            subscription.writesMarked = visible
            return
        }
        // The list is taken out of the subscription while it grows (`Subscription.mark`).
        var pending = subscription.pending
        subscription.pending = []
        defer { subscription.pending = pending }
        let isFiltered = subscription.isFiltered
        // Each property once: the written ones it may see, marked; the rest of its writes were dropped.
        var marked: UInt64 = 0, wasPending: UInt64 = 0
        let writtenAt = writtenAt.pointer
        let handles = min(store.keys.count, writtenAtCapacity)
        subscription.isPending.withUnsafeMutableBufferPointer { isPending in
            for index in 0..<handles where writtenAt[index] > from {
                let handle = UInt32(index)
                if isFiltered, !subscription.matches(handle, in: store) { continue }
                marked += 1
                if isPending[index] {
                    wasPending += 1
                } else {
                    isPending[index] = true
                    pending.append(handle)
                }
            }
        }
        if subscription.display == nil, countsDrops {
            let lost = (visible &- subscription.writesMarked) &+ wasPending
            subscription.dropped += lost > marked ? Int(lost - marked) : 0
        }
        subscription.writesMarked = visible
    }
}
