import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The inspector's connections, with `WebSocketTokenGate` in front of Hummingbird's HTTP and WebSocket
/// handlers: a WebSocket upgrade Hummingbird declines is answered 400 whatever the reason, and
/// docs/inspector.md promises 403 for a request without the token, upgrade or not.
struct TokenGatedChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    let token: String

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(WebSocketTokenGate(token: token))
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Reads a connection's first request line: a request without the token (`?token=`, compared as
/// `TokenCheck` does), for any path, is answered 403 and closed before any HTTP or WebSocket handler sees
/// it; any other passes on untouched and the gate leaves the pipeline. (A later request on a kept-alive
/// connection is not looked at: `TokenCheck` answers a page 403, and an upgrade there without the token is
/// still refused, with Hummingbird's 400 or a redirect to `/ws` that is refused in turn.)
final class WebSocketTokenGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// A request line longer than this is passed on for the HTTP decoder to refuse.
    static let maximumLine = 8192
    private let token: String
    private var buffered: ByteBuffer?
    /// Answered 403: whatever else comes before the close is dropped, never read as a first line.
    private var refused = false

    init(token: String) { self.token = token }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        var bytes = unwrapInboundIn(data)
        if var held = buffered {
            held.writeBuffer(&bytes)
            bytes = held
        }
        let view = bytes.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if bytes.readableBytes < Self.maximumLine {
                buffered = bytes
                return
            }
            return pass(bytes, context: context)
        }
        let line = String(decoding: view[view.startIndex..<end], as: UTF8.self)
        if Self.refuses(line, token: token) {
            buffered = nil
            refused = true
            let body = "403: the inspector's address carries its token (motionctl inspect prints it)\n"
            var response = context.channel.allocator.buffer(capacity: 256)
            response.writeString("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            context.writeAndFlush(NIOAny(response)).whenComplete { _ in context.close(promise: nil) }
            return
        }
        pass(bytes, context: context)
    }

    private func pass(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        buffered = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// A request line without the right token, whatever its path (`/ws`, `/ws/`, `//ws` and an absolute
    /// `http://…/ws` all reach a WebSocket handler; every page the inspector serves needs the token too).
    static func refuses(_ line: String, token: String) -> Bool {
        let parts = line.split(separator: " ")
        guard parts.count >= 2 else { return false }
        let target = parts[1]
        let path = target.prefix { $0 != "?" }
        let query = target.dropFirst(path.count + 1)
        let given = query.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) }
        return given.map { !TokenCheck<BasicRequestContext>.same($0, token) } ?? true
    }
}
