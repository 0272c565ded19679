import MotionRoutes
import MotionWire
import Testing

/// Every case of `navigator_url_parse.json`, `navigator_url_diff.json` and
/// `navigator_transition_builder.json`.
///
/// Where docs/routes.md deliberately differs from Navigator the expectation follows docs/routes.md: letters like `v` parse
/// as visible, modal renders as `m`, and a destination without components pops to the root.
@Suite("Navigator conformance")
struct NavigatorConformanceTests {
    @Test func everyURLParseCase() throws {
        let cases = try #require(try Conformance.load("navigator_url_parse.json")["cases"]?.arrayValue)
        #expect(cases.count == 10)
        for reference in cases {
            let text = try #require(reference["url"]?.stringValue)
            let expected = try #require(reference["expected"])
            if expected["error"] != nil {
                #expect(throws: RouteError.self, "\(text) must not parse") { try RouteURL(parsing: text) }
                continue
            }
            let url = try RouteURL(parsing: text)
            #expect(url.scheme == expected["scheme"]?.stringValue)
            let components = try #require(expected["components"]?.arrayValue)
            #expect(url.state.components.map(\.key) == components.map { $0["key"]?.stringValue ?? "" }, "\(text)")
            #expect(url.state.components.map(\.data) == components.map { $0["data"]?.stringValue }, "\(text)")
            for (key, parameter) in expected["parameters"]?.objectValue ?? [:] {
                let options = try #require(url.state.overlays[key], "\(text): overlay \(key)")
                if let raw = parameter["options"]?.intValue { #expect(options.rawValue == raw, "\(text)") }
                #expect(options.isVisible == parameter["visible"]?.boolValue, "\(text)")
            }
            #expect(url.string == expected["serialized"]?.stringValue, "\(text)")
            #expect(try RouteURL(parsing: url.string) == url, "\(text) round-trips")
        }
    }

    @Test func everyURLDiffCase() throws {
        let cases = try #require(try Conformance.load("navigator_url_diff.json")["cases"]?.arrayValue)
        #expect(cases.count == 11)
        for reference in cases {
            let from = try RouteURL(parsing: try #require(reference["from"]?.stringValue))
            let to = try RouteURL(parsing: try #require(reference["to"]?.stringValue))
            let updates = RouteDiff.updates(from: from.state, to: to.state)
            let expected = try #require(reference["updates"]?.arrayValue)
            #expect(updates.map(Self.describe) == expected.map(Self.describe), "\(from) → \(to)")
        }
    }

    @Test func everyTransitionBuilderCase() throws {
        let cases = try #require(try Conformance.load("navigator_transition_builder.json")["cases"]?.arrayValue)
        #expect(cases.count == 6)
        for reference in cases {
            let current = try RouteURL(parsing: try #require(reference["current_url"]?.stringValue))
            let operations = try #require(reference["builder_ops"]?.arrayValue)
            let expected = try #require(reference["expected"])
            if expected["error"] != nil {
                #expect(throws: RouteError.self) { try Self.apply(operations, to: current.state) }
                continue
            }
            let destination = try Self.apply(operations, to: current.state)
            let label = "\(current) \(operations)"
            #expect(destination.url(scheme: current.scheme) == expected["destination"]?.stringValue, "\(label)")
            for (key, raw) in expected["destination_parameters_raw"]?.objectValue ?? [:] {
                #expect(destination.overlays[key]?.rawValue == raw.intValue, "\(label)")
            }
            #expect(destination.components.last?.data == expected["attributes_data"]?.stringValue, "\(label)")
            let updates = RouteDiff.updates(from: current.state, to: destination)
            #expect(updates.map(Self.describe) == (expected["updates"]?.arrayValue ?? []).map(Self.describe), "\(label)")
        }
    }

    @Test func popAndRootAndResolveTransforms() throws {
        let state = try RouteURL(parsing: "demo://red/green/red/blue?menu=v").state
        #expect(try state.popping(2).canonicalPath == "red/green?menu=v")
        #expect(throws: RouteError.self) { try state.popping(5) }
        #expect(try state.rooting("home").canonicalPath == "home?menu=v", "root keeps overlays")
        #expect(try state.resolving("red").canonicalPath == "red?menu=v", "resolve goes to the first match")
        #expect(try state.resolving("gold").canonicalPath == "red/green/red/blue/gold?menu=v")
    }

    /// One update in a comparable form: Navigator's vocabulary mapped to docs/routes.md's (`animation` → `show` or
    /// `hide`; `pops_to_index` i → `depth` i + 1, the number of components kept).
    static func describe(_ update: JSONValue) -> String {
        let key = update["key"]?.stringValue ?? "?"
        switch update["type"]?.stringValue {
        case "animation":
            let options = update["options"]?.intValue ?? -1
            return "\(update["visible"]?.boolValue == true ? "show" : "hide") \(key) \(options)"
        case "pop": return "pop \(key) \((update["pops_to_index"]?.intValue ?? -2) + 1)"
        case let type?: return "\(type) \(key) \(update["data"]?.stringValue ?? "-")"
        case nil: return "?"
        }
    }

    static func describe(_ update: RouteUpdate) -> String {
        switch update.op {
        case .show, .hide: "\(update.op) \(update.key) \(update.options?.rawValue ?? -1)"
        case .pop: "pop \(update.key) \(update.depth ?? -1)"
        default: "\(update.op) \(update.key) \(update.component?.data ?? "-")"
        }
    }

    static func apply(_ operations: [JSONValue], to state: RouteState) throws -> RouteState {
        var state = state
        for operation in operations {
            let parts = operation.arrayValue ?? []
            let name = parts.first?.stringValue, argument = parts.count > 1 ? parts[1] : .null
            switch name {
            case "push": state = try state.pushing(argument.stringValue)
            case "pop": state = try state.popping(argument.intValue ?? 1)
            case "data": state = state.settingData(argument.stringValue)
            case "parameter":
                state = state.settingOverlay(argument.stringValue ?? "", OverlayOptions(rawValue: parts[2].intValue ?? 0))
            case "present": state = state.presenting(argument.stringValue ?? "")
            case "dismiss": state = state.dismissing(argument.stringValue ?? "")
            case "animate": state = state.animating(argument.stringValue ?? "", visible: parts[2].boolValue ?? false)
            case "root": state = try state.rooting(argument.stringValue ?? "")
            case "resolve": state = try state.resolving(argument.stringValue ?? "")
            default: Issue.record("unknown builder op \(operation)")
            }
        }
        return state
    }
}
