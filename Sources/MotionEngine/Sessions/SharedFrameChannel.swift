import Glibc
import MotionFrames
import MotionWire

/// A `transport: "shm"` subscription's memory (docs/clients.md, `motion_frames.h`): a slot per property it has
/// seen, written under a seqlock, and per frame the list of slots that changed.
///
/// Slots are the subscriber's own, numbered from 0 in the order its properties first changed, and named
/// on the socket (`slots` event) before the frame that first uses them. A property handle the store gave
/// to another property keeps its slot under a new `tag`, named again. The writer never reads what the
/// shared region holds (the client could write its own copy of the descriptor's memory only through a
/// writable descriptor, which it never gets).
final class SharedFrameChannel {
    static let defaultSlots = 1 << 18
    static let maximumSlots = 1 << 21
    /// Names per `slots` line: a client reads lines of bounded length.
    static let namesPerLine = 4096
    /// Slots named per frame. A first frame over 100,000 moving properties named them all in one tick
    /// (~25 ms, with the region's first page faults): 64 such subscribers of one uid took another uid's
    /// client from 120 frames/s to 92. Properties past it wait for the next frames (`waiting`).
    static let namesPerFrame = 8192
    /// Slots of properties that went away marked per frame and subscriber: 16 subscribers of one uid over
    /// its runtime of 20,000 springs, destroyed, marked 320,000 slots in one tick, unbudgeted; now each is a
    /// bounded piece of work its uid's frame budget can defer.
    static let gonePerFrame = 4096
    /// How many properties ahead `write` asks for a slot's lines (BENCHMARKS.md, shared memory on Intel).
    static let prefetchDistance = 32
    /// A property that went away is written with no components (and these zeros, read by no one).
    nonisolated(unsafe) private static let zeros: UnsafePointer<Double> = {
        let zeros = UnsafeMutablePointer<Double>.allocate(capacity: PropertyStore.width)
        zeros.initialize(repeating: 0, count: PropertyStore.width)
        return UnsafePointer(zeros)
    }()

    private var writer = motion_frames_writer()
    let capacity: Int
    var size: Int { Int(writer.size) }
    /// By property handle: its slot + 1 (0: none yet) and the store generation it was named for; by
    /// slot: its tag. Columns of their own (no bounds checks or reference counting on the frame path).
    private var slotOfHandle = UnsafeMutablePointer<UInt32>.allocate(capacity: 0)
    private var generationOfHandle = UnsafeMutablePointer<UInt32>.allocate(capacity: 0)
    private var handleCapacity = 0
    /// Grown with the slots in use: a subscription asking for millions of slots costs memory only for
    /// the properties it really receives (the region's pages too are touched only when written).
    private var tags = UnsafeMutablePointer<UInt32>.allocate(capacity: 0)
    private var tagCapacity = 0
    private var used = 0
    private(set) var isFull = false
    /// Names of slots first used by the frame being built: `{"slot":…,"tag":…,"runtime":…,…}` entries.
    private var names: [UInt8] = []
    /// Where each entry of `names` ends (entries are separated by one comma).
    private var entryEnds: [Int] = []
    /// Properties the last `write` left for the next frame: their slot was still to be named when the
    /// frame had named `namesPerFrame`.
    private(set) var waiting: [UInt32] = []
    /// Where it is in the store's `gone` (nil until its first frame: no slot can be gone before).
    private(set) var gonePosition: Int?

    /// Creates the region; returns the descriptor to pass to the client (which owns it from then on).
    init(capacity: Int) throws(EngineError) {
        self.capacity = capacity
        guard motion_frames_writer_create(&writer, UInt32(capacity)) == 0 else {
            // The system's refusal (no memory, mappings or descriptors left), not a bug: said with its reason.
            let reason = String(cString: strerror(errno))
            throw EngineError(.resourcesExhausted, "transport: the system refused a shared-memory region of \(capacity) slots (\(reason))")
        }
    }

    deinit {
        motion_frames_writer_destroy(&writer)
        slotOfHandle.deallocate()
        generationOfHandle.deallocate()
        tags.deallocate()
    }

    private func growHandles(to count: Int) {
        let grown = max(count, handleCapacity * 2, 1024)
        for column in [\SharedFrameChannel.slotOfHandle, \SharedFrameChannel.generationOfHandle] {
            let larger = UnsafeMutablePointer<UInt32>.allocate(capacity: grown)
            larger.update(from: self[keyPath: column], count: handleCapacity)
            (larger + handleCapacity).initialize(repeating: 0, count: grown - handleCapacity)
            self[keyPath: column].deallocate()
            self[keyPath: column] = larger
        }
        handleCapacity = grown
    }

    /// The read-only descriptor for the client, handed over once (the caller closes it after sending).
    func takeReaderDescriptor() -> Int32 {
        defer { writer.reader_fd = -1 }
        return writer.reader_fd
    }

    /// Writes the properties of `handles` (each once) that `subscription` may see: value and velocity
    /// under each slot's seqlock, the slot listed as changed; slots used for the first time are named.
    /// Returns how many were written (a full table leaves the rest out; the header's `flags` say so);
    /// those still to be named past `namesPerFrame` are left in `waiting`.
    func write(_ handles: [UInt32], store: PropertyStore, for subscription: Subscription, velocityScale: Double = 1) -> Int {
        var scaled = (0.0, 0.0, 0.0, 0.0)
        return withUnsafeMutableBytes(of: &scaled) { raw in
            write(handles, store: store, for: subscription, velocityScale: velocityScale,
                  scratch: raw.baseAddress!.assumingMemoryBound(to: Double.self))
        }
    }

    /// `scratch`: room for one property's velocities times `velocityScale` (when it is not 1).
    private func write(_ handles: [UInt32], store: PropertyStore, for subscription: Subscription, velocityScale: Double,
                       scratch: UnsafeMutablePointer<Double>) -> Int {
        if handleCapacity < store.keys.count { growHandles(to: store.keys.count) }
        waiting.removeAll(keepingCapacity: true)
        let counts = store.counts, generations = store.generations
        let slotOfHandle = self.slotOfHandle, generationOfHandle = self.generationOfHandle
        let filtered = subscription.isFiltered
        var written = 0
        handles.withUnsafeBufferPointer { handles in
            for (position, handle) in handles.enumerated() {
                // The lines of a slot some properties ahead are asked for now: a put then mostly finds its
                // slot's lines (which the reader's core last held) and its stored value at hand.
                if position &+ Self.prefetchDistance < handles.count {
                    let ahead = handles[position &+ Self.prefetchDistance]
                    let aheadSlot = slotOfHandle[Int(ahead)]
                    if aheadSlot != 0 { motion_frames_writer_prefetch(&writer, aheadSlot - 1, store.slot(ahead)) }
                }
                let index = Int(handle)
                let components = counts[index]
                guard components != 0 else { continue }
                if filtered, !subscription.matches(handle, in: store) { continue }
                var slot = slotOfHandle[index]
                if slot == 0 || generationOfHandle[index] != generations[index] {
                    guard entryEnds.count < Self.namesPerFrame else {
                        waiting.append(handle)
                        continue
                    }
                    guard let named = assignSlot(handle, store: store, owner: subscription.foreignOwner(of: handle, in: store)) else { continue }
                    slot = named
                }
                let stored = store.slot(handle)
                var velocities = stored + PropertyStore.width
                if velocityScale != 1 {
                    for component in 0..<Int(components) { scratch[component] = velocities[component] * velocityScale }
                    velocities = scratch
                }
                // `tags` is read through self: naming a slot may have grown it.
                motion_frames_writer_put(&writer, slot - 1, self.tags[Int(slot) - 1], stored, velocities, UInt32(components))
                written += 1
            }
        }
        return written
    }

    /// Whether properties it may have slots for went away since it last looked.
    func hasGone(_ gone: GoneProperties) -> Bool { gonePosition.map { $0 < gone.end } ?? false }

    /// Marks the slots of properties that went away since the last call: no components, and a new tag
    /// that no `slots` event names (until the slot is named again, for the property its handle is given
    /// to next), listed as changed in the frame being built. At most `gonePerFrame` of them; the rest in
    /// the next frames (`hasGone`). Returns how many.
    func markGone(_ store: PropertyStore) -> Int {
        let gone = store.gone
        guard let position = gonePosition else {
            gonePosition = gone.end
            return 0
        }
        let end = position < gone.base ? gone.end : min(gone.end, position + Self.gonePerFrame)
        gonePosition = end
        var marked = 0
        if position < gone.base {
            // Left behind (the log keeps `maximumEntries`): every slot it gave is looked at once.
            for handle in 0..<min(handleCapacity, store.keys.count) where slotOfHandle[handle] != 0 && generationOfHandle[handle] != 0 {
                if !store.isLive(UInt32(handle)) || store.generations[handle] != generationOfHandle[handle] {
                    markSlotGone(of: handle)
                    marked += 1
                }
            }
            return marked
        }
        for entry in (position - gone.base)..<(end - gone.base) {
            let handle = Int(gone.handles[entry])
            guard handle < handleCapacity, slotOfHandle[handle] != 0, generationOfHandle[handle] == gone.generations[entry] else { continue }
            markSlotGone(of: handle)
            marked += 1
        }
        return marked
    }

    /// Generation 0 says "marked gone" (a handle's generation is 1 or more once it names a property).
    private func markSlotGone(of handle: Int) {
        let slot = Int(slotOfHandle[handle]) - 1
        generationOfHandle[handle] = 0
        tags[slot] &+= 1
        motion_frames_writer_put(&writer, UInt32(slot), tags[slot], Self.zeros, Self.zeros, 0)
    }

    /// The slot (+ 1) of a handle first seen, or seen naming another property: named on the socket with
    /// the frame. Nil when the table is full.
    private func assignSlot(_ handle: UInt32, store: PropertyStore, owner: UInt32?) -> UInt32? {
        let index = Int(handle)
        var slot = slotOfHandle[index]
        if slot == 0 {
            guard used < capacity else {
                if !isFull { isFull = true; motion_frames_writer_set_full(&writer) }
                return nil
            }
            if used == tagCapacity {
                let grown = min(capacity, max(1024, tagCapacity * 2))
                let larger = UnsafeMutablePointer<UInt32>.allocate(capacity: grown)
                larger.update(from: tags, count: tagCapacity)
                (larger + tagCapacity).initialize(repeating: 0, count: grown - tagCapacity)
                tags.deallocate()
                tags = larger
                tagCapacity = grown
            }
            used += 1
            slot = UInt32(used)
            slotOfHandle[index] = slot
        }
        generationOfHandle[index] = store.generations[index]
        tags[Int(slot) - 1] &+= 1
        name(slot: Int(slot) - 1, handle: handle, store: store, owner: owner)
        return slot
    }

    private static let slotKey = Array(#"{"slot":"#.utf8)
    private static let tagKey = Array(#","tag":"#.utf8)

    private func name(slot: Int, handle: UInt32, store: PropertyStore, owner: UInt32?) {
        if !entryEnds.isEmpty { names.append(UInt8(ascii: ",")) }
        names.append(contentsOf: Self.slotKey)
        Self.appendDecimal(UInt32(slot), to: &names)
        names.append(contentsOf: Self.tagKey)
        Self.appendDecimal(tags[slot], to: &names)
        names.append(UInt8(ascii: ","))
        // The update prefix `{"runtime":"…","target":…,"property":…,"value":` without its brace and value.
        let start = store.prefixes.starts[Int(handle)], length = store.prefixes.lengths[Int(handle)]
        let opening = PropertyStore.runtimeOpening.count, valueKey = #","value":"#.utf8.count
        store.prefixes.bytes.withUnsafeBufferPointer { prefix in
            names.append(contentsOf: UnsafeBufferPointer(rebasing: prefix[start + 1 ..< start + opening]))
            if let owner {
                Self.appendDecimal(owner, to: &names)
                names.append(UInt8(ascii: "/"))
            }
            names.append(contentsOf: UnsafeBufferPointer(rebasing: prefix[start + opening ..< start + length - valueKey]))
        }
        names.append(UInt8(ascii: "}"))
        entryEnds.append(names.count)
    }

    /// `value` in decimal, with no String in between (a first frame names thousands of slots).
    private static func appendDecimal(_ value: UInt32, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64) = (0, 0)  // up to 10 digits, most significant first
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = value
            repeat {
                count += 1
                buffer[16 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(16 - count)...]))
        }
    }

    /// Sends the names of slots used for the first time (before the frame that uses them), in lines of
    /// at most `namesPerLine`, then publishes the frame. Returns its number.
    func publish(subscription: Int, output: any ClientOutput, time: Double, present: Double, dropped: Int) -> UInt64 {
        if !entryEnds.isEmpty {
            sendNames(subscription: subscription, output: output)
        }
        motion_frames_writer_set_used(&writer, UInt32(used))
        return motion_frames_writer_publish(&writer, time, present, UInt32(clamping: dropped))
    }

    private func sendNames(subscription: Int, output: any ClientOutput) {
        let header = Array(#"{"event":"slots","sub":"#.utf8) + Array(String(subscription).utf8) + Array(#","slots":["#.utf8)
        var first = 0
        while first < entryEnds.count {
            let last = min(first + Self.namesPerLine, entryEnds.count) - 1
            let from = first == 0 ? 0 : entryEnds[first - 1] + 1  // after the comma between entries
            var line = header
            line.append(contentsOf: names[from ..< entryEnds[last]])
            line.append(contentsOf: "]}\n".utf8)
            output.send(line)
            first = last + 1
        }
        names.removeAll(keepingCapacity: true)
        entryEnds.removeAll(keepingCapacity: true)
    }
}
