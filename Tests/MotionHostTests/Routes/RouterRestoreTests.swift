import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/routes.md: a stored router whose plans name a type that is not loaded, or whose URL no longer parses,
/// keeps its configuration (reported in `route.state`), never dropped.
@Suite("Router restore")
struct RouterRestoreTests {
    struct Stored: RouterStorage {
        func save(owner: UInt32, scheme: String, configuration: JSONValue, url: String) throws(EngineError) {}
        func remove(owner: UInt32, scheme: String) throws(EngineError) {}
        func loadAll() -> (routers: [SavedRouter], problems: [String]) {
            ([SavedRouter(owner: 0, scheme: "warp", configuration: ["routes": ["home": ["kind": "stack", "transition": ["type": "Warp", "property": "x"]]],
                                                          "transitions": .null], url: "warp://home"),
              SavedRouter(owner: 0, scheme: "typo", configuration: ["routes": ["home": ["kind": "stack", "transition": ["type": "Spring", "property": "x", "to": [1], "dampng": 2]]],
                                                          "transitions": .null], url: "typo://home"),
              SavedRouter(owner: 0, scheme: "odd", configuration: ["routes": ["home": ["kind": "stack"]], "transitions": .null], url: "odd://home((")], [])
        }
    }

    /// An engine with the shipped Spring, Tween and Set plugins (their schemas are what is checked).
    static func shippedEngine() throws -> Engine {
        let host = HostServices(logger: Logger(label: "test"))
        var builder = PluginRegistryBuilder()
        for name in ["Spring", "Tween", "Set"] {
            builder.add(try PluginLoader.load(file: PluginLoaderTests.buildDirectory + "/lib\(name)Plugin.so", host: host).get())
        }
        return Engine(registry: builder.freeze(), host: host, vocabulary: .shipped)
    }

    @Test func routersWithUnloadedPlanTypesOrBadURLsAreKeptAndSaySo() throws {
        let context = EngineContext(engine: try Self.shippedEngine(), settings: EngineSettings(),
                                    logger: Logger(label: "test"))
        let (restored, problems) = context.routers.restore(from: Stored())
        #expect(restored.sorted() == ["odd", "typo", "warp"])
        #expect(problems.count == 3, "\(problems)")
        #expect(context.routers.all["0/typo"]?.problems.first?.contains("dampng: unknown key; did you mean damping?") == true,
                "a plan its plugin's schema no longer accepts: kept, and said")
        #expect(context.routers.all["0/warp"]?.url == "warp://home", "its state is back")
        #expect(context.routers.all["0/warp"]?.problems.first?.contains("unknown plan type \"Warp\"") == true)
        #expect(context.routers.all["0/odd"]?.url == "odd://", "a URL that no longer parses starts at the root")
        #expect(context.routers.all["0/odd"]?.problems.first?.contains("no longer parses") == true)

        let output = RecordingOutput()
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        context.receive(line: Array(#"{"id":2,"method":"route.state","params":{"scheme":"warp"}}"#.utf8), from: 1)
        #expect(output.lines.last?["result"]?["problems"]?.arrayValue?.count == 1, "route.state reports it")
        context.receive(line: Array(#"{"id":3,"method":"router.configure","params":{"scheme":"warp","routes":{"home":{"kind":"stack"}}}}"#.utf8), from: 1)
        #expect(context.routers.all["0/warp"]?.problems.isEmpty == true, "configuring it again clears the report")
    }

    @Test func aTransitionPlanIsCheckedAgainstItsSchemaAtConfigure() throws {
        let context = EngineContext(engine: try Self.shippedEngine(), settings: EngineSettings(),
                                    logger: Logger(label: "test"))
        let output = RecordingOutput()
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        context.receive(line: Array(#"{"id":2,"method":"router.configure","params":{"scheme":"r","routes":{"home":{"kind":"stack","transition":{"push":{"type":"Spring","property":"x","to":[1],"dampng":2}}}}}}"#.utf8), from: 1)
        let error = output.lines.last?["error"]
        #expect(error?["code"]?.stringValue == "plan.invalid", "\(output.lines)")
        #expect(error?["message"]?.stringValue == "routes.home.transition.push: dampng: unknown key; did you mean damping?")
        #expect(context.routers.all["0/r"] == nil, "nothing configured")
        context.receive(line: Array(#"{"id":3,"method":"router.configure","params":{"scheme":"r","routes":{"home":{"kind":"stack"}},"transitions":[{"from":"home","to":"home","animation":{"kind":"appearOverPrevious","appear":{"type":"Tween","property":"opacity","to":[1],"duration":-1}}}]}}"#.utf8), from: 1)
        #expect(output.lines.last?["error"]?["code"]?.stringValue == "plan.invalid", "a container animation's plans too: \(output.lines.last!)")
        #expect(output.lines.last?["error"]?["message"]?.stringValue?.hasPrefix("transitions[0].animation.appear: duration") == true)
    }
}
