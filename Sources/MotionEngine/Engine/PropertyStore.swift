import HashTreeCollections
import GrowingMemory
import MotionKernels
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
    /// Doubles per handle in `slots`: value, then velocity.
    static let slotSize = 2 * width
    /// From this many handles (8 MiB of slots, beyond a core's caches) writes bypass the caches.
    static let streamingHandles = 131_072

    private(set) var keys: [Key?] = []
    /// The frame path's columns, `capacity` handles long, in memory of their own: no uniqueness checks or
    /// reference counting per write. `slots` holds one 64-byte line per handle, value then velocity (4
    /// components each), so that a write fills whole lines of one stream (5× faster than two arrays of
    /// half lines at 250,000 springs; BENCHMARKS.md).
    var slots: UnsafeMutablePointer<Double> { slotStorage.pointer }
    /// Each handle's component count (0: no value yet).
    var counts: UnsafeMutablePointer<UInt8> { countStorage.pointer }
    /// `dirtyFrame[handle] == frame`: the handle is in this frame's dirty list. Starting a frame is one
    /// increment, not a pass over the list.
    private var dirtyFrame: UnsafeMutablePointer<UInt32> { dirtyFrameStorage.pointer }
    private var frame: UInt32 = 1
    /// `isLiveFlags[handle]`: the handle names a property (checked on every write without touching keys).
    private var isLiveFlags: UnsafeMutablePointer<Bool> { isLiveStorage.pointer }
    /// What `motion_store_write` may write: `isLiveFlags`, but for the handles a refresh must not
    /// overwrite while it runs (`refreshQuietly`).
    private var isWritable: UnsafeMutablePointer<Bool> { isWritableStorage.pointer }
    /// Room for every handle and one more (`motion_store_write` stores each written handle at the end
    /// and counts it only if it is new to the frame).
    private var dirtyList: UnsafeMutablePointer<UInt32> { dirtyListStorage.pointer }
    private var dirtyCount = 0
    /// Properties gone since shared-memory subscribers last looked (`GoneProperties`).
    let gone = GoneProperties()
    private var capacity = 0
    /// Each handle's update prefix (`PrefixArena`).
    private(set) var prefixes = PrefixArena()
    /// Whose each handle is (`OwnedName`; `daemon` for the daemon's own) and whether every uid may
    /// read it: subscribers see what their uid may see, in O(1) per update.
    private(set) var owners: [UInt32] = []
    /// Live properties by owner (the `properties` quota; the daemon's are not counted).
    private(set) var liveByOwner: [UInt32: Int] = [:]
    private(set) var isShared: [Bool] = []
    /// Bumped each time a handle is given to a property: a handle seen with another generation names
    /// another property now (shared-memory subscribers name their slots again). A column like `counts`.
    var generations: UnsafeMutablePointer<UInt32> { generationStorage.pointer }
    // The columns above, each grown in place once large (`GrowingArray`: doubling 262,144 handles moved
    // 16 MiB of slots and zeroed as much on the engine thread).
    private var slotStorage = GrowingArray<Double>(), countStorage = GrowingArray<UInt8>()
    private var dirtyFrameStorage = GrowingArray<UInt32>(), dirtyListStorage = GrowingArray<UInt32>()
    private var isLiveStorage = GrowingArray<Bool>(), isWritableStorage = GrowingArray<Bool>()
    private var generationStorage = GrowingArray<UInt32>()
    static let daemon = UInt32.max
    /// Properties of dry runs: never in a frame (`dropHiddenFromDirty`).
    private var isHidden: [Bool] = []
    /// A hash trie: growing it rehashes nothing (a Dictionary of 393,216 keys of three strings took 52 ms
    /// to grow; `Engine.performers`). One per runtime: a runtime destroyed drops its whole table (one of
    /// 51,000 properties took ~170 ms key by key).
    private var index = TreeDictionary<String, TreeDictionary<Key, UInt32>>()
    private var live = 0
    private var free: [UInt32] = []
    /// Live handles by target name and by runtime key: a subscriber filtered to a few targets finds
    /// their properties without a pass over every property (`SubscriptionHub`).
    /// Lists, not hash sets (`HandleGroups`): a runtime's set of 393,216 handles grew by rehashing every
    /// entry at once (33 ms); a list doubles by one copy of its handles.
    private(set) var handlesByTarget = HandleGroups()
    private(set) var handlesByRuntime = HandleGroups()

    /// Some plugin kept values instead of writing them (no one was to read them, "motion.kept/1"): every
    /// read first asks for them (`refresh`, set by the engine). Reads of values go through `read`,
    /// `value`, `velocity` and `count(of:)`; frames read only handles written this tick or pending.
    var isStale = false {
        didSet { if isStale { freshness.staleAgain() } }
    }
    var refresh: (() -> Void)?
    /// Asks for what was kept of these properties only ("motion.kept/1" `write_kept_some`), set by the engine.
    var refreshSome: ((UnsafeBufferPointer<UInt32>) -> Void)?
    /// Told the handles of a write that held a NaN or an infinity (a plugin's bug; written all the same:
    /// frames show `null`), set by the engine to report them.
    var onNonFinite: ((UInt32) -> Void)?
    private var freshness = KeptFreshness()
    private var refreshDepth = 0
    /// Handles given to a property since `clearInterned()` (at most `internedLimit`; past it
    /// `internedOverflow`): the clock looks at their subscribers' flags again before a tick.
    private(set) var interned: [UInt32] = []
    private(set) var internedOverflow = false
    static let internedLimit = 1 << 16

    func clearInterned() {
        interned.removeAll(keepingCapacity: true)
        internedOverflow = false
    }

    @inline(__always) func refreshIfStale() {
        guard isStale else { return }
        // Cleared first: the writes that answer come back through `write`, and a read among them is fine.
        isStale = false
        refreshQuietly { refresh?() }
    }

    /// The same for one property: a read of one costs what it reads, not a write of every kept value.
    @inline(__always) func refreshIfStale(_ handle: UInt32) {
        guard isStale, !freshness.isFresh(handle) else { return }
        guard let refreshSome, freshness.targeted < KeptFreshness.targetedLimit(live: live) else { return refreshIfStale() }
        freshness.markFresh(handle)
        // Asked even when this frame wrote the handle (a claimant's start): the write is dropped, and the
        // plugin no longer holds the value as unwritten (it would write it when the lane goes).
        withUnsafePointer(to: handle) { handle in refreshQuietly { refreshSome(UnsafeBufferPointer(start: handle, count: 1)) } }
    }

    /// Whether `handle`'s stored value is current (no plugin holds a newer one).
    func isCurrent(_ handle: UInt32) -> Bool { !isStale || freshness.isFresh(handle) }

    /// The kept values come back as the last advance computed them, except over a value written since
    /// (this frame's: a newer plan's start, a Set), which stays. They make no frame: no frame subscriber
    /// read them at that tick (the properties one reads are written at every tick), and one that reads a
    /// property now would get, again, the value it was sent.
    private func refreshQuietly(_ refresh: () -> Void) {
        // One inside another (a plugin that reads while it writes what it kept): the outer one's closing
        // and clean-up hold for both.
        guard refreshDepth == 0 else { return refresh() }
        refreshDepth += 1
        defer { refreshDepth -= 1 }
        let before = dirtyCount
        // Closed to the refresh's writes for its duration (reads still see them): `motion_store_write`
        // skips handles that are not writable.
        for position in 0..<before { isWritable[Int(dirtyList[position])] = false }
        refresh()
        for position in 0..<before { isWritable[Int(dirtyList[position])] = true }
        for position in before..<dirtyCount { dirtyFrame[Int(dirtyList[position])] = 0 }
        dirtyCount = before
    }

    deinit {
        slotStorage.deallocate()
        countStorage.deallocate()
        for storage in [dirtyFrameStorage, dirtyListStorage, generationStorage] { storage.deallocate() }
        isLiveStorage.deallocate()
        isWritableStorage.deallocate()
    }

    var liveCount: Int { live }

    /// Handles written since the last `clearDirty()`, each once (valid until the next write or clear).
    var dirty: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: dirtyList, count: dirtyCount) }
    /// Where the dirty list stands: handles first written after this are listed from here on.
    var dirtyMark: Int { dirtyCount }

    /// The handle for `key`, creating the property (with no value yet) if needed; `shared` when its
    /// runtime is readable by every uid.
    func intern(_ key: Key, shared: Bool = false, hidden: Bool = false) -> UInt32 {
        if let handle = index[key.runtime]?[key] { return handle }
        let handle: UInt32
        if let reused = free.popLast() {
            handle = reused
        } else {
            handle = UInt32(keys.count)
            if keys.count == capacity { grow(to: max(64, capacity * 2)) }
            keys.append(nil)
            prefixes.appendHandle()
            owners.append(Self.daemon)
            isShared.append(false)
            isHidden.append(false)
        }
        generations[Int(handle)] &+= 1
        if generations[Int(handle)] == 0 { generations[Int(handle)] = 1 }  // 0 marks a slot gone (`SharedFrameChannel`)
        if interned.count < Self.internedLimit { interned.append(handle) } else { internedOverflow = true }
        let slot = Int(handle)
        keys[slot] = key
        isLiveFlags[slot] = true
        isWritable[slot] = true
        counts[slot] = 0
        let (owner, name) = OwnedName.split(key.runtime)
        owners[slot] = owner ?? Self.daemon
        if let owner { liveByOwner[owner, default: 0] += 1 }
        // The daemon's own runtimes (and an engine used without sessions) are visible to everyone.
        isShared[slot] = shared || owner == nil
        isHidden[slot] = hidden
        prefixes.set(Self.prefix(for: key, runtime: name), of: slot) { self.keys[$0] != nil }
        index[key.runtime, default: [:]][key] = handle
        live += 1
        handlesByTarget.insert(handle, into: key.target)
        handlesByRuntime.insert(handle, into: key.runtime)
        return handle
    }

    func handle(for key: Key) -> UInt32? { index[key.runtime]?[key] }

    func isLive(_ handle: UInt32) -> Bool {
        Int(handle) < keys.count && isLiveFlags[Int(handle)]
    }

    /// The component count of a live handle's value (0 before its first write).
    func count(of handle: UInt32) -> Int {
        refreshIfStale(handle)
        return isLive(handle) ? Int(counts[Int(handle)]) : 0
    }

    /// Copies up to `capacity` components of value and velocity; returns the property's component count.
    func read(_ handle: UInt32, value: UnsafeMutablePointer<Double>?, velocity: UnsafeMutablePointer<Double>?,
              capacity: Int) -> Int {
        refreshIfStale(handle)
        guard isLive(handle) else { return 0 }
        let count = Int(counts[Int(handle)]), stored = slot(handle)
        for component in 0..<min(count, capacity) {
            value?[component] = stored[component]
            velocity?[component] = stored[Self.width + component]
        }
        return count
    }

    /// One write: `count` components of `value` and `velocity` (nil: zero velocity).
    /// A write that changes nothing (the same components, value and velocity) does not make the property
    /// dirty: a plan that starts where its property is sends no frame repeating it (issue #22).
    func write(_ handle: UInt32, value: UnsafePointer<Double>, velocity: UnsafePointer<Double>?, count: Int) {
        guard (1...Self.width).contains(count) else { return }
        // Compared with the stored value only while it is current (a kept one may differ from it).
        if isCurrent(handle), Int(handle) < keys.count, isLive(handle), Int(counts[Int(handle)]) == count {
            let stored = slot(handle)
            var same = true
            for component in 0..<count {
                same = same && stored[component] == value[component] && stored[Self.width + component] == (velocity?[component] ?? 0)
            }
            if same { return }
        }
        var handle = handle, count = UInt8(count)
        write(1, handles: &handle, counts: &count, values: value, velocities: velocity)
    }

    /// `n` writes in one pass (the "motion.properties/1" extension): entry `i` is `counts[i]` components
    /// at `values + 4i` and `velocities + 4i` (only the first `counts[i]` of each are read). Entries for a
    /// property that is gone or with 0 or more than 4 components are ignored.
    func write(_ n: Int, handles: UnsafePointer<UInt32>, counts newCounts: UnsafePointer<UInt8>,
               values newValues: UnsafePointer<Double>, velocities newVelocities: UnsafePointer<Double>?) {
        // Every handle is dirty at most once, so the list never outgrows the handles.
        let live = UnsafeRawPointer(isWritable).assumingMemoryBound(to: UInt8.self)
        var nonFinite: Int32 = 0
        dirtyCount = motion_store_write(slots, counts, live, dirtyFrame, frame, dirtyList, dirtyCount, keys.count,
                                        handles, newCounts, newValues, newVelocities, n, keys.count >= Self.streamingHandles ? 1 : 0,
                                        &nonFinite)
        guard nonFinite != 0, let onNonFinite else { return }
        // Rare (a bug): which entries, found by looking again.
        for entry in 0..<n {
            let count = min(Int(newCounts[entry]), Self.width)
            let finite = (0..<count).allSatisfy { newValues[entry * 4 + $0].isFinite && (newVelocities?[entry * 4 + $0].isFinite ?? true) }
            if !finite { onNonFinite(handles[entry]) }
        }
    }

    func value(_ handle: UInt32) -> [Double] {
        refreshIfStale(handle)
        return Array(UnsafeBufferPointer(start: slot(handle), count: count(of: handle)))
    }

    func velocity(_ handle: UInt32) -> [Double] {
        refreshIfStale(handle)
        return Array(UnsafeBufferPointer(start: slot(handle) + Self.width, count: count(of: handle)))
    }

    func clearDirty() {
        dirtyCount = 0
        frame &+= 1
        if frame == 0 {
            // Once in 2³² frames (over a year at 120 Hz): no handle may look dirty in the new frame.
            dirtyFrame.update(repeating: 0, count: capacity)
            frame = 1
        }
    }

    /// Takes hidden properties (dry runs') out of the dirty list.
    func dropHiddenFromDirty() {
        var kept = 0
        for position in 0..<dirtyCount {
            let handle = dirtyList[position]
            if isHidden[Int(handle)] {
                dirtyFrame[Int(handle)] = 0
            } else {
                dirtyList[kept] = handle
                kept += 1
            }
        }
        dirtyCount = kept
    }

    /// A destroyed runtime's properties on their way out: out of sight (`retire(runtime:)`), then forgotten
    /// a few at a time (`forget(_:until:)`), their handles free for other properties only then.
    struct Retired {
        let handles: [UInt32]
        fileprivate var next = 0
        /// The runtime's table of `index`, emptied key by key (dropped whole, one of 100,000 properties
        /// held the engine thread ~14 ms).
        fileprivate var index: TreeDictionary<Key, UInt32>
        var remaining: Int { handles.count - next }
    }

    /// Takes every property of `runtime` out of sight at once: no look-up finds them, reads, frames and
    /// filters skip them (no value) and writes to them are dropped. Their handles go to no other property
    /// until `forget`: the plugins that wrote them may not be told yet that they are gone.
    /// `dirtySince`: a `dirtyMark` from before any of them was written this frame.
    func retire(runtime: String, dirtySince: Int = 0) -> Retired? {
        guard let handles = handlesByRuntime.removeGroup(runtime) else { return nil }
        let retired = Retired(handles: handles, index: index.removeValue(forKey: runtime) ?? [:])
        for handle in retired.handles {
            if !isHidden[Int(handle)] { gone.record(handle, generation: generations[Int(handle)]) }
            isLiveFlags[Int(handle)] = false
            isWritable[Int(handle)] = false
            counts[Int(handle)] = 0
        }
        dropRemovedFromDirty(since: dirtySince)
        return retired
    }

    /// Forgets retired properties, 256 at a time, until the monotonic clock passes `deadline`; true once
    /// every one is forgotten (their handles may then be given to other properties).
    func forget(_ retired: inout Retired, until deadline: UInt64) -> Bool {
        while retired.next < retired.handles.count {
            for handle in retired.handles[retired.next..<min(retired.next + 256, retired.handles.count)] {
                guard let key = keys[Int(handle)] else { continue }
                retired.index[key] = nil
                handlesByTarget.remove(handle, from: key.target)
                forgetSlot(handle)
            }
            retired.next = min(retired.next + 256, retired.handles.count)
            if retired.next < retired.handles.count, WorkClock.now() >= deadline { return false }
        }
        return true
    }

    /// Forgets every property of `runtime` at once; their handles may be reused (a store without an
    /// engine: the engine retires a runtime's properties and forgets them in slices, `RuntimeTeardown`).
    func removeAll(inRuntime runtime: String) {
        guard var retired = retire(runtime: runtime) else { return }
        _ = forget(&retired, until: .max)
    }

    /// Forgets these properties; their handles may be reused.
    func remove(_ handles: [UInt32]) {
        for handle in handles {
            guard let key = keys[Int(handle)] else { continue }
            if !isHidden[Int(handle)] { gone.record(handle, generation: generations[Int(handle)]) }
            index[key.runtime]?[key] = nil
            if index[key.runtime]?.isEmpty == true { index[key.runtime] = nil }
            handlesByTarget.remove(handle, from: key.target)
            handlesByRuntime.remove(handle, from: key.runtime)
            forgetSlot(handle)
        }
        dropRemovedFromDirty()
    }

    private func forgetSlot(_ handle: UInt32) {
        keys[Int(handle)] = nil
        isLiveFlags[Int(handle)] = false
        isWritable[Int(handle)] = false
        counts[Int(handle)] = 0
        free.append(handle)
        live -= 1
        if owners[Int(handle)] != Self.daemon { liveByOwner[owners[Int(handle)], default: 1] -= 1 }
    }

    private func dropRemovedFromDirty(since first: Int = 0) {
        var kept = min(first, dirtyCount)
        for position in kept..<dirtyCount {
            let handle = dirtyList[position]
            if isLiveFlags[Int(handle)] {
                dirtyList[kept] = handle
                kept += 1
            } else {
                dirtyFrame[Int(handle)] = 0
            }
        }
        dirtyCount = kept
    }

    /// Where `handle`'s value (then, `width` later, its velocity) is.
    func slot(_ handle: UInt32) -> UnsafeMutablePointer<Double> { slots + Int(handle) * Self.slotSize }

    /// Room for `newCapacity` handles, new ones zero: in place once large (`GrowingArray`).
    private func grow(to newCapacity: Int) {
        slotStorage.grow(to: newCapacity * Self.slotSize, keeping: capacity * Self.slotSize, zeroed: true)
        countStorage.grow(to: newCapacity, keeping: capacity, zeroed: true)
        dirtyFrameStorage.grow(to: newCapacity, keeping: capacity, zeroed: true)
        isLiveStorage.grow(to: newCapacity, keeping: capacity, zeroed: true)
        isWritableStorage.grow(to: newCapacity, keeping: capacity, zeroed: true)
        dirtyListStorage.grow(to: newCapacity + 1, keeping: dirtyCount)
        generationStorage.grow(to: newCapacity, keeping: capacity, zeroed: true)
        capacity = newCapacity
    }
}
