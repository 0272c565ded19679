#if canImport(Glibc)
import Glibc
#endif

/// Address space reserved up front with no memory behind it, made usable page by page as it is needed:
/// memory that grows in place, copying nothing. Fresh pages read as zero.
///
/// Lanes grow by doubling; moved each time, a block of 131,072 2-D springs took 5.4 ms of the engine
/// thread to double (3.6 ms of it the columns), and each doubling after it twice as long: a frame or two
/// missed by every client while one of them added springs. Reserving is only address space
/// (`PROT_NONE`, not counted as committed memory); `makeUsable` commits what is used.
struct ReservedRegion {
    static let page = 4096
    let base: UnsafeMutableRawPointer
    let bytes: Int

    /// Nil when the kernel refuses (an address-space limit): callers then move to a larger allocation.
    init?(bytes: Int) {
        let size = (bytes + Self.page - 1) / Self.page * Self.page
        let address = mmap(nil, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        base = address
        self.bytes = size
    }

    /// Makes the whole pages around `range` (bytes from `base`) readable and writable; false when the
    /// kernel refuses (out of memory under strict overcommit).
    func makeUsable(_ range: Range<Int>) -> Bool {
        let start = range.lowerBound / Self.page * Self.page
        let end = min((range.upperBound + Self.page - 1) / Self.page * Self.page, bytes)
        guard end > start else { return true }
        return mprotect(base + start, end - start, PROT_READ | PROT_WRITE) == 0
    }

    func release() {
        munmap(base, bytes)
    }

    /// Elements a region is reserved for when an array first reaches `capacity`: room to double four
    /// times more, and at least 4 Mi (a million lanes of four components).
    static func reservation(for capacity: Int) -> Int {
        max(capacity * 16, 1 << 22)
    }
}

/// A per-lane array of a trivial element type that grows in place once it has `reservedFrom` elements
/// (a `ReservedRegion`); smaller, it moves to a larger allocation as any buffer.
struct LaneArray<Element> {
    static var reservedFrom: Int { 16_384 }
    private(set) var pointer = UnsafeMutablePointer<Element>.allocate(capacity: 0)
    private var region: ReservedRegion?
    private var capacity = 0

    /// Room for `newCapacity` elements, the first `count` kept. The others are `fill` when given, else
    /// zero bytes when `zeroed`, else unspecified.
    mutating func grow(to newCapacity: Int, keeping count: Int, fill: Element? = nil, zeroed: Bool = false) {
        let size = MemoryLayout<Element>.stride
        /// Elements from which the memory is known to read zero (fresh pages).
        var zeroFrom = newCapacity
        defer {
            if let fill {
                (pointer + count).update(repeating: fill, count: newCapacity - count)
            } else if zeroed, zeroFrom > count {
                UnsafeMutableRawPointer(pointer + count).initializeMemory(as: UInt8.self, repeating: 0, count: (zeroFrom - count) * size)
            }
            capacity = newCapacity
        }
        if let region, newCapacity * size <= region.bytes, region.makeUsable(capacity * size ..< newCapacity * size) {
            zeroFrom = capacity
            return
        }
        let larger: UnsafeMutablePointer<Element>
        var reserved: ReservedRegion?
        if newCapacity >= Self.reservedFrom, let fresh = ReservedRegion(bytes: ReservedRegion.reservation(for: newCapacity) * size),
           fresh.makeUsable(0 ..< newCapacity * size) {
            reserved = fresh
            larger = fresh.base.bindMemory(to: Element.self, capacity: newCapacity)
            zeroFrom = count
        } else {
            larger = .allocate(capacity: newCapacity)
        }
        larger.update(from: pointer, count: count)
        deallocate()
        pointer = larger
        region = reserved
    }

    func deallocate() {
        if let region { region.release() } else { pointer.deallocate() }
    }
}
