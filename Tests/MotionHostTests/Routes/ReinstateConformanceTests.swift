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
