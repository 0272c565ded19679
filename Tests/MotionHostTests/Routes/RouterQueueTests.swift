import Logging
@testable import MotionEngine
import MotionWire
import Testing

/// `navigator_transition_builder.json`'s queue and sync scenarios, on an in-process engine context: no
/// socket, no dlopen, the clock advanced by hand. Screens animate with the fake `Frames` plan (n ticks).
@Suite("Router queue and sync")
struct RouterQueueTests {
    let context: EngineContext
    let output = RecordingOutput()
    var nextID = 0

    init() throws {
        let harness = try EngineHarness()
        context = EngineContext(engine: harness.engine, settings: EngineSettings(),
                                logger: Logger(label: "test"))
        context.openSession(1, output: output)
        let frames: JSONValue = ["type": "Frames", "frames": 3]
        try call("hello", ["protocol": 1])
        try call("subscribe", ["streams": ["routes"]])
        try call("router.configure", ["scheme": "demo", "routes": [
            "red": ["kind": "stack", "transition": frames], "green": ["kind": "stack", "transition": frames],
            "blue": ["kind": "stack", "transition": frames], "menu": ["kind": "overlay", "transition": frames],
        ]])
    }

    /// Sends a request; returns its id.
    @discardableResult
    mutating func send(_ method: String, _ params: JSONValue) -> Int {
        nextID += 1
        context.handle(.success(Request(id: .number(Double(nextID)), method: method, params: Params(params.objectValue ?? [:]))), from: 1)
        return nextID
    }

    mutating func call(_ method: String, _ params: JSONValue) throws {
        let id = send(method, params)
        #expect(reply(id)?["error"] == nil, "\(method): \(String(describing: reply(id)))")
    }

    func reply(_ id: Int) -> JSONValue? { output.lines.last { $0["id"] == .number(Double(id)) } }
    func ticks(_ count: Int) { for _ in 0..<count { context.tick(dt: 1.0 / 120) } }
    var url: JSONValue? { context.routers.all["0/demo"].map { .string($0.url) } }
    var routeEvents: [String] {
        output.lines.compactMap { line in
            guard let name = line["event"]?.stringValue else { return nil }
            return name == "route.update" ? "update \(line["update"]?["op"]?.stringValue ?? "") \(line["update"]?["key"]?.stringValue ?? "")" : name
        }
    }

    /// Every scenario in the reference file and the test here that reproduces it.
    static let coveredScenarios: [String: String] = [
        "start() while idle and router ready": "startWhileIdleRunsAtOnceAndCompletesAfterItsUpdates",
        "start() while another transition is running": "startDuringATransitionFailsAndChangesNothing",
        "enqueue() while another transition is running": "enqueueIsFIFOAndBuiltFromTheURLWhenDequeued",
        "first start() before the key window has a rootViewController": "startWhileIdleRunsAtOnceAndCompletesAfterItsUpdates",
        "user pops with the nav bar back button (not transitioning) leaving n view controllers < component count": "recordedChangesSyncTheURLWithoutPerforming",
        "NAVAnimation visibility changed outside the router": "recordedChangesSyncTheURLWithoutPerforming",
        "forceUrl(url)": "recordedChangesSyncTheURLWithoutPerforming",
        "reset()": "recordedChangesSyncTheURLWithoutPerforming",
    ]

    @Test func everyQueueScenarioIsCovered() throws {
        let scenarios = try Conformance.load("navigator_transition_builder.json")["queue_semantics"]?.arrayValue ?? []
        #expect(scenarios.count == 8)
        for scenario in scenarios {
            let name = scenario["scenario"]?.stringValue ?? ""
            #expect(Self.coveredScenarios[name] != nil, "no test for \(name)")
        }
    }

    @Test mutating func startWhileIdleRunsAtOnceAndCompletesAfterItsUpdates() throws {
        // Also "first start() before the key window has a rootViewController": a daemon has no window,
        // so a first transition is never held back.
        let id = send("route.go", ["scheme": "demo", "to": "demo://red/green"])
        #expect(routeEvents == ["route.transition.start"], "started at once")
        #expect(reply(id) == nil, "answered when the transition ends")
        ticks(3)
        #expect(routeEvents == ["route.transition.start", "update replace red"])
        ticks(3)
        #expect(reply(id)?["result"]?["url"] == "demo://red/green")
        #expect(routeEvents.suffix(2) == ["update push green", "route.transition.end"])
    }

    @Test mutating func startDuringATransitionFailsAndChangesNothing() throws {
        let first = send("route.go", ["scheme": "demo", "to": "red"])
        let second = send("route.go", ["scheme": "demo", "to": "demo://blue"])
        #expect(reply(second)?["error"]?["code"] == "router.busy")
        ticks(10)
        #expect(reply(first)?["result"]?["url"] == "demo://red")
        #expect(url == "demo://red", "the refused transition left no trace")
        #expect(routeEvents.filter { $0 == "route.transition.start" }.count == 1)
    }

    @Test mutating func enqueueIsFIFOAndBuiltFromTheURLWhenDequeued() throws {
        send("route.go", ["scheme": "demo", "to": "red/green"])
        let second = send("route.go", ["scheme": "demo", "to": "..!blue", "mode": "enqueue"])
        let third = send("route.go", ["scheme": "demo", "to": "?menu=v", "mode": "enqueue"])
        #expect(reply(second) == nil && reply(third) == nil)
        ticks(30)
        #expect(reply(second)?["result"]?["url"] == "demo://red!blue", "resolved against red/green, not the empty start")
        #expect(reply(third)?["result"]?["url"] == "demo://red!blue?menu=v")
        #expect(routeEvents.filter { $0.hasPrefix("route.transition") } == Array(repeating: ["route.transition.start", "route.transition.end"], count: 3).flatMap { $0 })
    }

    @Test mutating func recordedChangesSyncTheURLWithoutPerforming() throws {
        try call("route.go", ["scheme": "demo", "to": "red/green/blue", "animated": false])
        #expect(url == "demo://red/green/blue")
        let before = output.lines.count
        // The user popped with the back button, leaving one screen fewer: recorded, nothing performed.
        try call("route.go", ["scheme": "demo", "to": "..", "perform": false])
        #expect(url == "demo://red/green")
        // An overlay became visible outside the router.
        try call("route.go", ["scheme": "demo", "to": "?menu=1", "perform": false])
        #expect(url == "demo://red/green?menu=v")
        // forceUrl, then reset (routes kept).
        try call("route.go", ["scheme": "demo", "to": "demo://blue", "perform": false])
        #expect(url == "demo://blue")
        // Issue #20: the screens still end with the values an animated arrival leaves (their plans run at once).
        #expect(context.engine.performerCount > 0)
        try call("route.go", ["scheme": "demo", "to": "demo://", "perform": false])
        #expect(url == "demo://")
        #expect(context.routers.all["0/demo"]?.configuration.routes.count == 4)
        let events = output.lines[before...].compactMap { $0["event"]?.stringValue }
        #expect(!events.contains("route.update"), "no update was announced")
        // Issue #20: the targets of screens that left the URL end: none is left at the root.
        #expect(context.engine.performerCount == 0)
    }

    @Test mutating func unanimatedAndSameStateComplete() throws {
        let id = send("route.go", ["scheme": "demo", "to": "red", "animated": false])
        #expect(reply(id)?["result"]?["url"] == "demo://red", "no tick needed")
        let same = send("route.go", ["scheme": "demo", "to": "demo://red"])
        #expect(reply(same)?["result"]?["changed"] == false)
    }
}
