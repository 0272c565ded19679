import Foundation
import Logging
@testable import MotionEngine
import MotionSchema
@testable import MotionHost
import MotionPluginAPI
import MotionTestSupport
import MotionWire
import Testing

/// The header's promise: a plugin built against an older minor version loads into a newer host; one that
/// needs a newer minor is refused with the reason.
@Suite("ABI evolution")
struct ABIEvolutionTests {
    let host = HostServices(logger: Logger(label: "test"))

    @Test func aPluginBuiltAgainstTheFrozen1_1HeaderLoadsAndWorks() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let file = try await CCompiler.sharedLibrary(["Tests/MotionHostTests/Fixtures/c/abi11_pair.c"], name: "libabi11.so",
                                                     in: directory, includes: ["Tests/MotionHostTests/Fixtures/abi-1.1"])
        let plugin = try PluginLoader.load(file: file, host: host).get()
        #expect(plugin.factories.map(\.planType) == ["First", "Second"])
        // Walked with the plugin's own stride: the second factory is read where it is.
        #expect(plugin.factories.allSatisfy { $0.schema == nil && $0.table.pointee.plan_schema == nil })
        var builder = PluginRegistryBuilder()
        builder.add(plugin)
        let engine = Engine(registry: builder.freeze(), host: host)
        try engine.addPlan(plan(#"{"type":"First","anything":1}"#), to: "a")
        try engine.addPlan(plan(#"{"type":"Second"}"#), to: "b")
        #expect(engine.value(of: "x", target: "a") == [1])
        #expect(engine.value(of: "x", target: "b") == [2])
    }

    @Test func sizesOfEarlierVersionsArePinned() {
        #expect(MOTION_PLUGIN_SIZE_1_0 == 88 && MemoryLayout<motion_plugin>.size == 88)
        #expect(MOTION_FACTORY_SIZE_1_0 == 72)
        #expect(MOTION_FACTORY_SIZE_1_2 == 80 && MemoryLayout<motion_factory>.size == 80)
        #expect(MemoryLayout<motion_factory>.offset(of: \.plan_schema) == 72)
        #expect(MOTION_HOST_SIZE_1_0 == 88 && MemoryLayout<motion_host>.size == 88)
    }

    @Test func theFrozenHeaderIsVersion1_1() throws {
        let text = try String(contentsOfFile: CCompiler.repository.appendingPathComponent(
            "Tests/MotionHostTests/Fixtures/abi-1.1/motion_plugin.h").path, encoding: .utf8)
        #expect(text.contains("#define MOTION_ABI_MINOR 1u"))
        #expect(!text.contains("plan_schema"))
    }
}
