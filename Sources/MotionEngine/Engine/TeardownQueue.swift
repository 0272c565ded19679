/// Destroyed runtimes still being freed, oldest first (`Engine+Teardown`), taken a uid at a time.
struct TeardownQueue {
    private var pending: [RuntimeTeardown] = []
    /// The uid whose teardown was freed last.
    private var lastOwner: UInt32 = 0

    var isEmpty: Bool { pending.isEmpty }

    mutating func append(_ teardown: RuntimeTeardown) { pending.append(teardown) }

    /// The next teardown to work on: the oldest of the next uid after the last one served.
    mutating func next() -> (index: Int, teardown: RuntimeTeardown)? {
        guard !pending.isEmpty else { return nil }
        let index = pending.firstIndex { ($0.scope.owner ?? .max) > lastOwner } ?? 0
        lastOwner = pending[index].scope.owner ?? .max
        return (index, pending[index])
    }

    /// Removes the teardown at `index` (from `next()`), now freed.
    mutating func remove(at index: Int) { pending.remove(at: index) }
}
