import MotionPluginAPI

/// "motion.gesture/1": performers read the gestures clients push into their runtime by interned handle.
/// Gestures, a room of the engine (docs/architecture.md): made when needed (`Engine.gestures`), its state
/// the engine's (`Engine.gestureSlots`, each runtime's `gestures`).
struct Gestures {
    unowned let engine: Engine

    /// An interned gesture: the runtime and name it reads, the performers that interned it (advanced
    /// with dt = 0 when samples arrive), and its state as `read_gesture` gives it, made when samples arrive
    /// (a read per tick looked the gesture up by name and ran the estimator: ~5 allocations a read).
    final class GestureSlot {
        let runtime: RuntimeScope
        let name: String
        var readers: Set<UInt64> = []
        var state = motion_gesture_state()

        init(runtime: RuntimeScope, name: String) {
            self.runtime = runtime
            self.name = name
        }
    }

    func internGesture(_ name: String, for performerID: UInt64) -> UInt32 {
        guard !name.isEmpty, name.utf8.count <= 256, let performer = engine.performer(calling: performerID) else { return MOTION_INVALID_GESTURE }
        // By runtime and name (a scan of every runtime's handles made each push cost what all uids interned).
        let handle = engine.gestureSlots.intern(name, in: performer.runtime)
        if let slot = engine.gestureSlots[handle] {
            slot.readers.insert(performerID)
            slot.state = Self.readable(performer.runtime.gestures[name])
        }
        return handle
    }

    func readGesture(_ handle: UInt32, for performerID: UInt64, into state: UnsafeMutablePointer<motion_gesture_state>) -> Bool {
        guard let slot = engine.gestureSlots[handle], let performer = engine.performer(calling: performerID),
              slot.runtime === performer.runtime, slot.readers.contains(performerID) else { return false }
        state.pointee = slot.state
        return true
    }

    /// A gesture as `read_gesture` gives it (phase none when there is none yet).
    static func readable(_ gesture: Gesture?) -> motion_gesture_state {
        var result = motion_gesture_state()
        if let gesture {
            result.phase = switch gesture.phase {
            case .began: MOTION_GESTURE_BEGAN
            case .moved: MOTION_GESTURE_MOVED
            case .ended: MOTION_GESTURE_ENDED
            case .cancelled: MOTION_GESTURE_CANCELLED
            }
            if gesture.position.isEmpty { result.phase = MOTION_GESTURE_NONE }
            result.count = UInt32(min(gesture.position.count, 2))
            result.generation = gesture.generation
            result.time = gesture.lastTime.isFinite ? gesture.lastTime : 0
            let velocity = gesture.isActive ? gesture.tracker.velocity().velocity : gesture.releaseVelocity
            withUnsafeMutableBytes(of: &result.position) { copy(gesture.position, into: $0) }
            withUnsafeMutableBytes(of: &result.origin) { copy(gesture.origin, into: $0) }
            withUnsafeMutableBytes(of: &result.velocity) { copy(velocity, into: $0) }
        }
        return result
    }

    /// After samples for `name` arrived in `runtime`: every performer that reads that gesture is advanced
    /// by 0 s at once (in [control]), so its effect goes out with this request's frame.
    func gestureChanged(_ name: String, in runtime: RuntimeScope) {
        if let handle = runtime.gestureHandles[name], let slot = engine.gestureSlots[handle] {
            for id in slot.readers.sorted() {
                guard let performer = engine.performers[id], let instance = performer.instance,
                      let advance = performer.table.pointee.advance else {
                    slot.readers.remove(id)
                    continue
                }
                engine.calling(performer.label, "advance") { advance(instance, 0) }
            }
        }
    }

    /// Forgets the handles of a runtime that ended (its performers, the only holders, ended with it).
    func forgetGestures(of runtime: RuntimeScope) {
        engine.gestureSlots.forget(runtime)
    }
}

private func copy(_ values: [Double], into buffer: UnsafeMutableRawBufferPointer) {
    let doubles = buffer.bindMemory(to: Double.self)
    for index in 0..<min(values.count, doubles.count) { doubles[index] = values[index] }
}
