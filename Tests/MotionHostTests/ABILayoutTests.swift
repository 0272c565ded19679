import MotionPluginAPI
import Testing

/// Pins ABI v1.2 on LP64 Linux (1.1 added the batch and properties extensions; the claim and yield
/// extensions came later, negotiated by id alone; 1.2 appended `motion_factory.plan_schema`). A change here is an ABI break: bump MOTION_ABI_MAJOR, or append members
/// and bump the minor version instead.
@Suite("Plugin ABI layout")
struct ABILayoutTests {
    @Test func constants() {
        #expect(MOTION_PLUGIN_MAGIC == 0x4E54_4F4D)
        #expect(MOTION_ABI_MAJOR == 1)
        #expect(MOTION_ABI_MINOR == 2)
        #expect(MOTION_INVALID_PROPERTY == UInt32.max)
        withUnsafeBytes(of: MOTION_PLUGIN_MAGIC.littleEndian) { #expect(Array($0) == Array("MOTN".utf8)) }
    }

    @Test func pluginDescriptor() {
        typealias S = motion_plugin
        #expect(MemoryLayout<S>.size == 88)
        #expect(MemoryLayout<S>.offset(of: \.magic) == 0)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 4)
        #expect(MemoryLayout<S>.offset(of: \.abi_major) == 8)
        #expect(MemoryLayout<S>.offset(of: \.abi_minor) == 10)
        #expect(MemoryLayout<S>.offset(of: \.id) == 16)
        #expect(MemoryLayout<S>.offset(of: \.version) == 24)
        #expect(MemoryLayout<S>.offset(of: \.build_tag) == 32)
        #expect(MemoryLayout<S>.offset(of: \.`init`) == 40)
        #expect(MemoryLayout<S>.offset(of: \.deinit) == 48)
        #expect(MemoryLayout<S>.offset(of: \.factory_count) == 56)
        #expect(MemoryLayout<S>.offset(of: \.function_count) == 60)
        #expect(MemoryLayout<S>.offset(of: \.factories) == 64)
        #expect(MemoryLayout<S>.offset(of: \.functions) == 72)
        #expect(MemoryLayout<S>.offset(of: \.get_extension) == 80)
    }

    @Test func factory() {
        typealias S = motion_factory
        #expect(MemoryLayout<S>.size == 80)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 0)
        #expect(MemoryLayout<S>.offset(of: \.flags) == 4)
        #expect(MemoryLayout<S>.offset(of: \.plan_type) == 8)
        #expect(MemoryLayout<S>.offset(of: \.factory_data) == 16)
        #expect(MemoryLayout<S>.offset(of: \.create) == 24)
        #expect(MemoryLayout<S>.offset(of: \.destroy) == 32)
        #expect(MemoryLayout<S>.offset(of: \.add_plan) == 40)
        #expect(MemoryLayout<S>.offset(of: \.add_named_plan) == 48)
        #expect(MemoryLayout<S>.offset(of: \.remove_named_plan) == 56)
        #expect(MemoryLayout<S>.offset(of: \.advance) == 64)
        #expect(MemoryLayout<S>.offset(of: \.plan_schema) == 72)  // ABI 1.2
    }

    @Test func hostServices() {
        typealias S = motion_host
        #expect(MemoryLayout<S>.size == 88)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 0)
        #expect(MemoryLayout<S>.offset(of: \.abi_major) == 4)
        #expect(MemoryLayout<S>.offset(of: \.abi_minor) == 6)
        #expect(MemoryLayout<S>.offset(of: \.host_data) == 8)
        #expect(MemoryLayout<S>.offset(of: \.intern_property) == 16)
        #expect(MemoryLayout<S>.offset(of: \.read_property) == 24)
        #expect(MemoryLayout<S>.offset(of: \.write_property) == 32)
        #expect(MemoryLayout<S>.offset(of: \.emit_plan) == 40)
        #expect(MemoryLayout<S>.offset(of: \.token_generate) == 48)
        #expect(MemoryLayout<S>.offset(of: \.token_terminate) == 56)
        #expect(MemoryLayout<S>.offset(of: \.trace) == 64)
        #expect(MemoryLayout<S>.offset(of: \.log) == 72)
        #expect(MemoryLayout<S>.offset(of: \.get_extension) == 80)
    }

    @Test func curvesExtension() {
        typealias S = motion_curves
        #expect(MOTION_CURVES_EXTENSION == "motion.curves/1")
        #expect(MemoryLayout<S>.size == 32)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 0)
        #expect(MemoryLayout<S>.offset(of: \.bind) == 8)
        #expect(MemoryLayout<S>.offset(of: \.evaluate) == 16)
        #expect(MemoryLayout<S>.offset(of: \.release) == 24)
    }

    @Test func migrateExtension() {
        typealias S = motion_migrate
        #expect(MOTION_MIGRATE_EXTENSION == "motion.migrate/1")
        #expect(MemoryLayout<S>.size == 24)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 0)
        #expect(MemoryLayout<S>.offset(of: \.export_state) == 8)
        #expect(MemoryLayout<S>.offset(of: \.import_state) == 16)
    }

    @Test func batchExtension() {
        typealias S = motion_batch
        #expect(MOTION_BATCH_EXTENSION == "motion.batch/1")
        #expect(MemoryLayout<S>.size == 16)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 0)
        #expect(MemoryLayout<S>.offset(of: \.advance_batch) == 8)
    }

    @Test func propertiesExtension() {
        typealias S = motion_properties
        #expect(MOTION_PROPERTIES_EXTENSION == "motion.properties/1")
        #expect(MemoryLayout<S>.size == 16)
        #expect(MemoryLayout<S>.offset(of: \.struct_size) == 0)
        #expect(MemoryLayout<S>.offset(of: \.write_properties) == 8)
    }

    @Test func claimAndYieldExtensions() {
        #expect(MOTION_CLAIM_EXTENSION == "motion.claim/1")
        #expect(MemoryLayout<motion_claim>.size == 16)
        #expect(MemoryLayout<motion_claim>.offset(of: \.claim_property) == 8)
        #expect(MOTION_YIELD_EXTENSION == "motion.yield/1")
        #expect(MemoryLayout<motion_yield>.size == 16)
        #expect(MemoryLayout<motion_yield>.offset(of: \.yield_property) == 8)
    }

    @Test func unreadAndKeptExtensions() {
        #expect(MOTION_UNREAD_EXTENSION == "motion.unread/1")
        #expect(MemoryLayout<motion_unread>.size == 32)
        #expect(MemoryLayout<motion_unread>.offset(of: \.writes_unread) == 8)
        #expect(MemoryLayout<motion_unread>.offset(of: \.read_properties) == 16)
        #expect(MemoryLayout<motion_unread>.offset(of: \.read_property_list) == 24)
        #expect(MOTION_KEPT_EXTENSION == "motion.kept/1")
        #expect(MemoryLayout<motion_kept>.size == 24)
        #expect(MemoryLayout<motion_kept>.offset(of: \.write_kept) == 8)
        #expect(MemoryLayout<motion_kept>.offset(of: \.write_kept_some) == 16)
    }

    @Test func function() {
        typealias S = motion_function
        #expect(MemoryLayout<S>.size == 24)
        #expect(MemoryLayout<S>.offset(of: \.name) == 0)
        #expect(MemoryLayout<S>.offset(of: \.signature) == 8)
        #expect(MemoryLayout<S>.offset(of: \.function) == 16)
    }
}
