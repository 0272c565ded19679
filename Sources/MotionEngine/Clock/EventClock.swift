/// The engine's time as its context reads it (docs/architecture.md, "Time is a parameter"): the clock it
/// was given, and when the context began on it — the `t` of events counts from then.
package struct EventClock: Sendable {
    package let source: any EngineClock
    let start: UInt64

    init(_ source: any EngineClock) {
        self.source = source
        start = source.now()
    }

    /// CLOCK_MONOTONIC, in nanoseconds (`EngineClock.now`).
    package func now() -> UInt64 { source.now() }
    /// CLOCK_REALTIME, in seconds since the epoch (`EngineClock.wallNow`).
    package func wallNow() -> Double { source.wallNow() }
    /// Seconds since the context began.
    var seconds: Double { Double(source.now() &- start) / 1e9 }
}
