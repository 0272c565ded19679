import Foundation
import MotionClient
import MotionWire
import Testing

/// Issue #2's acceptance check, exactly as a new user would do it, against the real daemon and socket.
@Suite("Acceptance: a spring over the socket")
struct AcceptanceTests {
    @Test func aSpringSentOverTheSocketStreamsFramesToItsTarget() async throws {
        let daemon = try await DaemonProcess()
        let client = try await MotionClient.connect(path: daemon.socket)
        let hello = try await client.hello()
        #expect(hello["planTypes"]?.arrayValue?.contains("Spring") == true)
        #expect(hello["protocol"] == 1)

        let events = EventCollector(client)
        let subscription = try await client.call("subscribe", ["streams": ["frames", "trace"]])
        #expect(subscription["sub"] == 1)
        _ = try await client.call("plan.add", [
            "target": "card", "plan": ["type": "Spring", "property": "position", "to": [100, 200]],
        ])
        let seen = try await events.waitFor(isTrace("runtime.idle"))

        let frames = seen.filter { $0["event"] == "frame" }
        #expect(frames.count > 10)
        let allUpdates: [JSONValue] = frames.flatMap { (frame: JSONValue) -> [JSONValue] in frame["updates"]?.arrayValue ?? [] }
        let updates = allUpdates.filter { (update: JSONValue) -> Bool in
            update["target"]?.stringValue == "card" && update["property"]?.stringValue == "position"
        }
        let lastValue: [JSONValue] = updates.last?["value"]?.arrayValue ?? []
        let last: [Double] = lastValue.compactMap { (component: JSONValue) -> Double? in component.doubleValue }
        #expect(last.count == 2)
        #expect(abs(last[0] - 100) <= 0.1 && abs(last[1] - 200) <= 0.1)

        let kinds = seen.filter { $0["event"] == "trace" }.compactMap { $0["kind"]?.stringValue }
        let created = try #require(kinds.firstIndex(of: "performer.created"))
        let added = try #require(kinds.firstIndex(of: "plan.added"))
        let idle = try #require(kinds.firstIndex(of: "runtime.idle"))
        #expect(created < added && added < idle)

        try await client.sendRaw(Array("{\"id\": 9, \"method\": oops\n".utf8))
        let parseError = try await events.waitFor { $0["error"]?["code"] == "protocol.parse" }.last
        #expect(parseError?["id"] == .null)
        let status = try await client.call("status")
        #expect(status["version"]?.stringValue != nil)
        #expect(status["clients"] == 1)
        await client.close()
        #expect(await daemon.stop() == 0)
    }
}
