/// The properties written at each of the last `depth` frame steps, so that a subscriber without a filter
/// marks what changed when it is served, not at every step: 64 shared-memory subscribers of one uid over
/// its 110,000 moving springs took 7 million marks a tick, before its frame budget could defer any of them
/// (another uid's client fell to 51–59 frames/s). Marked when served, the marking is part of the frame
/// work its uid's budget bounds.
final class ChangeHistory {
    static let depth = 32
    private var lists: [[UInt32]] = Array(repeating: [], count: ChangeHistory.depth)
    /// The last step recorded (steps count from 1).
    private(set) var latest: UInt64 = 0

    private func list(_ step: UInt64) -> Int { Int(step % UInt64(Self.depth)) }

    /// The properties written at the next step.
    func record(_ dirty: UnsafeBufferPointer<UInt32>) {
        latest += 1
        lists[list(latest)].removeAll(keepingCapacity: true)
        lists[list(latest)].append(contentsOf: dirty)
    }

    /// Whether anything was written after `step`.
    func hasChanges(after step: UInt64) -> Bool {
        guard step < latest else { return false }
        guard latest - step <= UInt64(Self.depth) else { return true }
        for recorded in (step + 1)...latest where !lists[list(recorded)].isEmpty { return true }
        return false
    }

    /// Marks pending for `subscription` what it may see of what was written after its `markedThrough`;
    /// when those steps are no longer kept, every property it may see (its next frame is a resync).
    func catchUp(_ subscription: Subscription, store: PropertyStore) {
        let from = subscription.markedThrough
        guard from < latest else { return }
        subscription.markedThrough = latest
        subscription.growPending(to: store.keys.count)
        subscription.isPending.withUnsafeMutableBufferPointer { isPending in
            guard latest - from <= UInt64(Self.depth) else {
                for handle in 0..<UInt32(store.keys.count) where store.isLive(handle) {
                    if subscription.isFiltered, !subscription.matches(handle, in: store) { continue }
                    subscription.mark(handle, &isPending)
                }
                return
            }
            for recorded in (from + 1)...latest {
                for handle in lists[list(recorded)] {
                    if subscription.isFiltered, !subscription.matches(handle, in: store) { continue }
                    subscription.mark(handle, &isPending)
                }
            }
        }
    }
}
