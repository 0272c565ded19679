import Foundation
import MotionWire
import NIOCore
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

    private let loop: EngineLoop
    private let maximumLineLength: Int
    private let policy: AccessPolicy
    private var sessionID: UInt64 = 0
    private var isClosing = false

    init(loop: EngineLoop, maximumLineLength: Int, policy: AccessPolicy) {
        self.loop = loop
        self.maximumLineLength = maximumLineLength
        self.policy = policy
    }

    func channelActive(context: ChannelHandlerContext) {
        sessionID = Self.sessionIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let id = sessionID
        let output = ChannelOutput(channel: context.channel)
        let peer = Self.peerCredentials(of: context.channel)
        let role = policy.role(of: peer)
        loop.submit { $0.openSession(id, output: output, peer: peer, role: role) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        guard !isClosing else { return }
        guard line.readableBytes <= maximumLineLength else { return refuseOversizedLine(context: context) }
        guard line.readableBytes > 0 else { return }
        let parsed = Request.parse(line: line.readableBytesView)
        let id = sessionID
        loop.submit { $0.handle(parsed, from: id) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let id = sessionID
        loop.submit { $0.closeSession(id) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is ByteToMessageDecoderError.PayloadTooLargeError {
            refuseOversizedLine(context: context)
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

    /// SPEC §5: a line over the limit gets `protocol.too_large` and only this connection closes.
    private func refuseOversizedLine(context: ChannelHandlerContext) {
        guard !isClosing else { return }
        isClosing = true
        let reply = WireMessage.error(
            id: .null, code: .tooLarge, message: "line longer than \(maximumLineLength) bytes; closing the connection")
        let bytes = WireMessage.line(reply)
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
    }
}
