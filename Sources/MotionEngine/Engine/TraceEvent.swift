import MotionWire

/// Something the engine did, as subscribers to the `trace` stream see it.
public struct TraceEvent: Sendable, Equatable {
    public var kind: String
    public var runtime: String?
    public var target: String?
    /// Kind-specific members (`plan`, `name`, `performer`, `reason`, …).
    public var fields: [String: JSONValue]

    public init(kind: String, runtime: String? = nil, target: String? = nil, fields: [String: JSONValue] = [:]) {
        self.kind = kind
        self.runtime = runtime
        self.target = target
        self.fields = fields
    }
}

/// Receives trace events as the engine produces them, synchronously and in order.
public protocol TraceObserver: AnyObject {
    func engine(_ engine: Engine, didTrace event: TraceEvent)
}
