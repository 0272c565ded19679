import MotionEngine
import MotionWire

/// Issue #20's property, shared by the test suite and the route fuzzer: walk a router (push, pop,
/// present, dismiss, tabs, overlays, `..`, `^/`, enqueue) and compare each URL reached with a fresh
/// router sent straight there. After a completed transition the live screens' values must be the same.
package final class RouteWalk {
    /// docs/routes.md's example router, with short plans so a walk settles quickly.
    package static let routes: JSONValue = [
        "home": ["kind": "stack", "transition": ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.1]],
        "show": ["kind": "stack", "transition": [
            "push": ["type": "Spring", "property": "offset", "from": [400], "to": [0], "dampingRatio": 1, "response": 0.2],
            "pop": ["type": "Tween", "property": "offset", "to": [400], "duration": 0.1]]],
        "player": ["kind": "modal", "transition": ["type": "Tween", "property": "scale", "from": [0.5], "to": [1], "duration": 0.1]],
        "chapters": ["kind": "tab"],
        "menu": ["kind": "overlay", "transition": ["show": ["type": "Tween", "property": "opacity", "to": [1], "duration": 0.1],
                                                   "hide": ["type": "Tween", "property": "opacity", "to": [0], "duration": 0.1]]],
    ]
    package static let transitions: JSONValue = [["from": "show", "to": "player", "animation": "appearOverPrevious"]]
    package static let moves = ["show::1", "show::2", "!player", "..", "..", "#chapters", "^/home", "?menu=v", "?menu=0",
                               "../show::3", "^/home/show::2"]

    /// What a client draws for a property no plan has set.
    static let defaults: [String: [Double]] = ["opacity": [1], "scale": [1], "offset": [0], "zIndex": [0]]

    package let context: EngineContext
    private let output = Lines()
    private let session: UInt64
    private var id = 0
    private var fresh = 0
    /// The walk so far: each move and the URL it reached.
    package private(set) var walked: [String] = []

    /// `context` has Tween, Spring and Set plans; `session` is opened here.
    package init(context: EngineContext, session: UInt64 = 1) {
        self.context = context
        self.session = session
        context.openLocalSession(session, output: output)
        call("hello", ["protocol": 1])
        configure("walk")
        call("route.go", ["scheme": "walk", "to": "walk://home"])
        settle()
    }

    @discardableResult
    package func call(_ method: String, _ params: JSONValue) -> JSONValue {
        id += 1
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: session)
        let reply = output.reply(to: id)
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    package func configure(_ scheme: String) {
        call("router.configure", ["scheme": .string(scheme), "routes": Self.routes, "transitions": Self.transitions])
    }

    /// Ticks until every router's runtime has rested for a while (a long URL's phases run one after
    /// another), at most 20 s.
    package func settle() {
        var resting = 0
        for _ in 0..<2400 where resting < 24 {
            context.tick(dt: 1.0 / 120)
            let moving = context.engine.runtimeNames.contains { $0.contains("motiond.route.") && context.engine.isActive(runtime: $0) }
            resting = moving ? 0 : resting + 1
        }
    }

    /// Each live target's values in the router `scheme`'s runtime, as a client draws them (defaults for
    /// properties no plan set; an overlay left as drawn anyway counts as no target).
    package func screens(_ scheme: String) -> [String: [String: [Double]]] {
        guard let runtime = context.engine.runtimeNames.first(where: { $0.hasSuffix("motiond.route.\(scheme)") }),
              let state = try? context.engine.state(ofRuntime: runtime) else { return [:] }
        var result: [String: [String: [Double]]] = [:]
        for (target, fields) in state["targets"]?.objectValue ?? [:] {
            var values = Self.defaults
            for (property, entry) in fields["properties"]?.objectValue ?? [:] {
                values[property] = (entry["value"]?.arrayValue ?? []).compactMap(\.doubleValue).map { ($0 * 1e6).rounded() / 1e6 }
            }
            if values != Self.defaults || !target.hasPrefix("overlay:") { result[target] = values }
        }
        return result
    }

    package func url(_ scheme: String) -> String { call("route.state", ["scheme": .string(scheme)])["url"]?.stringValue ?? "?" }

    /// Takes one move (`enqueue` or `start`); nil if the router refused it (`..` past the root, …),
    /// else the walked router's screens and a fresh router's sent straight to the URL reached.
    package func step(_ move: String, enqueue: Bool = false) -> (walked: [String: [String: [Double]]], straight: [String: [String: [Double]]])? {
        let reply = call("route.go", ["scheme": "walk", "to": .string(move), "mode": enqueue ? "enqueue" : "start"])
        settle()
        if reply["code"] != nil { return nil }
        let reached = url("walk")
        walked.append("\(move) → \(reached)")
        fresh += 1
        let straight = "straight\(fresh)"
        configure(straight)
        call("route.go", ["scheme": .string(straight), "to": .string(reached.replacingOccurrences(of: "walk://", with: "\(straight)://"))])
        settle()
        defer { call("router.remove", ["scheme": .string(straight)]) }
        return (screens("walk"), screens(straight))
    }
}

/// Replies, by id; events are dropped.
private final class Lines: ClientOutput, @unchecked Sendable {
    // @unchecked: used on the engine's one thread.
    private var replies: [Int: JSONValue] = [:]
    var backlog: Int { 0 }
    func send(_ line: [UInt8]) {
        guard let message = try? JSONValue.parse(line.dropLast()), let id = message["id"]?.intValue else { return }
        replies[id] = message
    }
    func close() {}
    func reply(to id: Int) -> JSONValue? { replies.removeValue(forKey: id) }
}
