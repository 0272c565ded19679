import MotionRoutes
import MotionWire
import Testing

/// Every `relativeTo` and `splitPath` case of `deeptransition_paths.json`.
///
/// DeepTransition's "own navigation container" marks (`!/x`, `#/x`, a leading `/`) are UIKit detail with
/// no place in a daemon's route: docs/routes.md's canonical form writes those components as `!x`, `#x`, `x`. The
/// expected paths are converted the same way; components are compared by key, segue and params.
@Suite("DeepTransition conformance")
struct DeepTransitionConformanceTests {
    @Test func everyRelativeToCase() throws {
        let cases = try #require(try Conformance.load("deeptransition_paths.json")["relative_to_cases"]?.arrayValue)
        #expect(cases.count == 47)
        for reference in cases {
            let currentPath = try #require(reference["current_path"]?.stringValue)
            let transition = try #require(reference["transition"]?.stringValue)
            let current = try RoutePath.resolve("^" + currentPath, from: RouteState())
            let result = try RoutePath.resolve(transition, from: current)
            let label = "\(currentPath) + \(transition)"
            #expect(result.canonicalPath == Self.canonical(try #require(reference["result_path"]?.stringValue)), "\(label)")
            #expect(result.components.map(Self.describe) == (reference["result_components"]?.arrayValue ?? []).map(Self.describe), "\(label)")
            try Self.checkOperations(reference["operations"]?.arrayValue ?? [], from: current, to: result, label)
        }
    }

    @Test func everySplitPathCase() throws {
        let cases = try #require(try Conformance.load("deeptransition_paths.json")["split_path_cases"]?.arrayValue)
        #expect(cases.count == 10)
        for reference in cases {
            let path = try #require(reference["path"]?.stringValue)
            let state = try RoutePath.resolve("^" + path, from: RouteState())
            #expect(state.components.map(Self.describe) == (reference["components"]?.arrayValue ?? []).map(Self.describe), "\(path)")
            #expect(state.canonicalPath == Self.canonical(try #require(reference["canonical_path"]?.stringValue)), "\(path)")
            #expect(try RouteURL(parsing: "x://" + state.canonicalPath).state == state, "\(path) round-trips")
        }
    }

    /// The library's remove/add operations, seen through docs/routes.md's diff: removing the tail after an agent at
    /// depth d is `pop` with depth d (or `replace` when the root itself goes and something replaces it);
    /// each added component is one `push`/`present`/`select` (the first after the root's removal is the
    /// `replace`).
    static func checkOperations(_ operations: [JSONValue], from current: RouteState, to result: RouteState,
                                _ label: String) throws {
        var expected: [String] = []
        for operation in operations {
            let agentDepth = try RoutePath.resolve("^" + (operation["agent_path"]?.stringValue ?? ""), from: RouteState()).components.count
            let component = try RoutePath.resolve("^" + (operation["component"]?.stringValue ?? ""), from: RouteState()).components
            let key = component.first?.key ?? "?"
            switch operation["op"]?.stringValue {
            case "remove":
                expected.append(agentDepth == 0 && !result.components.isEmpty ? "replace" : "pop \(key) \(agentDepth)")
            default:
                if expected.last == "replace" {
                    expected[expected.count - 1] = "replace \(key)"
                } else {
                    let op = ["Show": "push", "Modal": "present", "Tab": "select"][operation["segue"]?.stringValue ?? ""] ?? "?"
                    expected.append(agentDepth == 0 && current.components.isEmpty ? "replace \(key)" : "\(op) \(key)")
                }
            }
        }
        let actual = RouteDiff.updates(from: current, to: result).map { update in
            update.op == .pop ? "pop \(update.key) \(update.depth ?? -1)" : "\(update.op) \(update.key)"
        }
        #expect(actual == expected, "\(label)")
    }

    static func canonical(_ deepTransitionPath: String) -> String {
        var text = deepTransitionPath.replacing("!/", with: "!").replacing("#/", with: "#")
        if text.hasPrefix("/") { text.removeFirst() }
        return text
    }

    static func describe(_ component: JSONValue) -> String {
        let segue = ["Show": "push", "Modal": "modal", "Tab": "tab"][component["segue"]?.stringValue ?? ""] ?? "?"
        let params = (component["params"]?.objectValue ?? [:]).map { "\($0.key)=\($0.value.stringValue ?? "?")" }.sorted()
        return "\(segue) \(component["id"]?.stringValue ?? "?") \(params)"
    }

    static func describe(_ component: RouteComponent) -> String {
        "\(component.segue.rawValue) \(component.key) \(component.params.map { "\($0.key)=\($0.value)" }.sorted())"
    }
}
