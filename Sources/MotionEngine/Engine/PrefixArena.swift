/// `{"runtime":…,"target":…,"property":…,"value":` for each property handle, encoded once when the handle
/// is given to a property, in one arena: a frame copies them without touching a reference count.
struct PrefixArena {
    private(set) var bytes: [UInt8] = []
    private(set) var starts: [Int] = []
    private(set) var lengths: [Int] = []
    /// Bytes of prefixes whose handle was given to another property; compacted once they outweigh the
    /// live ones.
    private var garbage = 0

    /// Room for one more handle (no prefix yet).
    mutating func appendHandle() {
        starts.append(0)
        lengths.append(0)
    }

    /// `handle`'s prefix.
    subscript(handle: UInt32) -> ArraySlice<UInt8> {
        let start = starts[Int(handle)]
        return bytes[start..<start + lengths[Int(handle)]]
    }

    /// Gives `slot` the prefix `encoded`; `isLive` says which slots' prefixes a compaction keeps.
    mutating func set(_ encoded: [UInt8], of slot: Int, isLive: (Int) -> Bool) {
        garbage += lengths[slot]
        if garbage > 1 << 20, garbage > bytes.count / 2 { compact(isLive: isLive) }
        starts[slot] = bytes.count
        lengths[slot] = encoded.count
        bytes.append(contentsOf: encoded)
    }

    private mutating func compact(isLive: (Int) -> Bool) {
        var compacted: [UInt8] = []
        compacted.reserveCapacity(bytes.count - garbage)
        for slot in starts.indices {
            guard isLive(slot) else {
                lengths[slot] = 0
                continue
            }
            let start = starts[slot]
            starts[slot] = compacted.count
            compacted.append(contentsOf: bytes[start..<start + lengths[slot]])
        }
        bytes = compacted
        garbage = 0
    }
}
