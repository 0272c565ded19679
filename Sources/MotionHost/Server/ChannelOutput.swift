import CHostSupport
import Glibc
import MotionEngine
import NIOCore
import Synchronization

/// A connection's channel. Writes hop to its event loop in batches; the frame clock never waits on them.
final class ChannelOutput: ClientOutput {
    let channel: any Channel
    fileprivate let pending = Atomic<Int>(0)
    private let greeted = Atomic<Bool>(false)
    /// Set by `close()` on the caller's thread: what that thread sends afterwards is dropped there, before
    /// it could join a batch that the event loop writes ahead of the close (a frame of the next tick came
    /// after the shutdown notice on a busy machine).
    private let closeRequested = Atomic<Bool>(false)
    /// Set by the engine thread once the session's hello was accepted.
    var isGreeted: Bool { greeted.load(ordering: .relaxed) }
    func markGreeted() { greeted.store(true, ordering: .relaxed) }
    private let waitingRequests = Atomic<Int>(0)
    /// Requests of this connection waiting their turn on the engine thread (`ConnectionHandler.isBehind`);
    /// their bytes are its uid's (`UIDLedger.waitingBytes`).
    var requestsWaiting: Int { waitingRequests.load(ordering: .relaxed) }
    nonisolated(unsafe) private var waitingBytes = 0  // the engine thread's
    func requestsWaiting(_ count: Int, bytes: Int) {
        waitingRequests.store(count, ordering: .relaxed)
        ledger.waitingBytes.add(bytes - waitingBytes, ordering: .relaxed)
        waitingBytes = bytes
    }
    private let batcher: WriteBatcher
    /// The socket's SO_COOKIE: how its descriptor is found to pass another one over it (NIO does not
    /// lend a channel's descriptor). 0 when unknown: no descriptors are passed.
    private let socketCookie: UInt64
    /// On the event loop: writes handed to the channel and not completed, and what waits behind a line
    /// that carries a descriptor (sent with sendmsg once nothing is in flight before it).
    nonisolated(unsafe) private var inFlight = 0
    nonisolated(unsafe) private var waiting: [(buffer: ByteBuffer, descriptor: Int32?)] = []
    /// On the event loop: `close()` was asked; the channel closes once nothing is in flight.
    nonisolated(unsafe) private(set) var isClosing = false
    /// Buffers of large lines already written, for the next ones (frames of thousands of updates).
    private let spares = SpareBuffers()

    /// What all connections of this one's uid hold; its `backlogBytes` moves with `pending`.
    private let ledger: UIDLedger

    init(channel: any Channel, socketCookie: UInt64 = 0, ledger: UIDLedger = UIDLedger(uid: nil)) {
        self.channel = channel
        self.ledger = ledger
        self.socketCookie = socketCookie
        batcher = WriteBatcher.shared(for: channel.eventLoop)
    }

    var canPassDescriptors: Bool { socketCookie != 0 }

    func send(_ line: [UInt8], passing descriptor: Int32) {
        guard !closeRequested.load(ordering: .acquiring) else {
            Glibc.close(descriptor)
            return
        }
        var buffer = channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        hold(line.count)
        batcher.enqueue(self, buffer, passing: descriptor)
    }

    var backlog: Int { pending.load(ordering: .relaxed) }
    var ownerBacklog: Int { ledger.backlogBytes.load(ordering: .relaxed) }

    /// `pending` and the uid's ledger move together.
    private func hold(_ bytes: Int) {
        pending.add(bytes, ordering: .relaxed)
        ledger.backlogBytes.add(bytes, ordering: .relaxed)
    }

    private func letGo(_ bytes: Int) {
        pending.subtract(bytes, ordering: .relaxed)
        ledger.backlogBytes.subtract(bytes, ordering: .relaxed)
    }

    func send(_ line: [UInt8]) {
        line.withUnsafeBytes { send(bytes: $0) }
    }

    func send(bytes: UnsafeRawBufferPointer) {
        guard !closeRequested.load(ordering: .acquiring) else { return }
        var buffer = spares.take(for: bytes.count) ?? channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        hold(bytes.count)
        batcher.enqueue(self, buffer)
    }

    /// Closes the connection once every line sent before is in the socket (the last is usually an error
    /// saying why: a slow reader that catches up still gets it), or after `closeGrace` at the latest.
    /// Runs on the event loop after the writes handed over before it (tasks run in the order queued);
    /// nothing more is read from the client meanwhile.
    /// Lines sent after it are dropped: the error stays the last line.
    func close() {
        closeRequested.store(true, ordering: .releasing)
        channel.eventLoop.execute {
            guard !self.isClosing else { return }
            self.isClosing = true
            self.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
            self.closeIfWritten()
            Self.close(self.channel, after: Self.closeGrace)
        }
    }

    static let closeGrace = TimeAmount.seconds(5)

    /// Closes `channel` after `delay` unless it closed before (holds the channel only, not its output).
    static func close(_ channel: any Channel, after delay: TimeAmount) {
        let scheduled = channel.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
        channel.closeFuture.whenComplete { _ in scheduled.cancel() }
    }

    private func closeIfWritten() {
        if isClosing, inFlight == 0, waiting.isEmpty { channel.close(promise: nil) }
    }

    /// On the event loop.
    fileprivate func write(_ buffer: ByteBuffer, passing descriptor: Int32? = nil) {
        guard !isClosing else {
            letGo(buffer.readableBytes)
            if let descriptor { Glibc.close(descriptor) }
            return
        }
        waiting.append((buffer, descriptor))
        releaseWaiting()
    }

    /// Hands waiting lines to the channel in order; a line with a descriptor goes only once nothing is
    /// in flight before it (then straight to the socket with sendmsg).
    private func releaseWaiting() {
        while let item = waiting.first, item.descriptor == nil || inFlight == 0 {
            waiting.removeFirst()
            if let descriptor = item.descriptor {
                guard sendNow(item.buffer, passing: descriptor) else {
                    // The socket is full: try again shortly, everything after it waiting too.
                    waiting.insert(item, at: 0)
                    channel.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(2)) {
                        self.releaseWaiting()
                        self.channel.flush()
                    }
                    return
                }
            } else {
                writeToChannel(item.buffer)
            }
        }
        closeIfWritten()
    }

    private func writeToChannel(_ buffer: ByteBuffer) {
        let count = buffer.readableBytes
        inFlight += 1
        channel.write(buffer).whenComplete { result in
            self.letGo(count)
            if case .success = result { self.spares.keep(buffer) }
            self.inFlight -= 1
            if self.inFlight == 0, !self.waiting.isEmpty {
                self.releaseWaiting()
                self.channel.flush()
            }
            self.closeIfWritten()
        }
    }

    /// Sends the line with the descriptor attached to its first byte; what the socket did not take
    /// follows through the channel. False when the socket took nothing (full).
    private func sendNow(_ buffer: ByteBuffer, passing descriptor: Int32) -> Bool {
        guard channel.isActive else {
            Glibc.close(descriptor)
            letGo(buffer.readableBytes)
            return true
        }
        let socket = motion_socket_with_cookie(socketCookie)
        let sent = socket < 0 ? -1 : buffer.withUnsafeReadableBytes {
            motion_send_with_descriptor(socket, $0.baseAddress, $0.count, descriptor)
        }
        if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK { return false }
        Glibc.close(descriptor)
        guard sent >= 0 else {
            letGo(buffer.readableBytes)
            channel.close(promise: nil)
            return true
        }
        letGo(sent)
        var rest = buffer
        rest.moveReaderIndex(forwardBy: sent)
        if rest.readableBytes > 0 { writeToChannel(rest) }
        return true
    }

    /// The connection closed: descriptors never sent are closed.
    func discardWaiting() {
        for item in waiting {
            if let descriptor = item.descriptor { Glibc.close(descriptor) }
            letGo(item.buffer.readableBytes)
        }
        waiting.removeAll()
    }
}

/// Hands writes to one event loop in batches: a tick that writes to a thousand connections wakes their
/// loop once, not a thousand times. Order per connection is kept (one queue per loop, drained in order).
final class WriteBatcher: Sendable {
    private struct Queue {
        var items: [(output: ChannelOutput, buffer: ByteBuffer, descriptor: Int32?)] = []
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

    func enqueue(_ output: ChannelOutput, _ buffer: ByteBuffer, passing descriptor: Int32? = nil) {
        let schedules = queue.withLock { queue in
            queue.items.append((output, buffer, descriptor))
            defer { queue.isScheduled = true }
            return !queue.isScheduled
        }
        if schedules { eventLoop.execute { self.drain() } }
    }

    private func drain() {
        var items: [(output: ChannelOutput, buffer: ByteBuffer, descriptor: Int32?)] = []
        queue.withLock { queue in
            swap(&items, &queue.items)
            queue.isScheduled = false
        }
        var written: [ObjectIdentifier: any Channel] = [:]
        for item in items {
            item.output.write(item.buffer, passing: item.descriptor)
            written[ObjectIdentifier(item.output)] = item.output.channel
        }
        for channel in written.values { channel.flush() }
    }
}
