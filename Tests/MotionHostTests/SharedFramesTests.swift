@testable import MotionEngine
import Glibc
import MotionFrames
import MotionWire
import Testing

/// The shared-memory frame channel (docs/clients.md) from the engine's side: what the region holds after a
/// frame, as a client maps it (read-only), and what the socket says.
@Suite("Shared-memory frames")
struct SharedFramesTests {
    let store = PropertyStore()
    let hub = SubscriptionHub()
    let output = RecordingOutput()
    let session: Session

    init() {
        session = Session(id: 1, output: output)
    }

    /// A shm subscription with `slots` slots; returns the region mapped read-only from the descriptor
    /// the client would get.
    private func subscribe(slots: Int) throws -> UnsafeRawPointer {
        let subscription = Subscription(id: 1, session: session, frames: true, trace: false, runtime: nil, targets: nil,
                                        maximumRate: nil)
        let channel = try SharedFrameChannel(capacity: slots)
        subscription.sharedFrames = channel
        hub.add(subscription)
        let fd = channel.takeReaderDescriptor()
        defer { close(fd) }
        #expect(mmap(nil, channel.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED,
                "the client's descriptor cannot be mapped writable")
        let base = try #require(mmap(nil, channel.size, PROT_READ, MAP_SHARED, fd, 0))
        #expect(base != MAP_FAILED)
        return UnsafeRawPointer(base)
    }

    private func write(_ target: String, _ values: [Double], runtime: String = "default") -> UInt32 {
        let handle = store.intern(.init(runtime: runtime, target: target, property: "p"))
        store.write(handle, value: values, velocity: values.map { $0 * 10 }, count: values.count)
        return handle
    }

    private func tick(_ time: Double) {
        hub.publishFrame(dirty: store.dirty, store: store, time: time)
        store.clearDirty()
    }

    private func header(_ base: UnsafeRawPointer) -> motion_frames_header { base.load(as: motion_frames_header.self) }
    private func slot(_ base: UnsafeRawPointer, _ index: Int) -> motion_frames_slot {
        let header = header(base)
        return base.load(fromByteOffset: Int(header.slots_offset) + index * Int(header.slot_size), as: motion_frames_slot.self)
    }

    @Test func aFrameWritesItsSlotsNamesThemFirstAndAnnouncesIt() throws {
        let base = try subscribe(slots: 8)
        let magic = withUnsafeBytes(of: header(base).magic) { Array($0) }
        #expect(magic == Array("MOTF".utf8))
        #expect(header(base).version_major == 1 && header(base).frame == 0)
        _ = write("a", [1, 2])
        _ = write("b", [3])
        tick(1)
        // On the socket: the names, then the announcement.
        let lines = output.lines
        #expect(lines.count == 2)
        #expect(lines.first?["event"] == "slots")
        let names = lines.first?["slots"]?.arrayValue ?? []
        #expect(names.map { $0["target"]?.stringValue } == ["a", "b"])
        #expect(names.map { $0["slot"]?.doubleValue } == [0, 1] && names.allSatisfy { $0["tag"] == 1 && $0["property"] == "p" })
        #expect(lines.last?["event"] == "frame" && lines.last?["shm"] == 1 && lines.last?["updates"] == nil)
        // In memory: the frame, its record, the values.
        #expect(header(base).frame == 1 && header(base).slots_used == 2)
        let a = slot(base, 0), b = slot(base, 1)
        #expect(a.sequence % 2 == 0 && a.sequence > 0 && a.tag == 1 && a.components == 2)
        #expect(a.value.0 == 1 && a.value.1 == 2 && a.velocity.1 == 20)
        #expect(b.components == 1 && b.value.0 == 3)
        let h = header(base)
        let record = base.load(fromByteOffset: Int(h.records_offset) + Int(1 & (h.record_capacity - 1)) * Int(h.record_size),
                               as: motion_frames_record.self)
        #expect(record.frame == 1 && record.change_count == 2 && record.time == 1)
        // A frame where nothing it sees changed publishes nothing.
        tick(2)
        #expect(header(base).frame == 1 && output.lines.count == 2)
        // A second write of a: no new name, the same slot, the next frame.
        _ = write("a", [5, 6])
        tick(3)
        #expect(output.lines.count == 3 && output.lines.last?["shm"] == 2)
        #expect(slot(base, 0).value.0 == 5 && header(base).frame == 2)
    }

    /// A handle the store gives to another property keeps its slot under a new tag, named again.
    @Test func aReusedHandleIsNamedAgainWithANewTag() throws {
        let base = try subscribe(slots: 8)
        let first = write("a", [1], runtime: "r1")
        tick(1)
        store.removeAll(inRuntime: "r1")
        let reused = write("c", [7], runtime: "r2")
        #expect(reused == first)
        tick(2)
        let names = output.lines.filter { $0["event"] == "slots" }.flatMap { $0["slots"]?.arrayValue ?? [] }
        #expect(names.count == 2)
        // Tag 2 marked the old property gone (`aSlotWhosePropertyWentAwayIsMarked…`), 3 names the new one.
        #expect(names.last?["slot"] == 0 && names.last?["tag"] == 3 && names.last?["target"] == "c" && names.last?["runtime"] == "r2")
        #expect(slot(base, 0).tag == 3 && slot(base, 0).value.0 == 7)
    }

    /// A runtime of more properties than `gonePerFrame` destroyed: its slots are marked gone over the next
    /// frames, `gonePerFrame` a frame (the subscription deferred meanwhile, so the clock runs for it), and
    /// every one of them is marked in the end.
    @Test func slotsOfALargeRuntimeThatWentAwayAreMarkedOverSeveralFrames() throws {
        let count = SharedFrameChannel.gonePerFrame * 2 + 10
        let base = try subscribe(slots: count + 1)
        for index in 0..<count { _ = write("t\(index)", [1], runtime: "big") }
        tick(1)
        tick(1.5)  // past `namesPerFrame` in the first
        #expect(header(base).slots_used == UInt32(count))
        var retired = try #require(store.retire(runtime: "big"))
        var frames = 0
        while !store.gone.isEmpty && frames < 10 {
            frames += 1
            tick(Double(frames + 1))
            let marked = (0..<count).filter { slot(base, $0).components == 0 }.count
            #expect(marked == min(count, frames * SharedFrameChannel.gonePerFrame), "after \(frames) frames: \(marked) marked")
            if frames < 3 { #expect(hub.hasDeferredFrames, "more to mark: the clock runs for it") }
        }
        #expect(frames == 3, "\(frames) frames")
        #expect((0..<count).allSatisfy { slot(base, $0).components == 0 && slot(base, $0).tag == 2 })
        _ = store.forget(&retired, until: .max)
    }

    /// A runtime destroyed and created again under its name: its old slots used to stay named and hold
    /// their old values beside the new slots of the same names (a reader of every slot showed both).
    /// Now a slot whose property went away is written with no components and a tag no `slots` event
    /// names, in a frame of its own if nothing else changed; the new property gets a slot named anew.
    @Test func aSlotWhosePropertyWentAwayIsMarkedAndItsNameNoLongerMatches() throws {
        let base = try subscribe(slots: 8)
        _ = write("a", [1], runtime: "r1")
        _ = write("b", [2], runtime: "keep")
        tick(1)
        #expect(slot(base, 0).tag == 1 && slot(base, 0).components == 1)
        var retired = try #require(store.retire(runtime: "r1"))
        #expect(!store.gone.isEmpty, "recorded: a subscription has a region")
        tick(2)
        #expect(header(base).frame == 2, "a frame for the slot alone")
        #expect(slot(base, 0).components == 0 && slot(base, 0).tag == 2, "\(slot(base, 0))")
        let record = base.load(fromByteOffset: Int(header(base).records_offset) + 2 * Int(header(base).record_size),
                               as: motion_frames_record.self)
        let changes = base.advanced(by: Int(header(base).changes_offset)).assumingMemoryBound(to: UInt32.self)
        #expect(record.frame == 2 && record.change_count == 1 && changes[Int(record.first_change) % Int(header(base).change_capacity)] == 0)
        #expect(slot(base, 1).components == 1 && slot(base, 1).tag == 1, "another runtime's slot is untouched")
        #expect(store.gone.isEmpty, "read by every subscription: forgotten")
        _ = store.forget(&retired, until: .max)

        _ = write("a", [9], runtime: "r1")
        tick(3)
        let names = output.lines.filter { $0["event"] == "slots" }.flatMap { $0["slots"]?.arrayValue ?? [] }
        let named = names.filter { $0["runtime"] == "r1" && $0["target"] == "a" }
        #expect(named.map { [$0["slot"]?.doubleValue ?? -1, $0["tag"]?.doubleValue ?? -1] } == [[0, 1], [0, 3]],
                "the handle came back for the same name: its slot is named again, with a tag past the mark: \(named)")
        #expect(slot(base, 0).components == 1 && slot(base, 0).value.0 == 9)
        tick(4)
        #expect(header(base).frame == 3, "nothing more to mark")
    }

    /// Properties removed one by one (a target that ended) are marked like a destroyed runtime's; with no
    /// shared-memory subscription nothing is recorded, and what every subscription has read is forgotten.
    @Test func removedPropertiesAreMarkedAndNothingIsKeptWithoutASubscription() throws {
        let alone = PropertyStore()
        let handle = alone.intern(.init(runtime: "r", target: "t", property: "p"))
        alone.remove([handle])
        #expect(alone.gone.isEmpty, "no subscription with a region: nothing recorded")

        let base = try subscribe(slots: 8)
        let a = write("a", [1])
        _ = write("b", [2])
        tick(1)
        store.remove([a])
        tick(2)
        #expect(slot(base, 0).components == 0 && slot(base, 0).tag == 2)
        #expect(slot(base, 1).components == 1 && slot(base, 1).tag == 1)
        #expect(store.gone.isEmpty)
        hub.remove(hub.subscriptions[0])
        store.remove([store.intern(.init(runtime: "default", target: "b", property: "p"))])
        #expect(store.gone.isEmpty, "its last subscription gone: recording stops")
    }

    /// Past its slots a subscription delivers nothing more of new properties and says so in the header.
    @Test func aFullTableIsFlaggedAndNothingElseIsDisturbed() throws {
        let base = try subscribe(slots: 2)
        _ = write("a", [1])
        _ = write("b", [2])
        _ = write("c", [3])
        tick(1)
        #expect(header(base).flags & MOTION_FRAMES_FULL != 0 && header(base).slots_used == 2)
        let names = output.lines.filter { $0["event"] == "slots" }.flatMap { $0["slots"]?.arrayValue ?? [] }
        #expect(names.map { $0["target"]?.stringValue } == ["a", "b"])
        _ = write("a", [4])
        tick(2)
        #expect(slot(base, 0).value.0 == 4 && header(base).frame == 2)
    }

    /// A frame names at most `namesPerFrame` new slots (a first frame over 100,000 moving properties
    /// named them all in one tick); the rest follow in the next frames, which the clock runs for even
    /// when nothing else changes, each property once, with its latest value.
    @Test func aFrameNamesAtMostItsShareOfNewSlotsAndTheRestFollow() throws {
        let perFrame = SharedFrameChannel.namesPerFrame
        let total = perFrame * 2 + 100
        let base = try subscribe(slots: total)
        for index in 0..<total { _ = write("t\(index)", [Double(index)]) }
        tick(1)
        #expect(header(base).slots_used == UInt32(perFrame) && header(base).frame == 1)
        #expect(hub.hasDeferredFrames, "the clock must run for the properties still to be named")
        // The last of them moves meanwhile: the frame that names it carries its latest value.
        _ = write("t\(total - 1)", [-1])
        tick(2)
        #expect(header(base).slots_used == UInt32(perFrame * 2) && hub.hasDeferredFrames)
        tick(3)
        #expect(header(base).slots_used == UInt32(total) && header(base).frame == 3)
        #expect(!hub.hasDeferredFrames)
        let names = output.lines.filter { $0["event"] == "slots" }.flatMap { $0["slots"]?.arrayValue ?? [] }
        #expect(names.count == total && names.allSatisfy { $0["tag"] == 1 })
        #expect(Set(names.compactMap { $0["target"]?.stringValue }).count == total)
        let last = try #require(names.first { $0["target"]?.stringValue == "t\(total - 1)" }?["slot"]?.doubleValue)
        #expect(slot(base, Int(last)).value.0 == -1)
        let middle = try #require(names.first { $0["target"]?.stringValue == "t\(perFrame + 5)" }?["slot"]?.doubleValue)
        #expect(slot(base, Int(middle)).value.0 == Double(perFrame + 5))
        tick(4)
        #expect(header(base).frame == 3, "nothing more to send")
    }
}
