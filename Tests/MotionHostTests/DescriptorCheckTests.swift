@testable import MotionEngine
import MotionPluginAPI
import Testing
import Foundation

/// The loader's checks run before any plugin function is called; each failure names its field.
@Suite("Descriptor checks")
struct DescriptorCheckTests {
    /// A valid descriptor copied from the fake plugin, then broken one field at a time.
    private func reason(_ mutate: (inout motion_plugin) -> Void) -> String? {
        var descriptor = FakePlugin.descriptor.assumingMemoryBound(to: motion_plugin.self).pointee
        mutate(&descriptor)
        return withUnsafePointer(to: &descriptor) { pointer in
            switch DescriptorCheck.check(UnsafeRawPointer(pointer), file: "x.so") {
            case .success: return nil
            case .failure(let error): return error.reason
            }
        }
    }

    @Test func acceptsAWellFormedDescriptor() throws {
        let descriptor = try DescriptorCheck.check(FakePlugin.descriptor, file: "fake").get()
        #expect(descriptor.id == "test.fake")
        #expect(descriptor.factories.map(\.planType).contains("ChangeBoolean"))
        #expect(descriptor.factories.first { $0.planType == "ForeverActive" }?.isContinuous == true)
    }

    @Test func magicIsCheckedFirst() {
        #expect(reason { $0.magic = 0x1234_5678; $0.abi_major = 9 } == "magic: expected 0x4E544F4D, found 0x12345678")
    }

    @Test func majorVersionMustMatch() {
        #expect(reason { $0.abi_major = 2 } == "abi_major: plugin is built for ABI 2.2, this host speaks 1.2")
    }

    @Test func newerMinorVersionIsRefused() {
        #expect(reason { $0.abi_minor = 3 } == "abi_minor: plugin needs ABI 1.3, this host provides 1.2")
    }

    @Test func shortDescriptorIsRefused() {
        #expect(reason { $0.struct_size = 40 }?.hasPrefix("struct_size: 40 is smaller") == true)
    }

    @Test func aBatchExtensionIsCheckedAndGivenToContinuousFactoriesOnly() throws {
        func batchReason(_ table: UnsafeMutablePointer<motion_batch>) -> String? {
            BatchTables.current = table
            return reason { $0.get_extension = { id in
                String(cString: id!) == MOTION_BATCH_EXTENSION ? UnsafeRawPointer(BatchTables.current) : nil
            } }
        }
        #expect(batchReason(BatchTables.withoutFunction) == "motion.batch/1.advance_batch: NULL")
        #expect(batchReason(BatchTables.short) == "motion.batch/1.struct_size: 8, expected at least 16")
        #expect(batchReason(BatchTables.good) == nil)
        var descriptor = FakePlugin.descriptor.assumingMemoryBound(to: motion_plugin.self).pointee
        BatchTables.current = BatchTables.good
        descriptor.get_extension = { id in
            String(cString: id!) == MOTION_BATCH_EXTENSION ? UnsafeRawPointer(BatchTables.current) : nil
        }
        let checked = try withUnsafePointer(to: &descriptor) { try DescriptorCheck.check(UnsafeRawPointer($0), file: "x.so").get() }
        #expect(checked.factories.allSatisfy { ($0.batch != nil) == $0.isContinuous })
        #expect(checked.factories.contains { $0.batch != nil })
    }

    @Test func aYieldExtensionIsChecked() {
        func yieldReason(_ table: UnsafeMutablePointer<motion_yield>) -> String? {
            YieldTables.current = table
            return reason { $0.get_extension = { id in
                String(cString: id!) == MOTION_YIELD_EXTENSION ? UnsafeRawPointer(YieldTables.current) : nil
            } }
        }
        #expect(yieldReason(YieldTables.make(size: MemoryLayout<motion_yield>.size, function: nil)) == "motion.yield/1.yield_property: NULL")
        #expect(yieldReason(YieldTables.make(size: 4, function: { _, _, _ in })) == "motion.yield/1.struct_size: 4, expected at least 16")
        #expect(yieldReason(YieldTables.make(size: MemoryLayout<motion_yield>.size, function: { _, _, _ in })) == nil)
    }

    /// "motion.kept/1" is checked as every extension, and kept only for factories advanced in batches.
    @Test func aKeptExtensionIsCheckedAndGoesWithBatches() throws {
        func check(_ kept: UnsafeMutablePointer<motion_kept>?, batch: Bool) -> Result<PluginDescriptor, PluginLoadError> {
            KeptTables.current = kept
            KeptTables.batch = batch ? BatchTables.good : nil
            var descriptor = FakePlugin.descriptor.assumingMemoryBound(to: motion_plugin.self).pointee
            descriptor.get_extension = { id in
                switch String(cString: id!) {
                case MOTION_KEPT_EXTENSION: return KeptTables.current.map { UnsafeRawPointer($0) }
                case MOTION_BATCH_EXTENSION: return KeptTables.batch.map { UnsafeRawPointer($0) }
                default: return nil
                }
            }
            return withUnsafePointer(to: &descriptor) { DescriptorCheck.check(UnsafeRawPointer($0), file: "x.so") }
        }
        let writes: @convention(c) (UnsafePointer<motion_factory>?, UnsafePointer<motion_host>?) -> Void = { _, _ in }
        #expect(throws: PluginLoadError.self) { try check(KeptTables.make(size: MemoryLayout<motion_kept>.size, function: nil), batch: true).get() }
        #expect(throws: PluginLoadError.self) { try check(KeptTables.make(size: 8, function: writes), batch: true).get() }
        let batched = try check(KeptTables.make(size: MemoryLayout<motion_kept>.size, function: writes), batch: true).get()
        #expect(batched.factories.allSatisfy { ($0.kept != nil) == $0.isContinuous })
        #expect(batched.factories.contains { $0.kept != nil })
        // A table from before `write_kept_some` was appended (16 bytes) is accepted.
        #expect(try check(KeptTables.make(size: 16, function: writes), batch: true).get().factories.contains { $0.kept != nil })
        let unbatched = try check(KeptTables.make(size: MemoryLayout<motion_kept>.size, function: writes), batch: false).get()
        #expect(unbatched.factories.allSatisfy { $0.kept == nil }, "without batches the engine never lets a factory keep")
    }

    @Test func identityIsRequired() {
        #expect(reason { $0.id = nil } == "id: missing or empty")
        #expect(reason { $0.version = nil } == "version: missing or empty")
        #expect(reason { $0.id = UnsafePointer(strdup("../evil")) }?.hasPrefix("id: \"../evil\" must be") == true)
    }

    @Test func factoriesMustBeComplete() {
        var factories = Array(UnsafeBufferPointer(
            start: FakePlugin.descriptor.assumingMemoryBound(to: motion_plugin.self).pointee.factories,
            count: Int(FakePlugin.descriptor.assumingMemoryBound(to: motion_plugin.self).pointee.factory_count)))
        let continuous = factories.firstIndex { $0.flags & MOTION_FACTORY_CONTINUOUS != 0 }!
        factories[continuous].advance = nil
        factories.withUnsafeBufferPointer { buffer in
            #expect(reason { $0.factories = buffer.baseAddress } == "factories[\(continuous)].advance: NULL for a continuous factory")
        }
        factories = Array(UnsafeBufferPointer(start: FakePlugin.descriptor.assumingMemoryBound(to: motion_plugin.self).pointee.factories, count: 1))
        factories[0].create = nil
        factories.withUnsafeBufferPointer { buffer in
            #expect(reason { $0.factories = buffer.baseAddress; $0.factory_count = 1 } == "factories[0].create: NULL")
        }
    }
}

@Suite("Plugin registry")
struct PluginRegistryTests {
    private func descriptor(_ file: String) throws -> PluginDescriptor {
        try DescriptorCheck.check(FakePlugin.descriptor, file: file).get()
    }

    @Test func duplicatePlanTypesStayWithTheFirstPluginAndAreReported() throws {
        var first = try descriptor("/a/libfake.so")
        var builder = PluginRegistryBuilder()
        builder.add(first)
        // The same plan types under another plugin id, as a second plugin claiming them would be.
        first = PluginDescriptor(pointer: first.pointer, id: "test.other", version: "2.0.0", buildTag: "c",
                                 file: "/b/libother.so", factories: first.factories, functions: [])
        builder.add(first)
        let registry = builder.freeze()
        #expect(registry.plugins.map(\.plugin.id) == ["test.fake", "test.other"])
        #expect(registry.conflicts.count == FakePlugin.performers.count)
        let conflict = try #require(registry.conflicts.first { $0.planType == "ChangeBoolean" })
        #expect(conflict.keptPlugin == "test.fake" && conflict.keptFile == "/a/libfake.so")
        #expect(conflict.ignoredPlugin == "test.other" && conflict.ignoredFile == "/b/libother.so")
        #expect(registry.factories[registry.factory(forPlanType: "ChangeBoolean")!].pluginID == "test.fake")
    }

    /// `Sequence` and `Group` are the engine's: a plugin claiming one is listed as a conflict, not as
    /// providing a type whose plans never reach it.
    @Test func aBuiltInCompositeTypeIsNotAPluginsToTake() throws {
        let fake = try descriptor("/a/libfake.so")
        let factory = fake.factories[0]
        let claiming = FactoryDescriptor(pointer: factory.pointer, table: factory.table, planType: "Sequence", schema: nil,
                                         isContinuous: factory.isContinuous, batch: nil, yield: nil)
        var builder = PluginRegistryBuilder()
        builder.add(PluginDescriptor(pointer: fake.pointer, id: "test.seq", version: "1.0.0", buildTag: "c", file: "/a/libseq.so",
                                     factories: [claiming], functions: []))
        let registry = builder.freeze()
        #expect(registry.factory(forPlanType: "Sequence") == nil && !registry.planTypes.contains("Sequence"))
        #expect(registry.conflicts == [PluginRegistry.Conflict(planType: "Sequence", keptPlugin: "motiond", keptFile: "built in",
                                                               ignoredPlugin: "test.seq", ignoredFile: "/a/libseq.so")])
    }

    @Test func aSecondPluginWithTheSameIdIsRejected() throws {
        var builder = PluginRegistryBuilder()
        builder.add(try descriptor("/a/libfake.so"))
        builder.add(try descriptor("/b/libfake.so"))
        let registry = builder.freeze()
        #expect(registry.plugins.count == 1)
        #expect(registry.rejected == [PluginLoadError(file: "/b/libfake.so", reason: "id: \"test.fake\" is already loaded from /a/libfake.so")])
    }
}

/// `motion.batch/1` tables for the descriptor checks: a C function cannot capture, so the one under test
/// is a global.
private enum BatchTables {
    nonisolated(unsafe) static var current: UnsafeMutablePointer<motion_batch>?
    nonisolated(unsafe) static let good = make(size: MemoryLayout<motion_batch>.size, function: { _, _, _, _ in })
    nonisolated(unsafe) static let withoutFunction = make(size: MemoryLayout<motion_batch>.size, function: nil)
    nonisolated(unsafe) static let short = make(size: 8, function: { _, _, _, _ in })

    static func make(size: Int, function: (@convention(c) (UnsafePointer<motion_factory>?, UnsafePointer<UnsafeMutableRawPointer?>?, Int, Double) -> Void)?)
        -> UnsafeMutablePointer<motion_batch>
    {
        let table = UnsafeMutablePointer<motion_batch>.allocate(capacity: 1)
        table.initialize(to: motion_batch(struct_size: UInt32(size), reserved: 0, advance_batch: function))
        return table
    }
}

/// `motion.yield/1` tables for the descriptor checks (a global, as for `BatchTables`).
private enum YieldTables {
    nonisolated(unsafe) static var current: UnsafeMutablePointer<motion_yield>?

    static func make(size: Int, function: (@convention(c) (UnsafePointer<motion_factory>?, UnsafeMutableRawPointer?, UInt32) -> Void)?)
        -> UnsafeMutablePointer<motion_yield>
    {
        let table = UnsafeMutablePointer<motion_yield>.allocate(capacity: 1)
        table.initialize(to: motion_yield(struct_size: UInt32(size), reserved: 0, yield_property: function))
        return table
    }
}

/// `motion.kept/1` tables for the descriptor checks (globals, as for `BatchTables`; a batch table of
/// their own, since tests run in parallel).
private enum KeptTables {
    nonisolated(unsafe) static var current: UnsafeMutablePointer<motion_kept>?
    nonisolated(unsafe) static var batch: UnsafeMutablePointer<motion_batch>?

    static func make(size: Int, function: (@convention(c) (UnsafePointer<motion_factory>?, UnsafePointer<motion_host>?) -> Void)?)
        -> UnsafeMutablePointer<motion_kept>
    {
        let table = UnsafeMutablePointer<motion_kept>.allocate(capacity: 1)
        table.initialize(to: motion_kept(struct_size: UInt32(size), reserved: 0, write_kept: function, write_kept_some: nil))
        return table
    }
}
