import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionRoutes
import MotionWire
import Testing

/// The route transition as a state machine: actions out, time and the runtime's activity in. No engine,
/// no clock: time is a number the test passes.
@Suite("Route transition machine")
struct RouteTransitionMachineTests {
    static func state(_ url: String) throws -> RouteState { try RouteURL(parsing: url).state }

    static func machine(reply: @escaping Router.Reply = { _ in }) throws -> RouteTransition {
        let configuration = try RouterConfiguration([
            "routes": ["home": ["kind": "stack"], "detail": ["kind": "stack", "transition": ["type": "Tween", "property": "opacity", "to": [1]]]],
            "transitions": .null,
        ], planTypes: ["Tween"], vocabulary: .shipped)
        return RouteTransition(id: 1, scheme: "app", from: try state("app://home"), to: try state("app://home/detail"),
                               animated: true, configuration: configuration, reply: reply)
    }

    func name(_ action: RouteTransition.Action) -> String {
        switch action {
        case .save: "save"
        case .publish(let event, _): event
        case .addPlans(let phase): "add " + phase.map(\.target).joined(separator: ",")
        case .apply(let state): "apply " + state.url(scheme: "app")
        case .reply(.success): "reply ok"
        case .reply(.failure(let error)): "reply \(error.code.rawValue)"
        case .wait: "wait"
        case .finished: "finished"
        }
    }

    @Test func anUpdateWhoseRuntimeNeverIdlesCompletesAfterThirtySeconds() throws {
        let transition = try Self.machine()
        #expect(name(transition.next(now: 0, runtimeIsActive: false)) == "save")
        #expect(name(transition.next(now: 0, runtimeIsActive: false)) == "wait", "nothing happens before the save answers")
        transition.saved(.success(()))
        #expect(name(transition.next(now: 0, runtimeIsActive: false)) == "route.transition.start")
        #expect(name(transition.next(now: 0, runtimeIsActive: false)) == "add screen:home/detail")
        #expect(name(transition.next(now: 0, runtimeIsActive: true)) == "wait")
        #expect(transition.isWaitingForRuntime)
        #expect(name(transition.next(now: 29.9, runtimeIsActive: true)) == "wait")
        guard case .publish("route.update", let fields) = transition.next(now: 30.1, runtimeIsActive: true) else {
            Issue.record("no route.update after the timeout")
            return
        }
        #expect(fields["errors"] == ["timed out after 30 s; completed anyway"])
        #expect(fields["url"] == "app://home/detail")
        #expect(name(transition.next(now: 30.1, runtimeIsActive: true)) == "apply app://home/detail")
        #expect(name(transition.next(now: 30.1, runtimeIsActive: true)) == "route.transition.end")
        #expect(name(transition.next(now: 30.1, runtimeIsActive: true)) == "reply ok")
        #expect(name(transition.next(now: 30.1, runtimeIsActive: true)) == "finished")
    }

    @Test func anUpdateCompletesWhenItsRuntimeGoesIdle() throws {
        let transition = try Self.machine()
        _ = transition.next(now: 0, runtimeIsActive: false)
        transition.saved(.success(()))
        var names: [String] = []
        var now = 0.0
        while true {
            let action = transition.next(now: now, runtimeIsActive: now < 0.25)
            if case .finished = action { break }
            names.append(name(action))
            now += 0.1
        }
        #expect(names == ["route.transition.start", "add screen:home/detail", "wait", "route.update",
                          "apply app://home/detail", "route.transition.end", "reply ok"])
    }

    @Test func aFailedSaveEndsTheTransitionWithNoOtherEffect() throws {
        let transition = try Self.machine()
        _ = transition.next(now: 0, runtimeIsActive: false)
        transition.saved(.failure(EngineError(.stateWriteFailed, "disk full")))
        #expect(name(transition.next(now: 0, runtimeIsActive: false)) == "reply state.write_failed")
        #expect(name(transition.next(now: 0, runtimeIsActive: false)) == "finished")
    }

    struct FullDisk: RouterStorage {
        func save(owner: UInt32, scheme: String, configuration: JSONValue, url: String) throws(EngineError) {
            if url != "app://" { throw EngineError(.stateWriteFailed, "router \(scheme):// could not be saved: no space left") }
        }
        func remove(owner: UInt32, scheme: String) throws(EngineError) {}
        func loadAll() -> (routers: [SavedRouter], problems: [String]) { ([], []) }
    }

    @Test func routeGoWhoseSaveFailsLeavesTheRouterWhereItWas() throws {
        let harness = try EngineHarness()
        let context = EngineContext(engine: harness.engine, settings: EngineSettings(),
                                    logger: Logger(label: "test"))
        _ = context.routers.restore(from: FullDisk())
        let output = RecordingOutput()
        context.openSession(1, output: output)
        var id = 0
        func send(_ method: String, _ params: JSONValue) -> JSONValue? {
            id += 1
            context.handle(.success(Request(id: .number(Double(id)), method: method, params: Params(params.objectValue ?? [:]))), from: 1)
            return output.lines.last { $0["id"] == .number(Double(id)) }
        }
        _ = send("hello", ["protocol": 1])
        _ = send("subscribe", ["streams": ["routes"]])
        #expect(send("router.configure", ["scheme": "app", "routes": ["home": ["kind": "stack"]]])?["error"] == nil)
        let reply = send("route.go", ["scheme": "app", "to": "app://home"])
        #expect(reply?["error"]?["code"] == "state.write_failed", "\(String(describing: reply))")
        #expect(context.routers.all["0/app"]?.url == "app://")
        #expect(!output.lines.contains { $0["event"] == "route.transition.start" })
    }
}
