/// The gestures performers interned ("motion.gesture/1"), by handle: one handle per runtime and gesture
/// name, shared by its readers, given out again once its runtime ends (every named replacement of a
/// Draggable interns one in its scratch runtime: a counter alone would run out).
struct GestureSlots {
    private var slots: [UInt32: Gestures.GestureSlot] = [:]
    private var last: UInt32 = 0
    private var free: [UInt32] = []

    var count: Int { slots.count }

    subscript(handle: UInt32) -> Gestures.GestureSlot? { slots[handle] }

    /// The handle of `name` in `runtime`, interned now if it has none.
    mutating func intern(_ name: String, in runtime: RuntimeScope) -> UInt32 {
        if let handle = runtime.gestureHandles[name] { return handle }
        let handle: UInt32
        if let reused = free.popLast() {
            handle = reused
        } else {
            last += 1
            handle = last
        }
        slots[handle] = Gestures.GestureSlot(runtime: runtime, name: name)
        runtime.gestureHandles[name] = handle
        return handle
    }

    /// Forgets the handles of a runtime that ended (its performers, the only holders, ended with it).
    mutating func forget(_ runtime: RuntimeScope) {
        for handle in runtime.gestureHandles.values {
            slots[handle] = nil
            free.append(handle)
        }
        runtime.gestureHandles.removeAll()
    }
}
