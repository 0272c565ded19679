#if canImport(Glibc)
import Glibc
#endif

/// Where a session's lines go. The engine thread writes; the backlog says how far the reader is behind.
package protocol ClientOutput: AnyObject, Sendable {
    /// Bytes handed over but not yet written to the socket.
    var backlog: Int { get }
    /// Bytes all connections of this session's uid have handed over and not yet written, together
    /// (`quotas.outputBytes`).
    var ownerBacklog: Int { get }
    func send(_ line: [UInt8])
    /// Sends a copy of `bytes` (borrowed for the call): frames are lent from a reused buffer.
    func send(bytes: UnsafeRawBufferPointer)
    func close()
    /// The session's `hello` was accepted: the connection's own deadline for it no longer applies.
    func markGreeted()
    /// Whether `send(_:passing:)` can hand a file descriptor over (a Unix socket can, SCM_RIGHTS).
    var canPassDescriptors: Bool { get }
    /// Sends `line` with `descriptor` attached to its first byte, after every line sent before it; the
    /// output owns the descriptor from then on and closes it once sent (or when the connection closes).
    func send(_ line: [UInt8], passing descriptor: Int32)
    /// How many of the session's requests wait their turn on the engine thread (`Session.wait`), and
    /// their bytes: the connection is not read past its bounds of requests in flight, these included.
    func requestsWaiting(_ count: Int, bytes: Int)
}

extension ClientOutput {
    package func send(bytes: UnsafeRawBufferPointer) { send(Array(bytes)) }
    package func markGreeted() {}
    package var ownerBacklog: Int { backlog }
    package var canPassDescriptors: Bool { false }
    package func requestsWaiting(_ count: Int, bytes: Int) {}
    package func send(_ line: [UInt8], passing descriptor: Int32) {
        Glibc.close(descriptor)
        send(line)
    }
}
