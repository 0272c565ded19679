import MotionWire

/// A failure the engine reports to the client that caused it, with a stable wire code.
public struct EngineError: Error, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
