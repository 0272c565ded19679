import NIOCore
import Synchronization

/// Buffers of a connection's large lines whose writes completed, kept for its next large lines: a 6 MB
/// frame in a fresh allocation took ~1,400 page faults on the engine thread, as long as encoding its
/// 40,000 updates took (BENCHMARKS.md). Two per connection at most, and every connection's together
/// within their pool's budget, so that subscribers cannot pin memory by the thousand.
final class SpareBuffers: Sendable {
    /// What every connection's spares may hold together.
    final class Pool: Sendable {
        let budget: Int
        fileprivate let held = Atomic<Int>(0)
        var heldBytes: Int { held.load(ordering: .relaxed) }

        init(budget: Int) {
            self.budget = budget
        }

        static let shared = Pool(budget: 256 << 20)
    }

    /// Lines shorter than this come from the allocator as before (no page faults worth keeping).
    static let smallest = 64 << 10
    static let largest = 64 << 20
    static let perConnection = 2

    private let pool: Pool
    private let buffers = Mutex<[ByteBuffer]>([])

    init(pool: Pool = .shared) {
        self.pool = pool
    }

    deinit {
        let capacity = buffers.withLock { $0.reduce(0) { $0 + $1.capacity } }
        pool.held.subtract(capacity, ordering: .relaxed)
    }

    /// A cleared spare with room for `count` bytes, for a large line, if one is kept.
    func take(for count: Int) -> ByteBuffer? {
        guard count >= Self.smallest else { return nil }
        let taken = buffers.withLock { buffers -> ByteBuffer? in
            guard let index = buffers.lastIndex(where: { $0.capacity >= count }) else { return nil }
            return buffers.remove(at: index)
        }
        guard var buffer = taken else { return nil }
        pool.held.subtract(buffer.capacity, ordering: .relaxed)
        buffer.clear()
        return buffer
    }

    /// Keeps a buffer whose write completed, if it is large and the budget has room.
    func keep(_ buffer: ByteBuffer) {
        let capacity = buffer.capacity
        guard capacity >= Self.smallest, capacity <= Self.largest else { return }
        guard pool.held.add(capacity, ordering: .relaxed).newValue <= pool.budget else {
            pool.held.subtract(capacity, ordering: .relaxed)
            return
        }
        let kept = buffers.withLock { buffers in
            guard buffers.count < Self.perConnection else { return false }
            buffers.append(buffer)
            return true
        }
        if !kept { pool.held.subtract(capacity, ordering: .relaxed) }
    }
}
