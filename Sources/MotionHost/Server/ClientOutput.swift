import NIOCore
import Synchronization

/// Where a session's lines go. The engine thread writes; the backlog says how far the reader is behind.
public protocol ClientOutput: AnyObject, Sendable {
    /// Bytes handed over but not yet written to the socket.
    var backlog: Int { get }
    func send(_ line: [UInt8])
    /// Sends a copy of `bytes` (borrowed for the call): frames are lent from a reused buffer.
    func send(bytes: UnsafeRawBufferPointer)
    func close()
}

extension ClientOutput {
    public func send(bytes: UnsafeRawBufferPointer) { send(Array(bytes)) }
}

/// A connection's channel. Writes hop to its event loop; the frame clock never waits on them.
final class ChannelOutput: ClientOutput {
    let channel: any Channel
    private let pending = Atomic<Int>(0)

    init(channel: any Channel) {
        self.channel = channel
    }

    var backlog: Int { pending.load(ordering: .relaxed) }

    func send(_ line: [UInt8]) {
        line.withUnsafeBytes { send(bytes: $0) }
    }

    func send(bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        var buffer = channel.allocator.buffer(capacity: count)
        buffer.writeBytes(bytes)
        pending.add(count, ordering: .relaxed)
        channel.writeAndFlush(buffer).whenComplete { _ in
            self.pending.subtract(count, ordering: .relaxed)
        }
    }

    func close() {
        channel.close(promise: nil)
    }
}
