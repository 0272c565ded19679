#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds, for measuring work: a slice's budget, how long a plugin call held the
/// engine thread, what a uid's fan-out cost. Always the real clock, whatever `EngineClock` the engine was
/// given: a test's `ManualClock` stands still while the work it drives runs.
package enum WorkClock {
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
