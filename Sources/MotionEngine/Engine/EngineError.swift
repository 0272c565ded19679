import MotionWire

/// A failure the engine reports to the client that caused it, with a stable wire code.
package struct EngineError: Error, Equatable, CustomStringConvertible {
    package var code: ErrorCode
    package var message: String

    package init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { "\(code.rawValue): \(message)" }
}
