import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionFuzzing
import MotionWire
import Testing

/// Issue #20: after any completed transition, a router's screens hold values that depend on its URL and
/// configuration only, never on the path taken. `RouteWalk` (shared with the route fuzzer) walks
/// docs/routes.md's router with the shipped, dlopen'd plugins and compares each reached URL with a fresh
/// router sent straight there.
@Suite("Route path independence")
struct RoutePathIndependenceTests {
    static func walk() throws -> RouteWalk {
        RouteWalk(context: EngineContext(engine: try ShippedPlanSchemaTests.engine(["TweenPlugin", "SetPlugin", "SpringPlugin"]),
                                         settings: EngineSettings(), logger: Logger(label: "test")))
    }

    @Test func randomWalksEndWhereGoingStraightEnds() throws {
        let walk = try Self.walk()
        var generator = SplitMix64(seed: 20)
        for step in 0..<60 {
            let move = RouteWalk.moves[generator.next(below: RouteWalk.moves.count)]
            guard let (walked, straight) = walk.step(move, enqueue: generator.next(below: 4) == 0) else { continue }
            #expect(walked == straight, "step \(step), after \(walk.walked.suffix(4)): walked \(walked) vs straight \(straight)")
            if walked != straight { break }
        }
        #expect(walk.walked.count > 30, "the walk went somewhere: \(walk.walked)")
    }

    /// The acceptance walk: `home` → `home/show::2` → `home/show::2/show::3` → `..` → `!player` → `..`.
    @Test func theIssuesWalk() throws {
        let walk = try Self.walk()
        walk.configure("a")
        walk.configure("b")
        for to in ["a://home", "a://home/show::2", "a://home/show::2/show::3"] {
            #expect(walk.call("route.go", ["scheme": "a", "to": .string(to)])["code"] == nil)
            walk.settle()
        }
        let both = walk.screens("a")
        #expect(both["screen:home/show::2"] != nil && both["screen:home/show::2/show::3"] != nil, "two instances, two targets")
        for to in ["..", "!player", ".."] {
            #expect(walk.call("route.go", ["scheme": "a", "to": .string(to)])["code"] == nil)
            walk.settle()
        }
        #expect(walk.url("a") == "a://home/show::2")
        walk.call("route.go", ["scheme": "b", "to": "b://home/show::2"])
        walk.settle()
        let walked = walk.screens("a")
        #expect(walked == walk.screens("b"))
        #expect(Set(walked.keys) == ["screen:home", "screen:home/show::2"], "only the live screens remain: \(walked.keys.sorted())")
    }

    /// The fuzzer's target over a few fixed inputs (its in-process plugins, not the shipped ones).
    @Test func theFuzzTargetHoldsOnFixedWalks() {
        FuzzTargets.routeWalk([0, 1, 2, 3, 0x85, 7, 8, 4])
        FuzzTargets.routeWalk([6, 1, 2, 0x89, 3, 3, 10, 4])
    }
}
