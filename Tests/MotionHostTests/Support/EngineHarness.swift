import Foundation
import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire

/// An engine with the fake plugin registered in-process, and every trace event it emits.
final class EngineHarness: TraceObserver {
    let engine: Engine
    private(set) var events: [TraceEvent] = []

    init(plugins: [UnsafeRawPointer] = [FakePlugin.descriptor]) throws {
        var builder = PluginRegistryBuilder()
        for (index, plugin) in plugins.enumerated() {
            builder.add(try DescriptorCheck.check(plugin, file: "<in-process \(index)>").get())
        }
        engine = Engine(registry: builder.freeze(), host: HostServices(logger: Logger(label: "test")), vocabulary: .none)
        engine.observer = self
    }

    func engine(_ engine: Engine, didTrace event: TraceEvent) {
        events.append(event)
    }

    /// Event kinds in order, without token bookkeeping unless asked for.
    func kinds(includingTokens: Bool = false) -> [String] {
        events.map(\.kind).filter { includingTokens || !$0.hasPrefix("token.") }
    }

    func clearEvents() { events.removeAll() }
}

/// A target name no other test uses.
func uniqueTarget(_ label: String = "T") -> String {
    "\(label)-\(UUID().uuidString.prefix(8))"
}

func plan(_ text: String) -> JSONValue {
    try! JSONValue.parse(text)
}

/// In-process contexts for tests: a namespace, not an extension (nothing outside MotionEngine extends
/// `EngineContext`, docs/architecture.md).
enum TestContext {
    /// An in-process context (the fake plugin, no socket) with session 1 open on `output` and greeted.
    /// `clock`: the engine's time (the system's unless a test moves its own).
    static func greeted(on output: RecordingOutput, clock: any EngineClock = SystemClock.shared) throws -> EngineContext {
        let harness = try EngineHarness()
        let context = EngineContext(engine: harness.engine, settings: EngineSettings(),
                                    logger: Logger(label: "test"), clock: clock)
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        return context
    }

    /// The same with the shipped plugins `plugins` (built by the package and loaded as the daemon does).
    static func greeted(on output: RecordingOutput, plugins: [String], role: Role = .client) throws -> EngineContext {
        let context = EngineContext(engine: try ShippedPlanSchemaTests.engine(plugins),
                                    settings: EngineSettings(), logger: Logger(label: "test"))
        context.openSession(1, output: output, role: role)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        return context
    }

    /// Sends one request on session 1; its result, or its error object.
    static func call(_ context: EngineContext, _ method: String, _ params: JSONValue, on output: RecordingOutput) -> JSONValue {
        context.receive(line: JSONWriter.bytes(["id": 1, "method": .string(method), "params": params]), from: 1)
        return output.lines.last?["result"] ?? output.lines.last?["error"] ?? .null
    }
}
