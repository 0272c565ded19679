import MotionWire

/// Trace, gap and error event lines (everything but frames, which `FrameEncoder` writes).
enum EventLines {
    /// `viewer`: the subscriber's uid; the runtime is named as it names it (`OwnedName.display`).
    static func trace(_ event: TraceEvent, subscription: Int, seq: UInt64, time: Double, viewer: UInt32) -> [UInt8] {
        var members = event.fields
        members["event"] = "trace"
        members["sub"] = .number(Double(subscription))
        members["seq"] = .number(Double(seq))
        members["t"] = .number((time * 1e6).rounded() / 1e6)
        members["kind"] = .string(event.kind)
        if let runtime = event.runtime { members["runtime"] = .string(OwnedName.display(runtime, for: viewer)) }
        if let target = event.target { members["target"] = .string(target) }
        return WireMessage.line(.object(members))
    }

    static func route(_ name: String, _ fields: [String: JSONValue], subscription: Int, seq: UInt64, time: Double) -> [UInt8] {
        var members = fields
        members["event"] = .string(name)
        members["sub"] = .number(Double(subscription))
        members["seq"] = .number(Double(seq))
        members["t"] = .number((time * 1e6).rounded() / 1e6)
        return WireMessage.line(.object(members))
    }

    /// Tells a subscriber that `lost` trace events were dropped because it read too slowly.
    static func gap(subscription: Int, seq: UInt64, lost: Int, time: Double) -> [UInt8] {
        WireMessage.line([
            "event": "gap", "sub": .number(Double(subscription)), "seq": .number(Double(seq)),
            "t": .number((time * 1e6).rounded() / 1e6), "stream": "trace", "lost": .number(Double(lost)),
        ])
    }

    /// The last line a connection receives before the server closes it.
    static func closing(code: ErrorCode, message: String) -> [UInt8] {
        WireMessage.closing(code: code, message: message)
    }
}
