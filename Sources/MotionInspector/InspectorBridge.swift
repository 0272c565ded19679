import Foundation
import HummingbirdWebSocket
import MotionClient
import MotionDialects
import MotionWire

/// One WebSocket of the page: a client connection of its own to motiond, as the user who runs the
/// inspector. The page sends `{"id", "method", "params"}` and gets `{"id", "result"}` or `{"id", "error"}`;
/// everything else motiond sends (frames, trace) is passed on as it is. `inspector.export` is answered
/// here: a token in CSS, niri or Hyprland terms (docs/themes.md#dialects).
struct InspectorBridge {
    let socket: String

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let client: MotionClient
        do {
            client = try await MotionClient.connect(path: socket)
            try await client.hello(client: "motionctl inspect")
        } catch {
            try await outbound.write(.text(JSONWriter.string(["event": "error", "error": ["code": "inspector.unreachable", "message": .string("\(error)")]])))
            return
        }
        defer { Task { await client.close() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in client.events {
                    try await outbound.write(.text(JSONWriter.string(event)))
                }
            }
            group.addTask {
                try await withThrowingTaskGroup(of: Void.self) { calls in
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message, let request = try? JSONValue.parse(Array(text.utf8)),
                              let method = request["method"]?.stringValue else { continue }
                        let id = request["id"] ?? .null, params = request["params"] ?? [:]
                        calls.addTask {
                            let reply: JSONValue
                            do {
                                let result = method == "inspector.export" ? Self.export(params) : try await client.call(method, params)
                                reply = ["id": id, "result": result]
                            } catch MotionClientError.server(let code, let message) {
                                reply = ["id": id, "error": ["code": .string(code), "message": .string(message)]]
                            } catch {
                                reply = ["id": id, "error": ["code": "inspector.connection", "message": .string("\(error)")]]
                            }
                            try await outbound.write(.text(JSONWriter.string(reply)))
                        }
                    }
                }
            }
            // Either side ending ends both: the page closed, or motiond went away.
            try await group.next()
            group.cancelAll()
        }
    }

    /// `{to: "css"|"niri"|"hyprland", tokens: {springs?, timings?, …}}` → `{text, unsaid}`.
    static func export(_ params: JSONValue) -> JSONValue {
        let tokens = params["tokens"] ?? [:]
        let result = ThemeExport.export(tokens, to: params["to"]?.stringValue ?? "css") ?? ThemeExport.export(tokens, to: "css")!
        return ["text": .string(result.output), "unsaid": .array(result.unsaid.map { .string($0) })]
    }
}
