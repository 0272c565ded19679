/// Where a session's lines go. The engine thread writes; the backlog says how far the reader is behind.
public protocol ClientOutput: AnyObject, Sendable {
    /// Bytes handed over but not yet written to the socket.
    var backlog: Int { get }
    func send(_ line: [UInt8])
    /// Sends a copy of `bytes` (borrowed for the call): frames are lent from a reused buffer.
    func send(bytes: UnsafeRawBufferPointer)
    func close()
    /// The session's `hello` was accepted: the connection's own deadline for it no longer applies.
    func markGreeted()
}

extension ClientOutput {
    public func send(bytes: UnsafeRawBufferPointer) { send(Array(bytes)) }
    public func markGreeted() {}
}
