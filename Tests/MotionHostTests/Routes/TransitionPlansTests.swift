@testable import MotionEngine
@testable import MotionHost
import MotionRoutes
import MotionWire
import Logging
import Testing

/// Which plans an update adds to which screens, without an engine.
@Suite("Transition plans")
struct TransitionPlansTests {
    static let planTypes: Set<String> = ["Tween", "Set", "Spring"]
    static func plan(_ property: String) -> JSONValue { ["type": "Tween", "property": .string(property), "to": [1]] }

    let configuration: RouterConfiguration

    init() throws {
        configuration = try RouterConfiguration([
            "routes": [
                "home": ["kind": "stack", "transition": Self.plan("all")],
                "show": ["kind": "stack", "transition": ["push": Self.plan("in"), "pop": Self.plan("out")]],
                "player": ["kind": "modal", "transition": ["present": Self.plan("up"), "dismiss": Self.plan("down")]],
                "list": ["kind": "stack"], "detail": ["kind": "stack"],
                "menu": ["kind": "overlay", "transition": ["show": Self.plan("menu")]],
            ],
            "transitions": [["from": "list", "to": "detail", "animation": "appearAndSimultaneouslyRemove"]],
        ], planTypes: Self.planTypes, vocabulary: .shipped)
    }

    private func phases(_ from: String, _ to: String) throws -> [[String]] {
        let before = try RouteURL(parsing: from).state, after = try RouteURL(parsing: to).state
        var state = before
        var described: [[String]] = []
        for update in RouteDiff.updates(from: before, to: after) {
            let next = state.applying(update)
            described += TransitionPlans.phases(for: update, before: state, after: next, configuration: configuration).map { phase in
                phase.map { "\($0.target) \($0.plan["property"]?.stringValue ?? "?")" }
            }
            state = next
        }
        #expect(state == after, "applying the diff's updates one by one reaches the destination")
        return described
    }

    @Test func arrivingAndLeavingScreensGetTheirRoutesPlans() throws {
        #expect(try phases("x://", "x://home/show!player") == [["screen:home all"], ["screen:home/show in"], ["screen:home/show!player up"]])
        #expect(try phases("x://home/show!player", "x://home") == [["screen:home/show!player down", "screen:home/show out"]],
                "one pop removes every screen above, top first, together")
        #expect(try phases("x://home/show", "x://show") == [["screen:home/show out", "screen:home all", "screen:show in"]],
                "replace: the old stack leaves as the new root arrives")
        #expect(try phases("x://home", "x://home?menu=v") == [["overlay:menu menu"]])
        #expect(try phases("x://home?menu=v", "x://home") == [], "no hide plan declared: nothing to wait for")
    }

    /// Issue #20: two instances of one route are two targets; popping `show::3` animates `show::3` only.
    @Test func eachScreenInstanceIsATargetOfItsOwn() throws {
        #expect(try phases("x://home/show::2/show::3", "x://home/show::2") == [["screen:home/show::2/show::3 out"]])
        #expect(try phases("x://home/show::2", "x://home/show::2/show::3") == [["screen:home/show::2/show::3 in"]])
    }

    /// Issue #20: a route with a single `transition` plays it reversed when its screen leaves.
    @Test func aSingleTransitionPlaysReversedWhenItsScreenLeaves() throws {
        let fade: JSONValue = ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2]
        let configuration = try RouterConfiguration([
            "routes": ["home": ["kind": "stack"], "detail": ["kind": "stack", "transition": fade]], "transitions": .null,
        ], planTypes: Self.planTypes, vocabulary: .shipped)
        let pushed = try RouteURL(parsing: "x://home/detail").state, home = try RouteURL(parsing: "x://home").state
        let pop = try #require(RouteDiff.updates(from: pushed, to: home).first)
        let plans = TransitionPlans.phases(for: pop, before: pushed, after: home, configuration: configuration).flatMap { $0 }
        #expect(plans.count == 1 && plans[0].target == "screen:home/detail")
        #expect(plans[0].plan["from"] == [1] && plans[0].plan["to"] == [0], "\(plans)")
        let push = try #require(RouteDiff.updates(from: home, to: pushed).first)
        let arrival = TransitionPlans.phases(for: push, before: home, after: pushed, configuration: configuration).flatMap { $0 }
        #expect(arrival.first?.plan == fade, "arriving, it plays forward")
    }

    /// Issue #20: `animated: false` and `perform: false` leave the screens with the values an animated
    /// arrival leaves (the plans run at once), so a client can draw the URL from them.
    @Test func unanimatedArrivalsLeaveTheValuesAnAnimatedOneDoes() throws {
        let output = RecordingOutput()
        let context = EngineContext(engine: try ShippedPlanSchemaTests.engine(["TweenPlugin", "SetPlugin", "SpringPlugin"]),
                                    settings: EngineSettings(), logger: Logger(label: "test"))
        context.openSession(1, output: output)
        var id = 0
        func call(_ method: String, _ params: JSONValue) {
            id += 1
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        }
        call("hello", ["protocol": 1])
        let routes: JSONValue = [
            "home": ["kind": "stack", "transition": ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2]],
            "show": ["kind": "stack", "transition": ["push": ["type": "Spring", "property": "offset", "from": [400], "to": [0]],
                                                     "pop": ["type": "Spring", "property": "offset", "to": [400]]]],
            "player": ["kind": "modal", "transition": ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.3]],
        ]
        for scheme in ["a", "b", "c"] { call("router.configure", ["scheme": .string(scheme), "routes": routes]) }
        call("route.go", ["scheme": "a", "to": "a://home/show::2!player"])
        for _ in 0..<600 { context.tick(dt: 1.0 / 120) }
        call("route.go", ["scheme": "b", "to": "b://home/show::2!player", "animated": false])
        call("route.go", ["scheme": "c", "to": "c://home/show::2!player", "perform": false])
        for _ in 0..<2 { context.tick(dt: 1.0 / 120) }
        func values(_ scheme: String) -> [String: [Double]] {
            var result: [String: [Double]] = [:]
            for target in ["screen:home", "screen:home/show::2", "screen:home/show::2!player"] {
                for property in ["opacity", "offset"] {
                    if let value = context.engine.value(of: property, target: target, runtime: "0/motiond.route.\(scheme)") {
                        result["\(target).\(property)"] = value.map { ($0 * 1000).rounded() / 1000 }
                    }
                }
            }
            return result
        }
        #expect(values("a").count == 3, "\(values("a"))")
        #expect(values("b") == values("a"), "animated: false")
        #expect(values("c") == values("a"), "perform: false")
    }

    @Test func aDeclaredPairUsesItsContainerAnimation() throws {
        #expect(try phases("x://list", "x://list/detail") == [["screen:list/detail opacity", "screen:list opacity"]])
        #expect(try phases("x://detail", "x://detail/list") == [], "pairs are directional")
    }

    @Test func configurationErrorsNameTheField() {
        func failure(_ json: JSONValue) -> EngineError? {
            do throws(EngineError) {
                _ = try RouterConfiguration(json, planTypes: Self.planTypes, vocabulary: .shipped)
                return nil
            } catch { return error }
        }
        #expect(failure(["routes": [:]])?.message == "routes: expected at least one route")
        // Unknown keys are refused, as everywhere in the protocol (a misspelt `transition` went unnoticed).
        #expect(failure(["routes": ["a": ["kind": "stack", "colour": 1]]])?.message == "routes.a.colour: unknown key of a route (known: kind, transition)")
        #expect(failure(["routes": ["a": ["kind": "stack"]], "transitions": [["from": "a", "to": "a", "animation": "none", "speed": 2]]])?.message
            == "transitions[0].speed: unknown key of a transition (known: from, to, animation)")
        #expect(failure(["routes": ["a b": ["kind": "stack"]]])?.message.hasPrefix("routes.a b:") == true)
        let long = failure(["routes": .object([String(repeating: "k", count: 257): ["kind": "stack"]])])
        #expect(long?.code == .limitExceeded && long?.message == "routes: a route key of 257 bytes; keys are at most 256 bytes", "\(String(describing: long))")
        #expect(failure(["routes": .object([String(repeating: "k", count: 256): ["kind": "stack"]])]) == nil)
        #expect(failure(["routes": ["a": ["kind": "stack", "transition": ["slide": Self.plan("x")]]]])?.message.hasPrefix("routes.a.transition.slide") == true)
        #expect(failure(["routes": ["a": ["kind": "stack", "transition": ["type": "Nope"]]]])?.code == .unknownPlanType)
        #expect(failure(["routes": ["a": ["kind": "stack"]], "transitions": [["from": "a", "to": "b", "animation": "none"]]])?.message
            == "transitions[0].to: expected a key declared in routes")
        #expect(failure(["routes": ["a": ["kind": "stack"]], "transitions": [["from": "a", "to": "a", "animation": "fade"]]])?.message.hasPrefix("transitions[0].animation") == true)
    }

    /// Every screen's target built on the one before is the one built alone (segues, data, params).
    @Test func screenTargetsBuiltTogetherAreThoseBuiltOneByOne() throws {
        for url in ["television://home/show::2!player(autoplay=1)#chapters?menu=v", "demo://red/green/", "x://a!q::(k=v)/b#c::d", "x://"] {
            let state = try RouteURL(parsing: url).state
            #expect(TransitionPlans.screens(in: state) == state.components.indices.map { TransitionPlans.screen(in: state, at: $0) }, "\(url)")
        }
    }
}
