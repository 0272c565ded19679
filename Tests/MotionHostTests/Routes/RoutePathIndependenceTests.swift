import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// Issue #20: after any completed transition, a router's screens hold values that depend on its URL and
/// configuration only, never on the path taken. Random walks over docs/routes.md's router (push, pop,
/// present, dismiss, tabs, overlays, `..`, `^/`, enqueue), each reached URL compared with a fresh router
/// sent straight there.
@Suite("Route path independence")
struct RoutePathIndependenceTests {
    static let routes: JSONValue = [
        "home": ["kind": "stack", "transition": ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.1]],
        "show": ["kind": "stack", "transition": [
            "push": ["type": "Spring", "property": "offset", "from": [400], "to": [0], "dampingRatio": 1, "response": 0.2],
            "pop": ["type": "Tween", "property": "offset", "to": [400], "duration": 0.1]]],
        "player": ["kind": "modal", "transition": ["type": "Tween", "property": "scale", "from": [0.5], "to": [1], "duration": 0.1]],
        "chapters": ["kind": "tab"],
        "menu": ["kind": "overlay", "transition": ["show": ["type": "Tween", "property": "opacity", "to": [1], "duration": 0.1],
                                                   "hide": ["type": "Tween", "property": "opacity", "to": [0], "duration": 0.1]]],
    ]
    static let transitions: JSONValue = [["from": "show", "to": "player", "animation": "appearOverPrevious"]]

    let output = RecordingOutput()
    let context: EngineContext
    var id = 0
    var fresh = 0

    init() throws {
        context = EngineContext(engine: try ShippedPlanSchemaTests.engine(["TweenPlugin", "SetPlugin", "SpringPlugin"]),
                                configuration: DaemonConfiguration(socketPath: "/unused"), logger: Logger(label: "test"))
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
    }

    @discardableResult
    mutating func call(_ method: String, _ params: JSONValue) -> JSONValue {
        id += 1
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        let reply = output.lines.last { $0["id"]?.doubleValue == Double(id) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    mutating func configure(_ scheme: String) {
        let reply = call("router.configure", ["scheme": .string(scheme), "routes": Self.routes, "transitions": Self.transitions])
        #expect(reply["code"] == nil, "\(reply)")
    }

    /// Ticks until every router's runtime has rested for a while (a transition's phases run one after
    /// another, so a long URL takes a while), at most 20 s.
    func settle() {
        var resting = 0
        for _ in 0..<2400 where resting < 24 {
            context.tick(dt: 1.0 / 120)
            let moving = context.engine.runtimeNames.contains { $0.contains("motiond.route.") && context.engine.isActive(runtime: $0) }
            resting = moving ? 0 : resting + 1
        }
    }

    /// Each live target's values (screens drawn visible and unscaled unless a plan says otherwise).
    func screens(_ scheme: String) throws -> [String: [String: [Double]]] {
        let runtime = "0/motiond.route.\(scheme)"
        let state = try context.engine.state(ofRuntime: runtime)
        var result: [String: [String: [Double]]] = [:]
        for (target, fields) in state["targets"]?.objectValue ?? [:] {
            var values: [String: [Double]] = [:]
            for (property, entry) in fields["properties"]?.objectValue ?? [:] {
                values[property] = (entry["value"]?.arrayValue ?? []).compactMap(\.doubleValue).map { ($0 * 1e6).rounded() / 1e6 }
            }
            // What a client draws for a property no plan has set: opacity 1, scale 1, offset 0, zIndex 0.
            for (property, shown) in ["opacity": [1.0], "scale": [1.0], "offset": [0.0], "zIndex": [0.0]] where values[property] == nil {
                values[property] = shown
            }
            // A target left at what is drawn anyway is drawn as no target is (an overlay shown at opacity 1).
            if values != ["opacity": [1.0], "scale": [1.0], "offset": [0.0], "zIndex": [0.0]] || !target.hasPrefix("overlay:") {
                result[String(target)] = values
            }
        }
        return result
    }

    mutating func url(_ scheme: String) -> String {
        call("route.state", ["scheme": .string(scheme)])["url"]?.stringValue ?? "?"
    }

    @Test mutating func randomWalksEndWhereGoingStraightEnds() throws {
        configure("walk")
        let moves = ["show::1", "show::2", "!player", "..", "..", "#chapters", "^/home", "?menu=v", "?menu=0", "../show::3", "^/home/show::2"]
        var generator = SplitMix(seed: 20)
        #expect(call("route.go", ["scheme": "walk", "to": "walk://home"])["code"] == nil)
        settle()
        var walked: [String] = ["walk://home"]
        for step in 0..<60 {
            let move = moves[Int(generator.next() % UInt64(moves.count))]
            let mode: JSONValue = generator.next() % 4 == 0 ? "enqueue" : "start"
            let reply = call("route.go", ["scheme": "walk", "to": .string(move), "mode": mode])
            settle()
            if reply["code"] != nil { continue }  // `..` past the root, a tab where none may go
            let reached = url("walk")
            walked.append("\(move) → \(reached)")
            fresh += 1
            let straight = "straight\(fresh)"
            configure(straight)
            let destination = reached.replacingOccurrences(of: "walk://", with: "\(straight)://")
            #expect(call("route.go", ["scheme": .string(straight), "to": .string(destination)])["code"] == nil)
            settle()
            let (a, b) = (try screens("walk"), try screens(straight))
            #expect(a == b, "step \(step), after \(walked.suffix(4)): walked \(a) vs straight \(b)")
            if a != b { break }
            call("router.remove", ["scheme": .string(straight)])
        }
        #expect(walked.count > 30, "the walk went somewhere: \(walked)")
    }

    /// The acceptance walk: `home` → `home/show::2` → `home/show::2/show::3` → `..` → `!player` → `..`.
    @Test mutating func theIssuesWalk() throws {
        configure("a")
        configure("b")
        for to in ["a://home", "a://home/show::2", "a://home/show::2/show::3"] {
            #expect(call("route.go", ["scheme": "a", "to": .string(to)])["code"] == nil)
            settle()
        }
        let both = try screens("a")
        #expect(both["screen:home/show::2"] != nil && both["screen:home/show::2/show::3"] != nil, "two instances, two targets")
        for to in ["..", "!player", ".."] {
            #expect(call("route.go", ["scheme": "a", "to": .string(to)])["code"] == nil)
            settle()
        }
        #expect(url("a") == "a://home/show::2")
        call("route.go", ["scheme": "b", "to": "b://home/show::2"])
        settle()
        let walked = try screens("a")
        #expect(walked == (try screens("b")))
        #expect(Set(walked.keys) == ["screen:home", "screen:home/show::2"], "only the live screens remain: \(walked.keys.sorted())")
    }
}

/// A small deterministic generator (the walk is the same on every run).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
