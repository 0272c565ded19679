import MotionEngine
import NIOCore
import Synchronization

/// A connection's channel. Writes hop to its event loop in batches; the frame clock never waits on them.
final class ChannelOutput: ClientOutput {
    let channel: any Channel
    fileprivate let pending = Atomic<Int>(0)
    private let greeted = Atomic<Bool>(false)
    /// Set by the engine thread once the session's hello was accepted.
    var isGreeted: Bool { greeted.load(ordering: .relaxed) }
    func markGreeted() { greeted.store(true, ordering: .relaxed) }
    private let batcher: WriteBatcher

    init(channel: any Channel) {
        self.channel = channel
        batcher = WriteBatcher.shared(for: channel.eventLoop)
    }

    var backlog: Int { pending.load(ordering: .relaxed) }

    func send(_ line: [UInt8]) {
        line.withUnsafeBytes { send(bytes: $0) }
    }

    func send(bytes: UnsafeRawBufferPointer) {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        pending.add(bytes.count, ordering: .relaxed)
        batcher.enqueue(self, buffer)
    }

    /// On the event loop, after every write sent before it (tasks run in the order they were queued).
    func close() {
        channel.close(promise: nil)
    }

    /// On the event loop.
    fileprivate func write(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        channel.write(buffer).whenComplete { _ in
            self.pending.subtract(count, ordering: .relaxed)
        }
    }
}

/// Hands writes to one event loop in batches: a tick that writes to a thousand connections wakes their
/// loop once, not a thousand times. Order per connection is kept (one queue per loop, drained in order).
final class WriteBatcher: Sendable {
    private struct Queue {
        var items: [(output: ChannelOutput, buffer: ByteBuffer)] = []
        var isScheduled = false
    }

    private let eventLoop: any EventLoop
    private let queue = Mutex(Queue())

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    private static let batchers = Mutex<[ObjectIdentifier: WriteBatcher]>([:])

    static func shared(for eventLoop: any EventLoop) -> WriteBatcher {
        batchers.withLock { batchers in
            let key = ObjectIdentifier(eventLoop)
            if let batcher = batchers[key] { return batcher }
            let batcher = WriteBatcher(eventLoop: eventLoop)
            batchers[key] = batcher
            return batcher
        }
    }

    func enqueue(_ output: ChannelOutput, _ buffer: ByteBuffer) {
        let schedules = queue.withLock { queue in
            queue.items.append((output, buffer))
            defer { queue.isScheduled = true }
            return !queue.isScheduled
        }
        if schedules { eventLoop.execute { self.drain() } }
    }

    private func drain() {
        var items: [(output: ChannelOutput, buffer: ByteBuffer)] = []
        queue.withLock { queue in
            swap(&items, &queue.items)
            queue.isScheduled = false
        }
        var written: [ObjectIdentifier: any Channel] = [:]
        for item in items {
            item.output.write(item.buffer)
            written[ObjectIdentifier(item.output)] = item.output.channel
        }
        for channel in written.values { channel.flush() }
    }
}
