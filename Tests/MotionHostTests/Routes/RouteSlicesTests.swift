@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/routes.md#performing: a `route.go` whose transition starts many screens' plans (256 components
/// pushed at once, or popped in one update) adds them in slices, the clock ticking and other clients
/// answered between them, and ends as the same transition done at once would.
@Suite("route.go in slices")
struct RouteSlicesTests {
    let requester = RecordingOutput(), other = RecordingOutput()
    let context: EngineContext
    let pump = SlicedWorkTests.Pump()

    init() throws {
        context = try .greeted(on: requester, plugins: ["SpringPlugin", "TweenPlugin"])
        pump.install(on: context)
        context.openSession(2, output: other)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 2)
        // Each screen's push and pop: a spring and a tween on three properties (a Group), as a card might have.
        let push: JSONValue = ["type": "Group", "plans": [
            ["type": "Spring", "property": "offset", "from": [400], "to": [0]],
            ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2],
            ["type": "Spring", "property": "scale", "from": [0.9], "to": [1]],
        ]]
        let pop: JSONValue = ["type": "Tween", "property": "offset", "to": [400], "duration": 0.2]
        send(1, 1, "router.configure", ["scheme": "deep", "routes": ["s": ["kind": "stack", "transition": ["push": push, "pop": pop]]]])
        _ = pump.run(on: context)
        #expect(replies(requester).last?["error"] == nil, "\(replies(requester).last ?? .null)")
    }

    func send(_ session: UInt64, _ id: Int, _ method: String, _ params: JSONValue) {
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: session)
    }

    /// Answers to requests after the set-up's (ids from 10).
    func replies(_ output: RecordingOutput) -> [JSONValue] {
        output.lines.filter { ($0["id"]?.doubleValue ?? 0) >= 10 || (output === other && $0["id"] != nil && $0["id"] != 0) }
    }

    static let deepest = (0..<RouteScannerLimit.components).map { _ in "s" }.joined(separator: "/")
    var screens: Int { context.engine.runtimes["0/" + Router.runtimePrefix + "deep"]?.targetOrder.filter { !$0.performers.isEmpty }.count ?? 0 }

    /// Unanimated (animated, each update waits for the screens of the one before: no long stretch).
    @Test func twoHundredFiftySixScreensArePushedInSlicesWhileOthersAreAnswered() throws {
        send(1, 10, "route.go", ["scheme": "deep", "to": .string(Self.deepest), "animated": false])
        #expect(replies(requester).count == 0, "not answered in its first slice")
        let first = screens
        #expect(first > 0 && first < 256, "some screens took their plans in the first slice: \(first)")
        send(2, 1, "status", [:])
        #expect(replies(other).last?["id"] == 1, "another client is answered meanwhile")
        var slices = 0
        for _ in 0..<2_000 where replies(requester).isEmpty {
            slices += pump.run(on: context)
            context.tick(dt: 1.0 / 120)
        }
        #expect(slices >= 2, "\(slices) slices")
        let answer = replies(requester).last
        #expect(answer?["result"]?["url"]?.stringValue == "deep://" + Self.deepest, "\(answer ?? .null)")
        #expect(answer?["result"]?["updates"]?.arrayValue?.count == 256)
        #expect(context.routers.all["0/deep"]?.url == "deep://" + Self.deepest)
    }

    @Test func popping255ScreensInOneUpdateIsSlicedToo() throws {
        send(1, 10, "route.go", ["scheme": "deep", "to": .string(Self.deepest), "animated": false])
        for _ in 0..<2_000 where replies(requester).isEmpty { _ = pump.run(on: context); context.tick(dt: 1.0 / 120) }
        #expect(replies(requester).first?["result"]?["url"]?.stringValue == "deep://" + Self.deepest)
        send(1, 11, "route.go", ["scheme": "deep", "to": "deep://s", "animated": false])
        #expect(replies(requester).count == 1, "not answered in its first slice: \(replies(requester).last ?? .null)")
        #expect(context.routers.all["0/deep"]?.running != nil, "still under way after its first slice")
        var slices = 0
        for _ in 0..<2_000 where replies(requester).count == 1 {
            slices += pump.run(on: context)
            context.tick(dt: 1.0 / 120)
        }
        #expect(slices >= 2, "\(slices) slices")
        #expect(replies(requester).last?["result"]?["url"] == "deep://s", "\(replies(requester).last ?? .null)")
    }
}

/// The grammar's bound on a path's components (docs/routes.md).
enum RouteScannerLimit {
    static let components = 256
}
