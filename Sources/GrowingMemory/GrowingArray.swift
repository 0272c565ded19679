/// An array of a trivial element type, 64-byte aligned, that grows in place once it has `reservedFrom`
/// elements (a `ReservedRegion`); smaller, it moves to a larger allocation as any buffer. The owner frees
/// it with `deallocate()`.
package struct GrowingArray<Element> {
    package static var reservedFrom: Int { 16_384 }
    package private(set) var pointer: UnsafeMutablePointer<Element>
    private var region: ReservedRegion?
    private var capacity = 0

    package init() {
        pointer = Self.allocate(1)
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Element> {
        UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Element>.stride, alignment: 64)
            .bindMemory(to: Element.self, capacity: max(count, 1))
    }

    /// Room for `newCapacity` elements, the first `count` kept. The others are `fill` when given, else
    /// zero bytes when `zeroed`, else unspecified.
    package mutating func grow(to newCapacity: Int, keeping count: Int, fill: Element? = nil, zeroed: Bool = false) {
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
        if newCapacity >= Self.reservedFrom, let fresh = ReservedRegion(bytes: ReservedRegion.reservation(for: newCapacity) * size) {
            if fresh.makeUsable(0 ..< newCapacity * size) { reserved = fresh } else { fresh.release() }
        }
        if let reserved {
            larger = reserved.base.bindMemory(to: Element.self, capacity: newCapacity)
            zeroFrom = count
        } else {
            larger = Self.allocate(newCapacity)
        }
        larger.update(from: pointer, count: count)
        deallocate()
        pointer = larger
        region = reserved
    }

    package func deallocate() {
        if let region { region.release() } else { UnsafeMutableRawPointer(pointer).deallocate() }
    }
}
