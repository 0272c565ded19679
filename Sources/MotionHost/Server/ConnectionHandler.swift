import MotionWire
import NIOCore
import Synchronization

/// One client connection on its event loop: lines in, parsed requests to the engine thread.
///
/// Parsing happens here so the engine thread never spends a tick on JSON text; the engine answers
/// through the session's `ChannelOutput`.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let sessionIDs = Atomic<UInt64>(0)

    private let loop: EngineLoop
    private let maximumLineLength: Int
    private var sessionID: UInt64 = 0
    private var isClosing = false

    init(loop: EngineLoop, maximumLineLength: Int) {
        self.loop = loop
        self.maximumLineLength = maximumLineLength
    }

    func channelActive(context: ChannelHandlerContext) {
        sessionID = Self.sessionIDs.wrappingAdd(1, ordering: .relaxed).newValue
        let id = sessionID
        let output = ChannelOutput(channel: context.channel)
        loop.submit { $0.openSession(id, output: output) }
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
