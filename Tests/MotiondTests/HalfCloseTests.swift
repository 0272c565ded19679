import Foundation
import MotionTestSupport
import MotionWire
import Testing

/// A client that sends its requests and then shuts down its sending side, as `socat` does at the end of
/// its input, is answered in full: the connection stays open for what is owed to it, then closes.
@Suite("Clients that finish sending")
struct HalfCloseTests {
    /// Connects, writes `text`, shuts down the sending side and reads until the daemon closes (or 15 s).
    private func exchange(_ text: String, socket path: String) async throws -> (lines: [JSONValue], closed: Bool) {
        try await onOwnThread { try Self.blockingExchange(text, socket: path) }
    }

    private static func blockingExchange(_ text: String, socket path: String) throws -> (lines: [JSONValue], closed: Bool) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        guard withUnixAddress(path, { connect(descriptor, $0, $1) }) == 0 else { throw Failure("cannot connect") }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        shutdown(descriptor, Int32(SHUT_WR))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        var closed = false
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { closed = true }
            if count <= 0 { break }
            received += chunk[..<count]
        }
        let lines = try received.split(separator: UInt8(ascii: "\n")).map { try JSONValue.parse(Array($0)) }
        return (lines, closed)
    }

    @Test func everyRequestIsAnsweredThenTheConnectionCloses() async throws {
        let daemon = try await DaemonProcess()
        // The last line has no "\n": the end of the input ends it.
        let text = #"{"id":1,"method":"hello","params":{"protocol":1,"client":"half"}}"# + "\n"
            + #"{"id":2,"method":"plan.add","params":{"target":"card","plan":{"type":"Spring","property":"x","to":[5]}}}"# + "\n"
            + #"{"id":3,"method":"plugins.reload"}"# + "\n"
            + #"{"id":4,"method":"sync"}"#
        let (lines, closed) = try await exchange(text, socket: daemon.socket)
        #expect(closed, "the daemon closes once every reply is sent")
        #expect(Set(lines.compactMap { $0["id"]?.intValue }) == [1, 2, 3, 4], "\(lines)")
        #expect(lines.allSatisfy { $0["error"] == nil }, "\(lines)")
        let observer = try await daemon.client()
        #expect(try await observer.call("status")["clients"] == 1, "the finished client is gone")
        await observer.close()
    }

    @Test func aSubscriberKeepsGettingEventsAfterItFinishesSending() async throws {
        let daemon = try await DaemonProcess()
        let text = #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n"
            + #"{"id":2,"method":"subscribe","params":{"streams":["frames","trace"],"targets":["card"]}}"# + "\n"
            + #"{"id":3,"method":"plan.add","params":{"target":"card","plan":{"type":"Tween","property":"x","to":[1],"duration":0.2}}}"# + "\n"
        let observer = try await daemon.client()
        let events = EventCollector(observer)
        _ = try await observer.call("subscribe", ["streams": ["trace"], "targets": ["card"]])
        let client = Task { try await self.exchange(text, socket: daemon.socket) }
        _ = try await events.waitFor(isTrace("runtime.idle"))
        // The subscriber is still connected after its input ended, and only goes when the daemon stops
        // (SIGTERM sends every client a final event, then closes).
        #expect(try await observer.call("status")["clients"] == 2)
        await observer.close()
        _ = await daemon.stop()
        let (lines, closed) = try await client.value
        #expect(closed)
        let frames = lines.filter { $0["event"] == "frame" }
        #expect(frames.last?["updates"]?.arrayValue?.first?["value"] == [1], "frames streamed to the end of the tween")
        #expect(lines.contains { $0["kind"] == "animation.ended" && $0["reason"] == "finished" })
        #expect(lines.last?["error"]?["code"] == "server.shutting_down")
    }
}
