/// Columns of doubles, all of one length, in one allocation, each starting on a cache set of its own.
///
/// A tick streams a dozen columns side by side. Allocated one by one, columns this large each start at
/// the same offset within a page, so the same element of every column falls on the same cache set and
/// they evict one another (at 250,000 lanes that doubled the kernel's time on an AMD EPYC; BENCHMARKS.md).
/// Here column j starts `j × 320` bytes past a page boundary: 64 distinct line offsets before one repeats.
struct ColumnArena {
    static let stagger = 320
    static let page = 4096

    let columns: Int
    private(set) var capacity = 0
    private var base: UnsafeMutableRawPointer
    private var stride: Int

    init(columns: Int) {
        self.columns = columns
        stride = Self.stagger
        base = .allocate(byteCount: columns * stride, alignment: Self.page)
    }

    func deallocate() { base.deallocate() }

    func column(_ index: Int) -> UnsafeMutablePointer<Double> {
        (base + index * stride).assumingMemoryBound(to: Double.self)
    }

    /// Grows every column to `newCapacity`, keeping the first `count` entries of each.
    mutating func grow(to newCapacity: Int, keeping count: Int) {
        let newStride = (newCapacity * 8 + Self.page - 1) / Self.page * Self.page + Self.stagger
        let larger = UnsafeMutableRawPointer.allocate(byteCount: columns * newStride, alignment: Self.page)
        for index in 0..<columns {
            let column = (larger + index * newStride).bindMemory(to: Double.self, capacity: newCapacity)
            column.initialize(from: self.column(index), count: count)
            (column + count).initialize(repeating: 0, count: newCapacity - count)
        }
        base.deallocate()
        base = larger
        stride = newStride
        capacity = newCapacity
    }
}
