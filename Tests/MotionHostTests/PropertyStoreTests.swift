@testable import MotionEngine
@testable import MotionHost
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
