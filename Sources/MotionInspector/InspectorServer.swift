import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import HummingbirdWebSocket
import MotionWire
import NIOCore

/// `motionctl inspect` (docs/inspector.md): a web app on loopback for the user who runs it. Every HTTP
/// and WebSocket request must carry the random `token` (403 without it); the page, its script and styles
/// are compiled in; each WebSocket is a client connection of its own to motiond (`InspectorBridge`), so
/// the page sees exactly what this uid may see.
public struct InspectorServer: Sendable {
    public let socket: String
    public let host: String
    public let port: Int
    public let token: String

    /// Loopback only: anything else is refused before a socket is bound.
    public init(socket: String, listen: String = "127.0.0.1:0", token: String = InspectorServer.randomToken()) throws {
        let (host, port) = try Self.parse(listen: listen)
        self.socket = socket
        self.host = host
        self.port = port
        self.token = token
    }

    public struct RefusedAddress: Error, CustomStringConvertible {
        public let description: String
    }

    static func parse(listen: String) throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            throw RefusedAddress(description: "--listen: expected 127.0.0.1:PORT (or [::1]:PORT), found \(listen)")
        }
        let host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard host == "127.0.0.1" || host == "::1" || host == "localhost" else {
            throw RefusedAddress(description: "--listen: \(host) is not loopback; the inspector listens on 127.0.0.1 or ::1 only")
        }
        return (host == "localhost" ? "127.0.0.1" : host, port)
    }

    /// 32 hex digits from the system's generator.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }

    /// Serves until the task is cancelled; `onListening` gets the page's address with its token.
    public func run(onListening: @escaping @Sendable (String) async -> Void) async throws {
        let token = self.token, socket = self.socket, host = self.host
        let router = Router()
        router.add(middleware: TokenCheck(token: token))
        router.get("/") { _, _ in Self.response(InspectorPage.html(token: token), type: "text/html; charset=utf-8") }
        router.get("/app.js") { _, _ in Self.response(InspectorScript.text + InspectorSpringEditor.text + InspectorCurveEditor.text + InspectorNamedPlans.text, type: "text/javascript; charset=utf-8") }
        router.get("/style.css") { _, _ in Self.response(InspectorPage.style, type: "text/css; charset=utf-8") }

        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.add(middleware: TokenCheck(token: token))
        sockets.ws("/ws") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, _ in
            try await InspectorBridge(socket: socket).run(inbound: inbound, outbound: outbound)
        }
        var logger = Logger(label: "motionctl-inspect")
        logger.logLevel = .warning  // the address is printed by the caller; requests are not logged
        let app = Application(
            router: router,
            server: Self.gated(webSocketRouter: sockets, token: token),
            configuration: .init(address: .hostname(host, port: port), serverName: "motionctl-inspect"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? 0
                let shown = host.contains(":") ? "[\(host)]" : host
                await onListening("http://\(shown):\(bound)/?token=\(token)")
            },
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// HTTP with the WebSocket upgrade, behind `WebSocketTokenGate` (403 for an upgrade without the token).
    static func gated(webSocketRouter: Router<BasicWebSocketRequestContext>, token: String) -> HTTPServerBuilder {
        let responder = webSocketRouter.buildResponder()
        return HTTPServerBuilder { http in
            TokenGatedChannel(inner: HTTP1WebSocketUpgradeChannel(responder: http, webSocketResponder: responder,
                                                                  configuration: .init(ws: .init(maxFrameSize: 1 << 22))),
                              token: token)
        }
    }

    static func response(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Every request carries the token (`?token=`), or is answered 403 and goes no further.
struct TokenCheck<Context: RequestContext>: RouterMiddleware {
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let given = request.uri.queryParameters.get("token"), Self.same(given, token) else {
            return Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "403: the inspector's address carries its token (motionctl inspect prints it)\n")))
        }
        return try await next(request, context)
    }

    /// Compared in time independent of where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
