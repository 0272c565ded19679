import MotionWire
import NIOCore
import NIOExtras
import NIOPosix
import Synchronization

/// A client of motiond's socket: `call` a method and await its result; read `events` for frames, trace
/// events and anything else the server sends unasked.
///
/// ```swift
/// let client = try await MotionClient.connect(path: "/run/motiond/motiond.sock")
/// try await client.hello()
/// let sub = try await client.call("subscribe", ["streams": ["frames"]])
/// for await event in client.events { print(event) }
/// ```
public final class MotionClient: Sendable {
    private let channel: any Channel
    private let state: ClientState
    /// Server messages that are not a reply to a pending call: events, and errors with a null id.
    public let events: AsyncStream<JSONValue>

    private init(channel: any Channel, state: ClientState, events: AsyncStream<JSONValue>) {
        self.channel = channel
        self.state = state
        self.events = events
    }

    public static func connect(path: String, maximumLineLength: Int = 64 << 20) async throws -> MotionClient {
        let (events, continuation) = AsyncStream.makeStream(of: JSONValue.self, bufferingPolicy: .unbounded)
        let state = ClientState(events: continuation)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: maximumLineLength))
                        try channel.pipeline.syncOperations.addHandler(ClientHandler(state: state))
                    }
                }
                .connect(unixDomainSocketPath: path).get()
        } catch let error as IOError {
            // The system's words ("No such file or directory"), not NIO's function signature.
            throw MotionClientError.cannotConnect(path: path, reason: String(cString: strerror(error.errnoCode)))
        } catch let error as SocketAddressError {
            if case .unixDomainSocketPathTooLong = error {
                throw MotionClientError.cannotConnect(path: path, reason: "the path is \(path.utf8.count) bytes; a Unix socket's path is at most 107")
            }
            throw MotionClientError.cannotConnect(path: path, reason: "\(error)")
        }
        return MotionClient(channel: channel, state: state, events: events)
    }

    /// Calls `method` and returns its `result`, or throws `MotionClientError.server` with the error code.
    /// `key`: an idempotency key (docs/protocol.md#idempotency-keys): a retry with the same key is
    /// answered with the first result and not applied twice.
    public func call(_ method: String, _ params: JSONValue = [:], key: String? = nil) async throws -> JSONValue {
        let id = state.nextID()
        var request: JSONValue = ["id": .number(Double(id)), "method": .string(method), "params": params]
        if let key { request["key"] = .string(key) }
        let line = WireMessage.line(request)
        return try await withCheckedThrowingContinuation { continuation in
            guard state.register(id, continuation) else {
                continuation.resume(throwing: MotionClientError.connectionClosed)
                return
            }
            // A write that fails is a connection gone (NIO's "closed channel" or EPIPE): said as one, so a
            // keyed call is sent again (`ReconnectingClient`) instead of failing on an I/O error's type.
            send(line).whenFailure { [state] _ in state.fail(id, MotionClientError.connectionClosed) }
        }
    }

    /// `hello` with protocol 1; returns the server's description.
    @discardableResult
    public func hello(client name: String = "MotionClient") async throws -> JSONValue {
        try await call("hello", ["protocol": 1, "client": .string(name)])
    }

    /// Writes raw bytes (a line must end in "\n"): for tools and tests that speak the protocol themselves.
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await send(bytes).get()
    }

    public func close() async {
        try? await channel.close()
    }

    private func send(_ bytes: [UInt8]) -> EventLoopFuture<Void> {
        var buffer = channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return channel.writeAndFlush(buffer)
    }
}

public enum MotionClientError: Error, Equatable, CustomStringConvertible {
    /// The server answered with an error.
    case server(code: String, message: String)
    case connectionClosed
    case malformedReply(String)
    /// The socket could not be reached; `reason` is the system's.
    case cannotConnect(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotConnect(let path, let reason): return "cannot connect to motiond at \(path): \(reason)"
        case .server(let code, let message): return "\(code): \(message)"
        case .connectionClosed: return "connection closed by the server"
        case .malformedReply(let text): return "malformed reply: \(text)"
        }
    }

    public var code: String? {
        if case .server(let code, _) = self { return code }
        return nil
    }
}

/// Pending calls by id, and the event stream's continuation.
final class ClientState: Sendable {
    private struct Pending {
        var nextID = 1
        var calls: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var isClosed = false
    }

    private let pending = Mutex(Pending())
    let events: AsyncStream<JSONValue>.Continuation

    init(events: AsyncStream<JSONValue>.Continuation) {
        self.events = events
    }

    func nextID() -> Int {
        pending.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    func register(_ id: Int, _ continuation: CheckedContinuation<JSONValue, any Error>) -> Bool {
        pending.withLock { state in
            guard !state.isClosed else { return false }
            state.calls[id] = continuation
            return true
        }
    }

    func fail(_ id: Int, _ error: any Error) {
        pending.withLock { $0.calls.removeValue(forKey: id) }?.resume(throwing: error)
    }

    /// Routes one server line: a reply resumes its call; anything else is an event.
    func receive(_ message: JSONValue) {
        if let id = message["id"]?.intValue,
            let call = pending.withLock({ $0.calls.removeValue(forKey: id) })
        {
            if let result = message["result"] {
                call.resume(returning: result)
            } else if let error = message["error"] {
                call.resume(throwing: MotionClientError.server(
                    code: error["code"]?.stringValue ?? "", message: error["message"]?.stringValue ?? ""))
            } else {
                call.resume(throwing: MotionClientError.malformedReply(JSONWriter.string(message)))
            }
            return
        }
        events.yield(message)
    }

    func closed() {
        let calls = pending.withLock { state in
            state.isClosed = true
            defer { state.calls = [:] }
            return Array(state.calls.values)
        }
        for call in calls { call.resume(throwing: MotionClientError.connectionClosed) }
        events.finish()
    }
}

final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let state: ClientState

    init(state: ClientState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        guard line.readableBytes > 0 else { return }
        if let message = try? JSONValue.parse(line.readableBytesView) {
            state.receive(message)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.closed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
