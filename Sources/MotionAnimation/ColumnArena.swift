import GrowingMemory

/// Columns of doubles, all of one length, in one allocation, each starting on a cache set of its own.
///
/// A tick streams a dozen columns side by side. Allocated one by one, columns this large each start at
/// the same offset within a page, so the same element of every column falls on the same cache set and
/// they evict one another (at 250,000 lanes that doubled the kernel's time on an AMD EPYC; BENCHMARKS.md).
/// Here column j starts `j × 320` bytes past a page boundary: 64 distinct line offsets before one repeats.
///
/// From `GrowingArray.reservedFrom` lanes the columns live in a `ReservedRegion`, each with room reserved to
/// grow in place (copying 131,072 lanes' columns took 3.6 ms of the engine thread).
struct ColumnArena {
    static let stagger = 320
    static let page = 4096

    let columns: Int
    private(set) var capacity = 0
    private var base: UnsafeMutableRawPointer
    private var stride: Int
    private var region: ReservedRegion?

    init(columns: Int) {
        self.columns = columns
        stride = Self.stagger
        base = .allocate(byteCount: columns * stride, alignment: Self.page)
    }

    func deallocate() {
        if let region { region.release() } else { base.deallocate() }
    }

    func column(_ index: Int) -> UnsafeMutablePointer<Double> {
        (base + index * stride).assumingMemoryBound(to: Double.self)
    }

    /// Grows every column to `newCapacity`, keeping the first `count` entries of each; the others read 0.
    mutating func grow(to newCapacity: Int, keeping count: Int) {
        if let region, newCapacity * 8 <= stride - Self.stagger, growInPlace(region, to: newCapacity, keeping: count) {
            return
        }
        var reserved: ReservedRegion?
        var newStride = (newCapacity * 8 + Self.page - 1) / Self.page * Self.page + Self.stagger
        var larger: UnsafeMutableRawPointer
        if newCapacity >= GrowingArray<Double>.reservedFrom {
            let room = ReservedRegion.reservation(for: newCapacity)
            let roomStride = (room * 8 + Self.page - 1) / Self.page * Self.page + Self.stagger
            if let fresh = ReservedRegion(bytes: columns * roomStride) {
                if (0..<columns).allSatisfy({ fresh.makeUsable($0 * roomStride ..< $0 * roomStride + newCapacity * 8) }) {
                    reserved = fresh
                    newStride = roomStride
                } else {
                    fresh.release()
                }
            }
        }
        if let reserved {
            larger = reserved.base
        } else {
            larger = .allocate(byteCount: columns * newStride, alignment: Self.page)
        }
        for index in 0..<columns {
            let column = (larger + index * newStride).bindMemory(to: Double.self, capacity: newCapacity)
            column.initialize(from: self.column(index), count: count)
            if reserved == nil { (column + count).initialize(repeating: 0, count: newCapacity - count) }
        }
        deallocate()
        base = larger
        stride = newStride
        region = reserved
        capacity = newCapacity
    }

    /// Commits each column's room up to `newCapacity` (fresh pages read 0); false if the kernel refuses.
    private mutating func growInPlace(_ region: ReservedRegion, to newCapacity: Int, keeping count: Int) -> Bool {
        for index in 0..<columns {
            let start = index * stride
            guard region.makeUsable(start + capacity * 8 ..< start + newCapacity * 8) else { return false }
            // Lanes removed since the last growth left their values behind: cleared as a move would.
            if capacity > count { (column(index) + count).update(repeating: 0, count: capacity - count) }
        }
        capacity = newCapacity
        return true
    }
}
