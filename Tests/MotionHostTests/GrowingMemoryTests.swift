import GrowingMemory
@testable import MotionAnimation
import Testing

/// Lanes and the property store grow in place once large (a reserved region): nothing moves, what was kept stays, and
/// what is new reads as the caller asked.
@Suite("Growing memory")
struct GrowingMemoryTests {
    @Test func aGrowingArrayGrowsInPlaceOnceLargeAndKeepsItsElements() {
        var array = GrowingArray<UInt32>()
        var capacity = 64, moves = 0
        array.grow(to: capacity, keeping: 0)
        for index in 0..<capacity { array.pointer[index] = UInt32(index) }
        while capacity < 1 << 20 {
            let before = array.pointer
            array.grow(to: capacity * 2, keeping: capacity)
            if array.pointer != before { moves += 1 }
            #expect((0..<capacity).allSatisfy { array.pointer[$0] == UInt32($0) }, "kept at \(capacity)")
            for index in capacity..<capacity * 2 { array.pointer[index] = UInt32(index) }
            capacity *= 2
        }
        // Each doubling from 64 moves, the last into the reserved region at 16,384; none after it.
        #expect(moves == 8, "\(moves)")
        array.deallocate()
    }

    @Test func newElementsAreZeroOrTheFillAsAsked() {
        var values = GrowingArray<Double>(), counts = GrowingArray<UInt8>()
        var capacity = 0
        for next in [1000, 20_000, 40_000, 80_000] {
            values.grow(to: next, keeping: capacity, zeroed: true)
            counts.grow(to: next, keeping: capacity, fill: 3)
            #expect((capacity..<next).allSatisfy { values.pointer[$0] == 0 && counts.pointer[$0] == 3 }, "at \(next)")
            for index in 0..<next { values.pointer[index] = .pi }
            capacity = next
        }
        values.deallocate()
        counts.deallocate()
    }

    @Test func arenaColumnsGrowInPlaceAndStayStaggered() {
        var arena = ColumnArena(columns: 14)
        var capacity = 0
        var bases: [UnsafeMutablePointer<Double>] = []
        for next in [64, 16_384, 32_768, 65_536, 262_144] {
            bases = (0..<14).map { arena.column($0) }
            arena.grow(to: next, keeping: capacity)
            for column in 0..<14 {
                #expect((0..<capacity).allSatisfy { arena.column(column)[$0] == Double(column * 1_000_000 + $0) })
                #expect((capacity..<next).allSatisfy { arena.column(column)[$0] == 0 })
                for index in capacity..<next { arena.column(column)[index] = Double(column * 1_000_000 + index) }
                // Each column starts 320 bytes further past a page boundary than the one before.
                #expect(Int(bitPattern: arena.column(column)) % 4096 == column * 320 % 4096)
            }
            if next > 32_768 { #expect((0..<14).map { arena.column($0) } == bases, "in place at \(next)") }
            capacity = next
        }
        arena.deallocate()
    }
}
