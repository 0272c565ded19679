import MotionEngine
import Foundation
import MotionWire
import NIOCore
import NIOExtras
import Synchronization

/// One client connection on its event loop: lines in, parsed requests to the engine thread.
///
/// Parsing happens here so the engine thread never spends a tick on JSON text; the engine answers
/// through the session's `ChannelOutput`.
/// The bytes of `struct ucred`: pid, uid, gid.
typealias PeerCredentialBytes = (Int32, UInt32, UInt32)

final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let sessionIDs = Atomic<UInt64>(0)
    /// Requests queued for the engine thread but not yet answered, and replies not yet written, past
    /// which this connection's socket is not read (the client waits; nobody else does).
    static let maximumPendingRequests = 256
    static let maximumPendingOutput = 8 << 20
    /// Request bytes all connections of one uid may have waiting for the engine thread, past which none of
    /// them is read: a uid's backlog is bounded however many connections it opens (16 connections of 55 KB
    /// plans, 256 in flight on each, held 225 MB).
    static let maximumWaitingBytesPerUID = 16 << 20

    private let loop: EngineLoop
    private let maximumLineLength: Int
    private let policy: AccessPolicy
    private let limiter: ConnectionLimiter
    /// Where this connection's uid ledger is handed to the handler before the line decoder.
    private let ledgerSlot: UnfinishedLines.Slot
    private var ledger: UIDLedger?
    private var sessionID: UInt64 = 0
    private var admittedUID: UInt32??
    /// The peer's uid (nil: unknown), whose lane its commands wait in.
    private var uid: UInt32? { admittedUID ?? nil }
    private var isClosing = false
    private var output: ChannelOutput?
    private let pending = PendingCount()
    private var isPaused = false

    /// A connection must say hello within this long (docs/protocol.md: 5 s).
    private let helloTimeout: TimeAmount
    private var helloDeadline: Scheduled<Void>?

    init(loop: EngineLoop, maximumLineLength: Int, policy: AccessPolicy, limiter: ConnectionLimiter,
         ledgerSlot: UnfinishedLines.Slot = .init(), helloTimeout: TimeAmount = .seconds(5)) {
        self.loop = loop
        self.ledgerSlot = ledgerSlot
        self.helloTimeout = helloTimeout
        self.maximumLineLength = maximumLineLength
        self.policy = policy
        self.limiter = limiter
    }

    func channelActive(context: ChannelHandlerContext) {
        let peer = Self.peerCredentials(of: context.channel)
        let role = policy.role(of: peer)
        let ledger: UIDLedger
        switch limiter.admit(uid: peer?.uid, isAdmin: role == .admin) {
        case .refused(let code, let message): return refuse(context: context, code: code, message: message)
        case .admitted(let admitted): ledger = admitted
        }
        self.ledger = ledger
        ledgerSlot.ledger = ledger
        admittedUID = .some(peer?.uid)
        sessionID = Self.sessionIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let id = sessionID
        let output = ChannelOutput(channel: context.channel, socketCookie: Self.socketCookie(of: context.channel), ledger: ledger)
        self.output = output
        loop.submit(uid: peer?.uid) { $0.openSession(id, output: output, peer: peer, role: role) }
        // A connection that has not been greeted (a hello the engine accepted) holds a slot for nothing:
        // after `helloTimeout` the engine thread, which knows, closes it.
        let seconds = Int(helloTimeout.nanoseconds / 1_000_000_000)
        helloDeadline = context.eventLoop.scheduleTask(in: helloTimeout) { [loop] in
            guard !output.isGreeted else { return }
            loop.submit(uid: peer?.uid) { $0.closeIfNotGreeted(id, afterSeconds: seconds) }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received(line: unwrapInboundIn(data), context: context)
    }

    private func received(line: ByteBuffer, context: ChannelHandlerContext) {
        // Closing (here, or the engine closed the output): what the client still sends is not read.
        guard !isClosing, output?.isClosing != true else { return }
        guard line.readableBytes <= maximumLineLength else { return refuseOversizedLine(context: context) }
        guard line.readableBytes > 0 else { return }
        // The time it takes is the uid's (its engine share pays for it: docs/protocol.md#ownership-and-quotas).
        let began = WorkClock.now()
        let parsed = Request.parse(line: line.readableBytesView)
        let parsing = WorkClock.now() &- began
        let id = sessionID
        let pending = self.pending
        pending.add(1)
        loop.submit(uid: uid, bytes: line.readableBytes, parsing: parsing) { context in
            context.handle(parsed, from: id)
            pending.add(-1)
        }
        if isBehind(by: 1) { pause(context: context) }
    }

    /// The client shut down its sending side: everything it sent is answered, then the connection
    /// closes, unless it subscribed (events flow until it goes) or a reply is still owed.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, admittedUID != nil, !isClosing,
           output?.isClosing != true {
            let id = sessionID
            loop.submit(uid: uid) { $0.endOfInput(from: id) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        output?.discardWaiting()
        helloDeadline?.cancel()
        helloDeadline = nil
        if let uid = admittedUID {
            limiter.release(uid: uid)
            admittedUID = nil
            let id = sessionID
            loop.submit(uid: uid) { $0.closeSession(id) }
            MallocTuning.returnFreedMemorySoon()
        }
        context.fireChannelInactive()
    }

    /// Backpressure on requests: a client that sends faster than the engine answers, or does not read
    /// its replies, is not read from until it has caught up. Memory stays bounded; other clients and the
    /// frame clock are unaffected.
    private func pause(context: ChannelHandlerContext) {
        guard !isPaused else { return }
        isPaused = true
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        resumeWhenDrained(context: context)
    }

    /// Whether this connection has more waiting than its bounds allow (`divisor` 2: than half of them).
    private func isBehind(by divisor: Int) -> Bool {
        // Requests waiting their turn on the engine thread (behind sliced work, or the journal's replay at
        // start) are not answered yet: they count as in flight.
        pending.value + (output?.requestsWaiting ?? 0) > Self.maximumPendingRequests / divisor
            || (output?.backlog ?? 0) > Self.maximumPendingOutput / divisor
            || (output?.backlog ?? 0) > 0 && (ledger?.backlogBytes.load(ordering: .relaxed) ?? 0) > loop.outputBytesQuota.load(ordering: .relaxed) / divisor
            || loop.waitingBytes(of: uid) + (ledger?.waitingBytes.load(ordering: .relaxed) ?? 0) > Self.maximumWaitingBytesPerUID / divisor
    }

    /// Looks again after 5 ms, then less and less often (to 80 ms): a uid's many paused connections do
    /// not keep its event loop busy.
    private func resumeWhenDrained(context: ChannelHandlerContext, after delay: Int64 = 5) {
        let channel = context.channel
        channel.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(delay)) { [self] in
            guard channel.isActive, output?.isClosing != true else { return }
            if isBehind(by: 2) { return resumeWhenDrained(context: context, after: min(delay * 2, 80)) }
            isPaused = false
            channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
            channel.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is ByteToMessageDecoderError.PayloadTooLargeError {
            refuseOversizedLine(context: context)
        } else if let unterminated = error as? NIOExtrasErrors.LeftOverBytesError {
            // The input ended without a final "\n": that last line is a request like any other.
            received(line: unterminated.leftOverBytes, context: context)
        } else {
            context.close(promise: nil)
        }
    }

    /// SO_PEERCRED: the peer's uid, gid and pid when it connected. On the event loop the option is read
    /// synchronously, so the session knows its role before its first line.
    static func peerCredentials(of channel: any Channel) -> PeerCredentials? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — Glibc's module hides it behind _GNU_SOURCE.
        let future: EventLoopFuture<PeerCredentialBytes> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        var credentials: PeerCredentials?
        future.assumeIsolated().whenSuccess { credentials = PeerCredentials(uid: $0.1, gid: $0.2, pid: $0.0) }
        return credentials
    }

    /// SO_COOKIE (Linux 4.12+), read like SO_PEERCRED: the number that finds this socket's descriptor
    /// when a descriptor is passed over it (shared-memory frames).
    static func socketCookie(of channel: any Channel) -> UInt64 {
        guard let provider = channel as? any SocketOptionProvider else { return 0 }
        let future: EventLoopFuture<UInt64> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(57 /* SO_COOKIE */))
        var cookie: UInt64 = 0
        future.assumeIsolated().whenSuccess { cookie = $0 }
        return cookie
    }

    /// docs/protocol.md: a line over the limit gets `protocol.too_large` and only this connection closes.
    private func refuseOversizedLine(context: ChannelHandlerContext) {
        refuse(context: context, code: .tooLarge, message: "line longer than \(maximumLineLength) bytes; closing the connection")
    }

    /// Sends one error line and closes this connection.
    private func refuse(context: ChannelHandlerContext, code: ErrorCode, message: String) {
        guard !isClosing else { return }
        isClosing = true
        let reply = WireMessage.error(id: .null, code: code, message: message)
        let bytes = WireMessage.line(reply)
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
        // A client that does not read may never take the line.
        ChannelOutput.close(context.channel, after: ChannelOutput.closeGrace)
    }
}

/// Requests of one connection that the engine thread has not handled yet.
final class PendingCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add(_ delta: Int) { count.add(delta, ordering: .relaxed) }
}
