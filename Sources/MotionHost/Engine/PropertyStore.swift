import MotionWire

/// Every animated property of every runtime, in contiguous storage addressed by interned handles.
///
/// Plugins write through a handle on the frame path, so a write is an index, not a look-up. Writes mark
/// the handle dirty; a frame carries exactly the dirty handles, then `clearDirty()` starts the next one.
final class PropertyStore {
    struct Key: Hashable {
        var runtime: String
        var target: String
        var property: String
    }

    static let width = 4

    private(set) var keys: [Key?] = []
    private(set) var counts: [UInt8] = []
    private(set) var values: [Double] = []
    private(set) var velocities: [Double] = []
    /// `{"runtime":…,"target":…,"property":…,"value":` for each handle, encoded once at interning, in
    /// one arena: a frame copies them without touching a reference count.
    private(set) var prefixBytes: [UInt8] = []
    private(set) var prefixStarts: [Int] = []
    private(set) var prefixLengths: [Int] = []
    /// Arena bytes of prefixes whose handle was reused; compacted once they outweigh the live ones.
    private var prefixGarbage = 0
    private var isDirty: [Bool] = []
    /// `isLiveFlags[handle]`: the handle names a property (checked on every write without touching keys).
    private var isLiveFlags: [Bool] = []
    private(set) var dirty: [UInt32] = []
    private var index: [Key: UInt32] = [:]
    private var free: [UInt32] = []

    var liveCount: Int { index.count }

    /// The handle for `key`, creating the property (with no value yet) if needed.
    func intern(_ key: Key) -> UInt32 {
        if let handle = index[key] { return handle }
        let handle: UInt32
        if let reused = free.popLast() {
            handle = reused
        } else {
            handle = UInt32(keys.count)
            keys.append(nil)
            counts.append(0)
            values.append(contentsOf: repeatElement(0, count: Self.width))
            velocities.append(contentsOf: repeatElement(0, count: Self.width))
            prefixStarts.append(0)
            prefixLengths.append(0)
            isDirty.append(false)
            isLiveFlags.append(false)
        }
        let slot = Int(handle)
        keys[slot] = key
        isLiveFlags[slot] = true
        counts[slot] = 0
        setPrefix(Self.prefix(for: key), of: slot)
        index[key] = handle
        return handle
    }

    func handle(for key: Key) -> UInt32? { index[key] }

    func isLive(_ handle: UInt32) -> Bool {
        Int(handle) < isLiveFlags.count && isLiveFlags[Int(handle)]
    }

    /// Copies up to `capacity` components of value and velocity; returns the property's component count.
    func read(_ handle: UInt32, value: UnsafeMutablePointer<Double>?, velocity: UnsafeMutablePointer<Double>?,
              capacity: Int) -> Int {
        guard isLive(handle) else { return 0 }
        let slot = Int(handle), count = Int(counts[slot]), base = slot * Self.width
        for component in 0..<min(count, capacity) {
            value?[component] = values[base + component]
            velocity?[component] = velocities[base + component]
        }
        return count
    }

    /// One write: `count` components of `value` and `velocity` (nil: zero velocity).
    func write(_ handle: UInt32, value: UnsafePointer<Double>, velocity: UnsafePointer<Double>?, count: Int) {
        guard (1...Self.width).contains(count) else { return }
        var handle = handle, count = UInt8(count)
        write(1, handles: &handle, counts: &count, values: value, velocities: velocity)
    }

    /// `n` writes in one pass (the "motion.properties/1" extension): entry `i` is `counts[i]` components
    /// at `values + 4i` and `velocities + 4i` (only the first `counts[i]` of each are read). Entries for a
    /// property that is gone or with 0 or more than 4 components are ignored.
    func write(_ n: Int, handles: UnsafePointer<UInt32>, counts newCounts: UnsafePointer<UInt8>,
               values newValues: UnsafePointer<Double>, velocities newVelocities: UnsafePointer<Double>?) {
        let width = Self.width
        // Geometric growth only: reserving exactly `count + n` on every call would copy the list on
        // every single write (plan.add of many springs went quadratic).
        if dirty.capacity < dirty.count + n { dirty.reserveCapacity(max(dirty.count + n, dirty.capacity * 2)) }
        isLiveFlags.withUnsafeBufferPointer { isLive in
            values.withUnsafeMutableBufferPointer { values in
                velocities.withUnsafeMutableBufferPointer { velocities in
                    counts.withUnsafeMutableBufferPointer { counts in
                        isDirty.withUnsafeMutableBufferPointer { isDirty in
                            for entry in 0..<n {
                                let slot = Int(handles[entry]), count = Int(newCounts[entry])
                                guard slot < isLive.count, isLive[slot], count >= 1, count <= width else { continue }
                                let base = slot * width, source = entry * width
                                for component in 0..<width {
                                    let inRange = component < count
                                    values[base + component] = inRange ? newValues[source + component] : 0
                                    velocities[base + component] = inRange ? (newVelocities?[source + component] ?? 0) : 0
                                }
                                counts[slot] = UInt8(count)
                                if !isDirty[slot] {
                                    isDirty[slot] = true
                                    dirty.append(UInt32(slot))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    func value(_ handle: UInt32) -> [Double] {
        let slot = Int(handle), base = slot * Self.width
        return Array(values[base..<base + Int(counts[slot])])
    }

    func velocity(_ handle: UInt32) -> [Double] {
        let slot = Int(handle), base = slot * Self.width
        return Array(velocities[base..<base + Int(counts[slot])])
    }

    func clearDirty() {
        for handle in dirty { isDirty[Int(handle)] = false }
        dirty.removeAll(keepingCapacity: true)
    }

    /// Forgets every property of `runtime`; their handles may be reused.
    func removeAll(inRuntime runtime: String) {
        for (key, handle) in index where key.runtime == runtime {
            index[key] = nil
            keys[Int(handle)] = nil
            isLiveFlags[Int(handle)] = false
            counts[Int(handle)] = 0
            free.append(handle)
        }
        dirty.removeAll { keys[Int($0)] == nil }
    }

    /// The pre-encoded start of `handle`'s updates.
    func prefix(_ handle: UInt32) -> ArraySlice<UInt8> {
        let start = prefixStarts[Int(handle)]
        return prefixBytes[start..<start + prefixLengths[Int(handle)]]
    }

    private func setPrefix(_ bytes: [UInt8], of slot: Int) {
        prefixGarbage += prefixLengths[slot]
        if prefixGarbage > 1 << 20, prefixGarbage > prefixBytes.count / 2 { compactPrefixes() }
        prefixStarts[slot] = prefixBytes.count
        prefixLengths[slot] = bytes.count
        prefixBytes.append(contentsOf: bytes)
    }

    private func compactPrefixes() {
        var compacted: [UInt8] = []
        compacted.reserveCapacity(prefixBytes.count - prefixGarbage)
        for slot in keys.indices where keys[slot] != nil {
            let start = prefixStarts[slot]
            prefixStarts[slot] = compacted.count
            compacted.append(contentsOf: prefixBytes[start..<start + prefixLengths[slot]])
        }
        for slot in keys.indices where keys[slot] == nil { prefixLengths[slot] = 0 }
        prefixBytes = compacted
        prefixGarbage = 0
    }

    private static func prefix(for key: Key) -> [UInt8] {
        var bytes = Array("{\"runtime\":".utf8)
        JSONWriter.writeString(key.runtime, into: &bytes)
        bytes.append(contentsOf: ",\"target\":".utf8)
        JSONWriter.writeString(key.target, into: &bytes)
        bytes.append(contentsOf: ",\"property\":".utf8)
        JSONWriter.writeString(key.property, into: &bytes)
        bytes.append(contentsOf: ",\"value\":".utf8)
        return bytes
    }
}
