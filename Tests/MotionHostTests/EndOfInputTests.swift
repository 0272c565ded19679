import Logging
@testable import MotionEngine
import MotionWire
import Testing

/// A client that shut down its sending side is closed once nothing more is owed to it: every reply
/// sent (including one that waits for a transition), and no subscription asking for events. In-process:
/// no socket, the clock advanced by hand.
@Suite("End of a client's input")
struct EndOfInputTests {
    let context: EngineContext
    let output = RecordingOutput()

    init() throws {
        context = try TestContext.greeted(on: output)
    }

    func send(_ id: Int, _ method: String, _ params: JSONValue = [:]) {
        context.handle(.success(Request(id: .number(Double(id)), method: method, params: Params(params.objectValue ?? [:]))), from: 1)
    }

    @Test func aClientWithNothingOwedIsClosedAtOnce() {
        send(2, "status")
        #expect(!output.isClosed)
        context.endOfInput(from: 1)
        #expect(output.isClosed)
    }

    @Test func aRouteStillMovingKeepsTheConnectionUntilItsReply() {
        send(2, "router.configure", ["scheme": "demo", "routes": ["red": ["kind": "stack", "transition": ["type": "Frames", "frames": 3]]]])
        send(3, "route.go", ["scheme": "demo", "to": "demo://red"])
        context.endOfInput(from: 1)
        #expect(!output.isClosed, "route.go is answered when its transition ends")
        for _ in 0..<20 where !output.isClosed { context.tick(dt: 1.0 / 120) }
        #expect(output.lines.contains { $0["id"] == 3 && $0["result"]?["url"] == "demo://red" })
        #expect(output.isClosed)
    }

    @Test func aFailedRouteOwesNothing() {
        send(2, "router.configure", ["scheme": "demo", "routes": ["red": ["kind": "stack"]]])
        send(3, "route.go", ["scheme": "demo", "to": "demo://blue"])
        #expect(output.lines.last?["error"]?["code"] == "router.no_route")
        context.endOfInput(from: 1)
        #expect(output.isClosed)
    }

    @Test func aSubscriberStaysConnected() {
        send(2, "subscribe", ["streams": ["trace"]])
        context.endOfInput(from: 1)
        #expect(!output.isClosed, "its events flow until the client goes")
    }
}
