import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// SPEC §4: a stored router whose plans name a type that is not loaded, or whose URL no longer parses,
/// keeps its configuration (reported in `route.state`), never dropped.
@Suite("Router restore")
struct RouterRestoreTests {
    struct Stored: RouterStorage {
        func save(owner: UInt32, scheme: String, configuration: JSONValue, url: String) throws(EngineError) {}
        func remove(owner: UInt32, scheme: String) throws(EngineError) {}
        func loadAll() -> (routers: [SavedRouter], problems: [String]) {
            ([SavedRouter(owner: 0, scheme: "warp", configuration: ["routes": ["home": ["kind": "stack", "transition": ["type": "Warp", "property": "x"]]],
                                                          "transitions": .null], url: "warp://home"),
              SavedRouter(owner: 0, scheme: "odd", configuration: ["routes": ["home": ["kind": "stack"]], "transitions": .null], url: "odd://home((")], [])
        }
    }

    @Test func routersWithUnloadedPlanTypesOrBadURLsAreKeptAndSaySo() throws {
        let harness = try EngineHarness()
        let context = EngineContext(engine: harness.engine, configuration: DaemonConfiguration(socketPath: "/unused"),
                                    logger: Logger(label: "test"))
        let (restored, problems) = context.restoreRouters(from: Stored())
        #expect(restored.sorted() == ["odd", "warp"])
        #expect(problems.count == 2, "\(problems)")
        #expect(context.routers["0/warp"]?.url == "warp://home", "its state is back")
        #expect(context.routers["0/warp"]?.problems.first?.contains("unknown plan type \"Warp\"") == true)
        #expect(context.routers["0/odd"]?.url == "odd://", "a URL that no longer parses starts at the root")
        #expect(context.routers["0/odd"]?.problems.first?.contains("no longer parses") == true)

        let output = RecordingOutput()
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        context.receive(line: Array(#"{"id":2,"method":"route.state","params":{"scheme":"warp"}}"#.utf8), from: 1)
        #expect(output.lines.last?["result"]?["problems"]?.arrayValue?.count == 1, "route.state reports it")
        context.receive(line: Array(#"{"id":3,"method":"router.configure","params":{"scheme":"warp","routes":{"home":{"kind":"stack"}}}}"#.utf8), from: 1)
        #expect(context.routers["0/warp"]?.problems.isEmpty == true, "configuring it again clears the report")
    }
}
