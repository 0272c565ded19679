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
        let engine = Engine(registry: builder.freeze(), host: host, vocabulary: .none)
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

/// A hot swap does not believe a state size it cannot hold (docs/protocol.md#ownership-and-quotas): a plugin that claims 2^40 bytes
/// of state had the host try to allocate a terabyte and abort mid-swap. Now that performer stays on its
/// old build, with the reason, and the swap goes on.
@Suite("Migration state cap")
struct MigrationStateCapTests {
    @Test func aClaimedTerabyteOfStateIsRefusedAndTheOldBuildRuns() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let source = ["Tests/MotiondTests/Fixtures/careless_advance.c"]
        let first = try await CCompiler.sharedLibrary(source, name: "libhuge1.so", in: directory, defines: ["HUGE_STATE=1", "HOLD=1"])
        let second = try await CCompiler.sharedLibrary(source, name: "libhuge2.so", in: directory, defines: ["HUGE_STATE=1", "HOLD=1"])
        let host = HostServices(logger: .init(label: "test"))
        var builder = PluginRegistryBuilder()
        builder.add(try PluginLoader.load(file: first, host: host).get())
        let engine = Engine(registry: builder.freeze(), host: host, vocabulary: .none)
        try engine.addPlan(["type": "Careless", "property": "x"], to: "card")
        engine.advance(by: 1.0 / 120)
        var next = PluginRegistryBuilder(extending: engine.registry)
        _ = try next.replace(with: try PluginLoader.load(file: second, host: host).get(), hash: "next").get()
        let job = try engine.swaps.beginSwap(to: next.freeze(), pluginID: "test.careless-advance", budgetNanos: .max)
        #expect(job.isFinished && job.report.migrated == 0 && job.report.remaining == 1, "\(job.report)")
        #expect(job.failures.first?.contains("a state of 1099511627776 bytes; at most 16777216") == true, "\(job.failures)")
        engine.advance(by: 1.0 / 120)
        #expect(engine.value(of: "x", target: "card") == [1], "the old build runs on")
        #expect(engine.performerCount == 1)
        // plugins.reload says why (the reply's `stayed`).
        let outcome = InstallOutcome.swapped(id: "test.careless-advance", fromVersion: "1", toVersion: "1", generation: 2,
                                                           migrated: 0, remaining: 1, stayed: job.failures)
        #expect(outcome.json["stayed"]?.arrayValue?.first?.stringValue?.contains("at most 16777216") == true, "\(outcome.json)")
    }
}
