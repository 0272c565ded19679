import MotionWire

/// Every call into a plugin goes through `calling`: marked for the crash handler (`PluginCallMarker`) and
/// timed (`SlowCalls`). A slow one is reported as a warning in the log and a `plugin.slow` trace event
/// naming the plugin, its file, the function and the time it took.
extension Engine {
    /// Nanoseconds a plugin call may hold the engine thread before it is reported (0: not timed). The
    /// daemon sets one frame interval: a call that long alone makes the tick miss its frame.
    package var slowCallLimit: UInt64 {
        get { reports.slowCalls.limit }
        set { reports.slowCalls.limit = newValue }
    }

    /// Reads the engine thread's CPU time and context switches (the daemon sets getrusage): a call made
    /// slow by a busy machine (the thread preempted, not blocked, little CPU) is not blamed on its plugin.
    package var threadUsage: (() -> SlowCalls.ThreadUsage)? {
        get { reports.slowCalls.usage }
        set { reports.slowCalls.usage = newValue }
    }

    /// Starts a window that slow calls' preemption is judged over (one getrusage): the engine loop calls
    /// it when it wakes for commands, `advance(by:)` at each tick.
    package func markSlowCallWindow() { reports.slowCalls.markTick() }

    @inline(__always)
    func calling<Result>(_ label: UnsafePointer<CChar>?, _ function: StaticString, performers: Int = 1,
                         _ body: () throws -> Result) rethrows -> Result {
        guard reports.slowCalls.limit > 0 else { return try PluginCallMarker.calling(label, function, body) }
        let started = WorkClock.now()
        defer {
            let now = WorkClock.now()
            reports.slowCalls.callNanos[UInt(bitPattern: label), default: 0] &+= now &- started
            if now &- started > reports.slowCalls.limit { noteSlowCall(label, function, nanoseconds: now &- started, now: now, performers: performers) }
        }
        return try PluginCallMarker.calling(label, function, body)
    }

    private func noteSlowCall(_ label: UnsafePointer<CChar>?, _ function: StaticString, nanoseconds: UInt64, now: UInt64,
                              performers: Int) {
        if let usage = reports.slowCalls.usage?(), reports.slowCalls.wasPreempted(now: usage) { return }
        let key = SlowCalls.Key(label: UInt(bitPattern: label), function: UInt(bitPattern: function.utf8Start))
        guard let report = reports.slowCalls.note(key, nanoseconds: nanoseconds, now: now) else { return }
        let file = label.map { String(cString: $0).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? "" } ?? ""
        let plugin = registry.factories.first { $0.label == label }?.pluginID ?? ""
        let milliseconds = (Double(nanoseconds) / 1e4).rounded() / 100
        let slowest = (Double(report.slowest) / 1e4).rounded() / 100
        host.logger.warning("a plugin call held the frame clock", metadata: [
            "plugin": "\(plugin)", "file": "\(file)", "function": "\(function)", "ms": "\(milliseconds)",
            "performers": "\(performers)", "slow_calls": "\(report.calls)", "slowest_ms": "\(slowest)",
            "limit_ms": "\(Double(reports.slowCalls.limit) / 1e6)",
        ])
        trace(TraceEvent(kind: "plugin.slow", fields: [
            "plugin": .string(plugin), "file": .string(file), "function": .string("\(function)"),
            "ms": .number(milliseconds), "performers": .number(Double(performers)), "calls": .number(Double(report.calls)),
            "slowest_ms": .number(slowest),
        ]))
    }
}
