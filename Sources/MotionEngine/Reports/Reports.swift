/// Where the engine's trace events go, and what it already said of misbehaving plugins, so that it says
/// it once (docs/protocol.md, trace events; docs/plugins.md, what the daemon reports of a plugin).
struct Reports {
    weak var observer: (any TraceObserver)?
    /// Trace events held while a new performer takes its first plan: sent if the plugin takes it,
    /// dropped if it refuses (`Engine+Refusals`).
    var heldTraces: [TraceEvent]?
    /// Plugin calls that held the engine thread past `slowCallLimit` (`Engine+SlowCalls`).
    var slowCalls = SlowCalls()
    /// Performers already reported for writing a value that is not finite (once each).
    var reportedNonFinite: Set<UInt64> = []
    /// When the log last heard of a plugin's non-finite value, and how many it has not heard of since (`Engine+NonFinite`).
    var nonFiniteLogged: [String: (at: UInt64, unsaid: Int)] = [:]
}
