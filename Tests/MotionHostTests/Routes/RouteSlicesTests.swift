@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/routes.md#performing: a `route.go` whose transition starts many screens' plans (256 components
/// pushed at once, or popped in one update) adds them in slices, each waiting its turn in the owner's lane
/// (the clock ticking between them), and ends as the same transition done at once would.
@Suite("route.go in slices")
struct RouteSlicesTests {
    let requester = RecordingOutput()
    let context: EngineContext
    let pump = SlicedWorkTests.Pump()

    init() throws {
        context = try Self.configured(on: requester)
        pump.install(on: context)
    }

    /// A context with the router `deep`: each screen's push and pop a Group of three plans, as a card might
    /// have (the pop's 255 screens are 765 plans: more than one slice on any machine).
    static func configured(on output: RecordingOutput) throws -> EngineContext {
        let context = try TestContext.greeted(on: output, plugins: ["SpringPlugin", "TweenPlugin"])
        let push: JSONValue = ["type": "Group", "plans": [
            ["type": "Spring", "property": "offset", "from": [400], "to": [0]],
            ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2],
            ["type": "Spring", "property": "scale", "from": [0.9], "to": [1]],
        ]]
        let pop: JSONValue = ["type": "Group", "plans": [
            ["type": "Tween", "property": "offset", "to": [400], "duration": 0.2],
            ["type": "Tween", "property": "opacity", "to": [0], "duration": 0.2],
            ["type": "Spring", "property": "scale", "to": [0.9]],
        ]]
        let configured = TestContext.call(context, "router.configure", ["scheme": "deep", "routes": ["s": ["kind": "stack", "transition": ["push": push, "pop": pop]]]],
                                      on: output)
        #expect(configured["routes"] == 1, "\(configured)")
        return context
    }

    func send(_ session: UInt64, _ id: Int, _ method: String, _ params: JSONValue) {
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: session)
    }

    /// Answers to requests after the set-up's (ids from 10).
    func replies(_ output: RecordingOutput) -> [JSONValue] {
        output.lines.filter { ($0["id"]?.doubleValue ?? 0) >= 10 }
    }

    static let deepest = (0..<RouteScannerLimit.components).map { _ in "s" }.joined(separator: "/")
    var screens: Int { context.engine.runtimes["0/" + Router.runtimePrefix + "deep"]?.targetOrder.filter { !$0.performers.isEmpty }.count ?? 0 }

    /// Unanimated (animated, each update waits for the screens of the one before: no long stretch).
    @Test func twoHundredFiftySixScreensArePushedInSlices() throws {
        send(1, 10, "route.go", ["scheme": "deep", "to": .string(Self.deepest), "animated": false])
        #expect(replies(requester).count == 0, "not answered in its first slice")
        let first = screens
        #expect(first > 0 && first < 256, "some screens took their plans in the first slice: \(first)")
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

    /// Sliced, it ends as the same transition done at once (no host lanes: one go): the same screens, with
    /// the same values, the same updates and no errors.
    @Test func itEndsAsTheSameTransitionDoneAtOnce() throws {
        send(1, 5, "subscribe", ["streams": ["routes"]])
        send(1, 10, "route.go", ["scheme": "deep", "to": .string(Self.deepest), "animated": false])
        for _ in 0..<2_000 where replies(requester).isEmpty { _ = pump.run(on: context); context.tick(dt: 1.0 / 120) }
        let atOnceOutput = RecordingOutput()
        let atOnce = try Self.configured(on: atOnceOutput)
        let answer = TestContext.call(atOnce, "route.go", ["scheme": "deep", "to": .string(Self.deepest), "animated": false], on: atOnceOutput)
        #expect(answer["url"]?.stringValue == "deep://" + Self.deepest)
        // Its frames, as the sliced one had between its slices: the instant plans' values are written.
        for _ in 0..<3 { atOnce.tick(dt: 1.0 / 120) }
        context.tick(dt: 1.0 / 120)
        let sliced = try #require(replies(requester).last?["result"])
        #expect(sliced["updates"] == answer["updates"])
        let runtime = "0/" + Router.runtimePrefix + "deep"
        let screens = try #require(context.engine.runtimes[runtime]?.targetOrder.map(\.name))
        #expect(screens.count == 256 && screens == atOnce.engine.runtimes[runtime]?.targetOrder.map(\.name))
        for screen in screens {
            for property in ["offset", "opacity", "scale"] {
                #expect(context.engine.value(of: property, target: screen, runtime: runtime)
                        == atOnce.engine.value(of: property, target: screen, runtime: runtime), "\(screen).\(property)")
            }
        }
        let updates = requester.lines.filter { $0["event"] == "route.update" }
        #expect(updates.count == 256 && updates.allSatisfy { $0["errors"] == nil }, "\(updates.count) updates; \(updates.first { $0["errors"] != nil } ?? .null)")
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
