import MotionRoutes
import MotionWire
import Testing

/// Every StatefulNavigationController case of `reinstate_navigation.json`, run through `NavigationStack`,
/// and its rule as the router applies it to route components.
@Suite("Reinstate conformance")
struct ReinstateConformanceTests {
    @Test func everyNavigationCase() throws {
        let cases = try #require(try Conformance.load("reinstate_navigation.json")["navigation_cases"]?.arrayValue)
        #expect(cases.count == 6)
        for reference in cases {
            let given = try #require(reference["given"])
            let name = reference["name"]?.stringValue ?? "?"
            let states = (given["states"]?.arrayValue ?? []).compactMap(\.stringValue)
            let children = (given["stack"]?.arrayValue ?? []).compactMap(\.stringValue)
            var stack = NavigationStack(states: states, children: children)
            let caseOnly = reference["shouldPopToViewController"]?.stringValue == "case-only match"
            let action = stack.transition(
                to: try #require(reference["transition_to"]?.stringValue),
                newChild: try #require(reference["childViewController_returns"]?.stringValue),
                canPopToExistingState: reference["canPopToExistingState"]?.boolValue ?? true,
                shouldPop: caseOnly ? { Self.stateCase($0) == Self.stateCase($1) } : { $0 == $1 },
                equal: { $0 == $1 })
            let expected = try #require(reference["expected"])
            #expect(Self.name(of: action) == expected["action"]?.stringValue, "\(name)")
            if let index = expected["pop_index"]?.intValue { #expect(Self.index(of: action) == index, "\(name)") }
            #expect(stack.children == (expected["stack"]?.arrayValue ?? []).compactMap(\.stringValue), "\(name)")
            #expect(stack.states == (expected["states"]?.arrayValue ?? []).compactMap(\.stringValue), "\(name)")
            #expect(stack.state == expected["state"]?.stringValue, "\(name)")
        }
    }

    @Test func routerStackPopsToTheNearestEqualComponentElsePushes() throws {
        let state = try RouteURL(parsing: "app://a/b/a/c").state
        #expect(state.reinstating(RouteComponent(key: "a")).canonicalPath == "a/b/a", "nearest (top-most) match")
        #expect(state.reinstating(RouteComponent(key: "d")).canonicalPath == "a/b/a/c/d")
        #expect(state.reinstating(RouteComponent(key: "c")) == state, "the current state is a no-op")
        #expect(state.reinstating(RouteComponent(key: "b", data: "2")).canonicalPath == "a/b/a/c/b::2",
                "data is part of the state")
    }

    /// `replace_child_sequences`: each of Reinstate's sequences as the phases the router performs (steps in
    /// one phase run together; `order` steps, which put the screens in stacking order, are left out).
    @Test func everyReplaceChildSequence() throws {
        let expected: [String: [[String]]] = [
            "nil": [["remove outgoing", "appear incoming"]],
            "appearOverPrevious": [["appear incoming animated"], ["remove outgoing"]],
            "appearUnderPrevious": [["appear incoming"], ["remove outgoing animated"]],
            "appearAndSimultaneouslyRemove": [["appear incoming animated", "remove outgoing animated"]],
            "removePreviousThenAppear": [["remove outgoing animated"], ["appear incoming animated"]],
        ]
        let cases = try #require(try Conformance.load("reinstate_navigation.json")["replace_child_sequences"]?.arrayValue)
        #expect(cases.count == 5)
        for reference in cases {
            let name = String((reference["animation"]?.stringValue ?? "").prefix { $0 != "(" })
            let animation = try #require(name == "nil" ? ContainerAnimation.none : ContainerAnimation(rawValue: name))
            let phases = animation.phases.map { phase in
                phase.filter { if case .order = $0.action { false } else { true } }.map(\.description)
            }
            #expect(phases == expected[name], "\(name)")
        }
        let under = ContainerAnimation.appearUnderPrevious.phases[0]
        #expect(under.contains(.init(.order(0), .incoming)) && under.contains(.init(.order(1), .outgoing)),
                "appearing under: the new screen is sent to the back")
    }

    static func stateCase(_ state: String) -> Substring { state.prefix { $0 != "(" } }

    static func name(of action: NavigationStack<String, String>.Action) -> String {
        switch action {
        case .configureInitialState: "configureInitialState"
        case .popToExistingChild: "popToExistingController"
        case .popToIndex: "popToIndex"
        case .replaceAtIndexThenPop: "replaceAtIndexThenPop"
        case .push: "push"
        }
    }

    static func index(of action: NavigationStack<String, String>.Action) -> Int? {
        switch action {
        case .popToExistingChild(let index), .popToIndex(let index), .replaceAtIndexThenPop(let index): index
        default: nil
        }
    }
}
