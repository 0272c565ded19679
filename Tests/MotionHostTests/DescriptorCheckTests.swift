@testable import MotionHost
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
        #expect(reason { $0.abi_major = 2 } == "abi_major: plugin is built for ABI 2.1, this host speaks 1.1")
    }

    @Test func newerMinorVersionIsRefused() {
        #expect(reason { $0.abi_minor = 3 } == "abi_minor: plugin needs ABI 1.3, this host provides 1.1")
    }

    @Test func shortDescriptorIsRefused() {
        #expect(reason { $0.struct_size = 40 }?.hasPrefix("struct_size: 40 is smaller") == true)
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

    @Test func aSecondPluginWithTheSameIdIsRejected() throws {
        var builder = PluginRegistryBuilder()
        builder.add(try descriptor("/a/libfake.so"))
        builder.add(try descriptor("/b/libfake.so"))
        let registry = builder.freeze()
        #expect(registry.plugins.count == 1)
        #expect(registry.rejected == [PluginLoadError(file: "/b/libfake.so", reason: "id: \"test.fake\" is already loaded from /a/libfake.so")])
    }
}
