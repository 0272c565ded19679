import MotionPluginAPI

/// A gesture of the performer's runtime, interned through the host's "motion.gesture/1" (docs/vocabulary.md#interactions).
public struct GestureHandle: Hashable, @unchecked Sendable {
    // @unchecked: `table` is the host's extension table, immutable for the process's life.
    public let rawValue: motion_gesture_ref
    let table: UnsafePointer<motion_gesture>

    public static func == (lhs: GestureHandle, rhs: GestureHandle) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

public enum GesturePhase: UInt32, Sendable {
    case none = 0, began, moved, ended, cancelled

    /// A finger is down: `began` or `moved`.
    public var isActive: Bool { self == .began || self == .moved }
}

/// A gesture's latest sample, where it began, and its velocity (the tracker's estimate while it runs,
/// the release velocity once it ended; units per second).
public struct GestureState: Equatable, Sendable {
    public var phase: GesturePhase
    /// A new number is a new gesture (it counts `began`s).
    public var generation: UInt64
    /// Coordinates used in the vectors below (1 or 2); the others are 0.
    public var count: Int
    public var position: SIMD2<Double>
    public var origin: SIMD2<Double>
    public var velocity: SIMD2<Double>
    /// Seconds on CLOCK_MONOTONIC.
    public var time: Double

    /// The pointer's movement since `began`.
    public var translation: SIMD2<Double> { position - origin }
}

extension PerformerContext {
    /// [control] Interns the gesture `name` of this performer's runtime; nil if the host has no
    /// "motion.gesture/1" or the name is invalid. Do it when a plan arrives. A performer that holds a
    /// gesture is advanced with dt = 0 when its samples arrive.
    public func gesture(_ name: String) -> GestureHandle? {
        guard !name.utf8.contains(0),
              let raw = host.pointee.get_extension(host, MOTION_GESTURE_EXTENSION)?.assumingMemoryBound(to: motion_gesture.self),
              Int(raw.pointee.struct_size) >= MemoryLayout<motion_gesture>.size
        else { return nil }
        let handle = raw.pointee.intern_gesture(host, ref, name)
        return handle == MOTION_INVALID_GESTURE ? nil : GestureHandle(rawValue: handle, table: raw)
    }

    /// [control, frame] The gesture's state (no allocation); nil for a handle the host does not know.
    public func read(_ gesture: GestureHandle) -> GestureState? {
        var state = motion_gesture_state()
        guard gesture.table.pointee.read_gesture(host, ref, gesture.rawValue, &state, MemoryLayout<motion_gesture_state>.size) == MOTION_OK else {
            return nil
        }
        func vector(_ tuple: (Double, Double)) -> SIMD2<Double> { SIMD2(tuple.0, tuple.1) }
        return GestureState(phase: GesturePhase(rawValue: state.phase) ?? .none, generation: state.generation,
                            count: Int(min(state.count, 2)), position: vector(state.position), origin: vector(state.origin),
                            velocity: vector(state.velocity), time: state.time)
    }
}
