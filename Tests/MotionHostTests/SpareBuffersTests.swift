@testable import MotionHost
import NIOCore
import Testing

/// A connection keeps the buffers of its large lines for the next ones, two at most, within a budget
/// shared by every connection, and gives the budget back when it goes.
@Suite("Spare buffers")
struct SpareBuffersTests {
    private let allocator = ByteBufferAllocator()

    private func written(_ count: Int) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: count)
        buffer.writeRepeatingByte(7, count: count)
        return buffer
    }

    @Test func largeLinesReuseWhatWasWrittenSmallOnesDoNot() {
        let pool = SpareBuffers.Pool(budget: 64 << 20)
        let spares = SpareBuffers(pool: pool)
        spares.keep(written(1000))
        #expect(pool.heldBytes == 0, "a small line's buffer is not kept")
        #expect(spares.take(for: 1000) == nil)
        let frame = written(6 << 20)
        spares.keep(frame)
        #expect(pool.heldBytes == frame.capacity)
        #expect(spares.take(for: 1000) == nil, "a small line does not take a frame's buffer")
        #expect(spares.take(for: frame.capacity + 1) == nil, "nor a line it cannot hold")
        let reused = spares.take(for: 5 << 20)
        #expect(reused?.capacity == frame.capacity)
        #expect(reused?.readableBytes == 0, "handed back empty")
        #expect(pool.heldBytes == 0)
    }

    @Test func twoPerConnectionWithinTheBudget() {
        let pool = SpareBuffers.Pool(budget: 20 << 20)
        var first: SpareBuffers? = SpareBuffers(pool: pool)
        for _ in 0..<3 { first?.keep(written(4 << 20)) }
        let two = pool.heldBytes
        #expect(two >= 8 << 20 && two < 12 << 20, "two of the three kept")
        let second = SpareBuffers(pool: pool)
        for _ in 0..<2 { second.keep(written(4 << 20)) }
        #expect(pool.heldBytes <= 20 << 20, "the budget is shared")
        #expect(pool.heldBytes > two, "what fits in it is kept")
        let before = pool.heldBytes
        first = nil
        #expect(pool.heldBytes == before - two, "a closed connection gives its spares back")
        _ = second
    }

    @Test func aBufferLargerThanTheLargestIsNotKept() {
        let pool = SpareBuffers.Pool(budget: 1 << 30)
        let spares = SpareBuffers(pool: pool)
        spares.keep(written(SpareBuffers.largest + 1))
        #expect(pool.heldBytes == 0)
    }
}
