import MotionWire
import Synchronization

/// A `MotionClient` that survives daemon restarts (docs/clients.md): when motiond goes away it connects again
/// with backoff (0.1 s doubling to 2 s), says hello, makes every subscription again (they keep their ids)
/// and yields `{"event":"reconnected"}` on `events`, so the application re-adds what lived only in the old
/// daemon. A call on a lost connection throws `connectionClosed` and is never replayed, unless it carries
/// an idempotency key (`call(_:_:key:timeout:)`): that one is sent again until it is answered.
///
/// ```swift
/// let client = try await ReconnectingClient.connect(path: socket)
/// _ = try await client.subscribe(["streams": ["frames"]])
/// for await event in client.events { … }
/// ```
public final class ReconnectingClient: Sendable {
    public let path: String
    public let name: String
    /// Events of every connection in turn, with `{"event":"reconnected"}` between two.
    public let events: AsyncStream<JSONValue>
    private let continuation: AsyncStream<JSONValue>.Continuation
    /// Subscriptions by id − 1 (nil: unsubscribed since, made again as `placeholder` and unsubscribed at
    /// once, so that the others keep their ids: the daemon numbers a connection's subscriptions from 1).
    private let state = Mutex<(current: MotionClient?, subscriptions: [JSONValue?], closed: Bool)>((nil, [], false))
    private static let placeholder: JSONValue = ["streams": ["trace"], "targets": ["\u{2400}MotionClient.unsubscribed"]]
    private let pump = Mutex<Task<Void, Never>?>(nil)

    private init(path: String, name: String) {
        self.path = path
        self.name = name
        (events, continuation) = AsyncStream.makeStream(of: JSONValue.self, bufferingPolicy: .unbounded)
    }

    /// Connects and says hello; the first connection's failure is thrown.
    public static func connect(path: String, client name: String = "MotionClient") async throws -> ReconnectingClient {
        let client = ReconnectingClient(path: path, name: name)
        let first = try await MotionClient.connect(path: path)
        try await first.hello(client: name)
        client.state.withLock { $0.current = first }
        client.pump.withLock { $0 = Task { await client.forward(from: first) } }
        return client
    }

    /// A request on the current connection. A subscription made here is made again after a reconnect,
    /// until it is unsubscribed.
    public func call(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        guard let current = state.withLock({ $0.current }) else { throw MotionClientError.connectionClosed }
        let result = try await current.call(method, params)
        state.withLock { state in
            if method == "subscribe", let sub = result["sub"]?.intValue, sub >= 1 {
                while state.subscriptions.count < sub { state.subscriptions.append(nil) }
                state.subscriptions[sub - 1] = params
            } else if method == "unsubscribe", let sub = params["sub"]?.intValue, sub >= 1, sub <= state.subscriptions.count {
                state.subscriptions[sub - 1] = nil
            }
        }
        return result
    }

    /// A change that must take effect once: sent with the idempotency `key`, and sent again with it
    /// whenever its answer is lost (the connection closed first, or motiond answered that it is
    /// stopping), once connected again, for up to `timeout` seconds. The daemon answers a repeat with
    /// the first result (`"replayed": true` when that came from its journal after a restart) and does
    /// not apply it twice (docs/protocol.md#idempotency-keys).
    public func call(_ method: String, _ params: JSONValue = [:], key: String, timeout: Double = 30) async throws -> JSONValue {
        let deadline = ContinuousClock.now + .seconds(timeout)
        // Waits between tries grow to a second: a thousand calls that lost their answers at a stop polled
        // every 50 ms, and kept the process's threads from the reconnect they waited for.
        var pause = 0.05
        while true {
            let (current, closed) = state.withLock { ($0.current, $0.closed) }
            if closed { throw MotionClientError.connectionClosed }
            if let current {
                do {
                    return try await current.call(method, params, key: key)
                } catch MotionClientError.connectionClosed {
                } catch MotionClientError.server(let code, _) where code == "server.shutting_down" || code == "request.pending" {
                }
            }
            guard ContinuousClock.now < deadline else { throw MotionClientError.connectionClosed }
            try await Task.sleep(for: .seconds(pause))
            pause = min(pause * 2, 1)
        }
    }

    /// `subscribe`, remembered so that it is made again after a reconnect.
    public func subscribe(_ params: JSONValue) async throws -> JSONValue {
        try await call("subscribe", params)
    }

    public func close() async {
        let current = state.withLock { state -> MotionClient? in
            state.closed = true
            defer { state.current = nil }
            return state.current
        }
        pump.withLock { $0?.cancel() }
        await current?.close()
        continuation.finish()
    }

    /// Passes one connection's events on; when it ends, connects again.
    private func forward(from client: MotionClient) async {
        var client = client
        while true {
            for await event in client.events { continuation.yield(event) }
            state.withLock { $0.current = nil }
            guard let next = await reconnect() else { return }
            client = next
            continuation.yield(["event": "reconnected"])
        }
    }

    private func reconnect() async -> MotionClient? {
        var delay = 0.1
        while !Task.isCancelled && !state.withLock({ $0.closed }) {
            try? await Task.sleep(for: .seconds(delay))
            delay = min(delay * 2, 2)
            guard let client = try? await MotionClient.connect(path: path) else { continue }
            do {
                try await client.hello(client: name)
                for (index, params) in state.withLock({ $0.subscriptions }).enumerated() {
                    var made: JSONValue?
                    if let params {
                        do {
                            made = try await client.call("subscribe", params)
                        } catch MotionClientError.server {
                            // The new daemon refused it (a limit, a key it does not take): not made
                            // again; a placeholder takes its id so that the others keep theirs.
                            state.withLock { if index < $0.subscriptions.count { $0.subscriptions[index] = nil } }
                        }
                    }
                    if made == nil {
                        let placeholder = try await client.call("subscribe", Self.placeholder)
                        _ = try await client.call("unsubscribe", ["sub": placeholder["sub"] ?? .null])
                    }
                }
            } catch {
                await client.close()
                continue
            }
            let kept = state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.current = client
                return true
            }
            if kept { return client }
            await client.close()
            return nil
        }
        return nil
    }
}
