import MotionWire

/// Something the engine did, as subscribers to the `trace` stream see it.
package struct TraceEvent: Sendable, Equatable {
    package var kind: String
    package var runtime: String?
    package var target: String?
    /// Kind-specific members (`plan`, `name`, `performer`, `reason`, …).
    package var fields: [String: JSONValue]

    package init(kind: String, runtime: String? = nil, target: String? = nil, fields: [String: JSONValue] = [:]) {
        self.kind = kind
        self.runtime = runtime
        self.target = target
        self.fields = fields
    }
}

/// Receives trace events as the engine produces them, synchronously and in order.
package protocol TraceObserver: AnyObject {
    func engine(_ engine: Engine, didTrace event: TraceEvent)
}
