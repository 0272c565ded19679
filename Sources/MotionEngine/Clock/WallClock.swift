#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_REALTIME in seconds: when journaled changes happened, so that a restart replays them to the
/// present (the monotonic clock starts again at boot).
package enum WallClock {
    package static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
