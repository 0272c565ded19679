@testable import MotionEngine
import Testing

/// The property store's frame path: one slot per handle, batch writes, and the dirty list a frame reads.
@Suite("Property store")
struct PropertyStoreTests {
    static func key(_ index: Int, runtime: String = "main") -> PropertyStore.Key {
        PropertyStore.Key(runtime: runtime, target: "t\(index)", property: "position")
    }

    /// Writes `handles` in one batch: handle h gets `count` components h + c/10 and velocity −(h + c/10).
    static func write(_ store: PropertyStore, _ handles: [UInt32], count: Int) {
        let values = handles.flatMap { handle in (0..<4).map { Double(handle) + Double($0) / 10 } }
        let velocities = values.map { -$0 }
        let counts = [UInt8](repeating: UInt8(count), count: handles.count)
        store.write(handles.count, handles: handles, counts: counts, values: values, velocities: velocities)
    }

    /// What plugins kept comes back on the first read, without a frame and never over a value written
    /// since (a Set, a newer plan's start); a value equal to the stale slot is still written.
    @Test func aRefreshKeepsNewerValuesAndMakesNoFrame() {
        let store = PropertyStore()
        let handles = (0..<3).map { store.intern(Self.key($0)) }
        Self.write(store, handles, count: 1)
        store.clearDirty()
        var refreshes = 0
        // A plugin that kept 100 + h for every handle.
        store.refresh = {
            refreshes += 1
            let values: [Double] = handles.flatMap { handle -> [Double] in [100 + Double(handle), 0, 0, 0] }
            let velocities = [Double](repeating: 0, count: values.count)
            store.write(handles.count, handles: handles, counts: [1, 1, 1], values: values, velocities: velocities)
        }
        store.isStale = true
        // Handle 1 gets a newer value, equal to its stale slot: written all the same.
        store.write(handles[1], value: [1.0], velocity: [-1.0], count: 1)
        #expect(Array(store.dirty) == [handles[1]])
        #expect(store.value(handles[0]) == [100] && store.value(handles[2]) == [102])
        #expect(store.value(handles[1]) == [1], "the newer value stays")
        #expect(Array(store.dirty) == [handles[1]], "the refresh made no frame")
        _ = store.value(handles[2])
        #expect(refreshes == 1, "asked once until the next advance keeps again")
    }

    /// A read of one property asks for that one (`refreshSome`), even one written this frame (whose
    /// write is dropped); a plugin that reads while it answers does not reopen what the outer refresh
    /// closed; once read, a handle's value is current again, so writing it unchanged makes no frame.
    @Test func aReadOfOneAsksForThatOne() {
        let store = PropertyStore()
        let handles = (0..<3).map { store.intern(Self.key($0)) }
        Self.write(store, handles, count: 1)
        store.clearDirty()
        var asked: [[UInt32]] = []
        func keptWrite(_ handle: UInt32) {
            store.write(1, handles: [handle], counts: [1], values: [100 + Double(handle), 0, 0, 0], velocities: [0, 0, 0, 0])
        }
        store.refresh = { handles.forEach(keptWrite) }
        store.refreshSome = { some in
            asked.append(Array(some))
            // Reads another property first (a nested refresh), then writes what it kept, and more.
            if some.first == handles[2] { _ = store.value(handles[0]) }
            keptWrite(some[0])
            keptWrite(handles[1])
        }
        store.isStale = true
        store.write(handles[1], value: [1.0], velocity: [0.0], count: 1)
        #expect(store.value(handles[1]) == [1], "written this frame: it stays")
        #expect(asked == [[handles[1]]], "and the plugin was asked all the same")
        #expect(store.value(handles[2]) == [102])
        #expect(asked == [[handles[1]], [handles[2]], [handles[0]]])
        #expect(store.value(handles[1]) == [1], "not reopened by the nested refresh")
        #expect(store.value(handles[0]) == [100] && asked.count == 3, "asked once per advance")
        #expect(Array(store.dirty) == [handles[1]], "the refreshes made no frame")
        store.clearDirty()
        store.write(handles[2], value: [102.0], velocity: [0.0], count: 1)
        #expect(store.dirty.isEmpty, "a current value written unchanged makes no frame")
    }

    @Test func writesLandInTheirSlotsAndEachHandleIsDirtyOncePerFrame() {
        let store = PropertyStore()
        let handles = (0..<10).map { store.intern(Self.key($0)) }
        Self.write(store, handles, count: 2)
        Self.write(store, [handles[3]], count: 3)
        #expect(Array(store.dirty) == handles)
        #expect(store.value(handles[3]) == [3, 3.1, 3.2] && store.velocity(handles[3]) == [-3, -3.1, -3.2])
        #expect(store.value(handles[7]) == [7, 7.1] && store.velocity(handles[7]) == [-7, -7.1])
        // A narrower write leaves no stale components behind.
        Self.write(store, [handles[3]], count: 1)
        var value = [Double](repeating: 99, count: 4), velocity = [Double](repeating: 99, count: 4)
        #expect(store.read(handles[3], value: &value, velocity: &velocity, capacity: 4) == 1)
        #expect(value == [3, 99, 99, 99] && velocity == [-3, 99, 99, 99])

        store.clearDirty()
        #expect(store.dirty.isEmpty)
        Self.write(store, [handles[5], handles[5], handles[1]], count: 1)
        #expect(Array(store.dirty) == [handles[5], handles[1]])
    }

    @Test func aRemovedRuntimeLeavesTheDirtyListAndItsReusedHandlesWriteAgain() {
        let store = PropertyStore()
        let kept = store.intern(Self.key(0))
        let gone = store.intern(Self.key(1, runtime: "other"))
        Self.write(store, [kept, gone], count: 2)
        store.removeAll(inRuntime: "other")
        #expect(Array(store.dirty) == [kept])
        // Writes to a handle that names nothing are ignored.
        Self.write(store, [gone], count: 2)
        #expect(Array(store.dirty) == [kept] && store.count(of: gone) == 0)
        // The handle comes back for a new property in the same frame and is dirtied like any other.
        let reused = store.intern(Self.key(2))
        #expect(reused == gone && store.count(of: reused) == 0)
        Self.write(store, [reused], count: 2)
        #expect(Array(store.dirty) == [kept, reused] && store.value(reused) == [Double(reused), Double(reused) + 0.1])
    }

    /// One batch of every width, bad entries among them (a count of 0 or 5, a handle past the store), no
    /// velocities, and a last entry whose buffers end with its own components: each good entry lands whole,
    /// nothing past its count, and the bad ones change nothing.
    @Test func aMixedBatchWritesEachEntryToItsCount() {
        let store = PropertyStore()
        let handles = (0..<64).map { store.intern(Self.key($0)) }  // exactly the first capacity
        let entries: [(handle: UInt32, count: UInt8)] = [(handles[0], 4), (handles[1], 1), (handles[2], 0), (handles[3], 3),
                                                         (9_999, 2), (handles[4], 5), (handles[5], 2)]
        let values = UnsafeMutablePointer<Double>.allocate(capacity: 4 * (entries.count - 1) + 2)
        defer { values.deallocate() }
        for entry in 0..<(4 * (entries.count - 1) + 2) { values[entry] = Double(entry) + 0.5 }
        store.write(entries.count, handles: entries.map(\.handle), counts: entries.map(\.count), values: values, velocities: nil)
        #expect(Array(store.dirty) == [handles[0], handles[1], handles[3], handles[5]])
        #expect(store.value(handles[0]) == [0.5, 1.5, 2.5, 3.5] && store.velocity(handles[0]) == [0, 0, 0, 0])
        #expect(store.value(handles[1]) == [4.5] && store.value(handles[3]) == [12.5, 13.5, 14.5])
        #expect(store.value(handles[5]) == [24.5, 25.5] && store.velocity(handles[5]) == [0, 0])
        #expect(store.count(of: handles[2]) == 0 && store.count(of: handles[4]) == 0)
        var value = [Double](repeating: 99, count: 4)
        #expect(store.read(handles[1], value: &value, velocity: nil, capacity: 4) == 1 && value == [4.5, 99, 99, 99])
        // The slot past the count is zero, not what the buffer held there.
        #expect((1..<8).allSatisfy { store.slots[Int(handles[1]) * 8 + $0] == 0 })
        // Every handle, twice in one frame (the list is full after the first): each listed once.
        Self.write(store, handles, count: 2)
        Self.write(store, handles, count: 2)
        #expect(store.dirty.count == handles.count && Set(store.dirty) == Set(handles))
    }

    /// Past `streamingHandles` the slots are written with non-temporal stores: the same results.
    @Test func aLargeStoreWritesTheSameWay() {
        let store = PropertyStore()
        let handles = (0..<(PropertyStore.streamingHandles + 100)).map { store.intern(Self.key($0)) }
        Self.write(store, handles, count: 2)
        #expect(store.dirty.count == handles.count)
        for handle in [handles[0], handles[70_000], handles[handles.count - 1]] {
            #expect(store.value(handle) == [Double(handle), Double(handle) + 0.1])
            #expect(store.velocity(handle) == [-Double(handle), -Double(handle) - 0.1])
        }
    }
}
