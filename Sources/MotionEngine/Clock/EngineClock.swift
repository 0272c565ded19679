#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Where the engine reads the time: CLOCK_MONOTONIC nanoseconds for event times, display timing and the
/// first tick after a replay, and CLOCK_REALTIME seconds for the journal's records (a restart replays
/// them to the present; the monotonic clock starts again at boot).
///
/// The daemon passes `SystemClock`; engine and protocol tests pass a `ManualClock` and move it by hand,
/// as swift-nio's `EmbeddedEventLoop.advanceTime(by:)` does, so no test waits on wall time
/// (docs/architecture.md, "Time is a parameter"). How long the engine thread *works* on something (a slice's
/// budget, a slow plugin call) is not the engine's time: `WorkClock` measures that, always for real.
package protocol EngineClock: AnyObject, Sendable {
    /// CLOCK_MONOTONIC, in nanoseconds.
    func now() -> UInt64
    /// CLOCK_REALTIME, in seconds since the epoch.
    func wallNow() -> Double
}

/// The system's clocks.
package final class SystemClock: EngineClock {
    package static let shared = SystemClock()
    package init() {}
    package func now() -> UInt64 { WorkClock.now() }
    package func wallNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// A clock that moves only when told to: `advance(by:)` moves both readings together.
package final class ManualClock: EngineClock {
    private struct Readings {
        var monotonic: UInt64
        var wall: Double
    }
    private let readings: Mutex<Readings>

    /// Starts at `monotonic` nanoseconds (1 s by default: a vblank or deadline before it stays positive)
    /// and `wall` seconds since the epoch.
    package init(monotonic: UInt64 = 1_000_000_000, wall: Double = 1_800_000_000) {
        readings = Mutex(Readings(monotonic: monotonic, wall: wall))
    }

    package func now() -> UInt64 { readings.withLock { $0.monotonic } }
    package func wallNow() -> Double { readings.withLock { $0.wall } }

    /// Moves both clocks forward by `seconds`.
    package func advance(by seconds: Double) {
        precondition(seconds >= 0, "a clock does not go back")
        readings.withLock { readings in
            readings.monotonic &+= UInt64((seconds * 1e9).rounded())
            readings.wall += seconds
        }
    }

    /// Moves both clocks forward by `nanoseconds`.
    package func advance(nanoseconds: UInt64) { advance(by: Double(nanoseconds) / 1e9) }
}
