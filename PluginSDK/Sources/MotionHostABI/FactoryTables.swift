import MotionPluginAPI
import MotionSchema

/// A plugin's factories as a host reads them, checked: the array walked with the plugin's own
/// `struct_size` as its stride (a plugin built against an older, smaller header is read where its
/// factories are), members a newer minor version appended read as zero, and the plan schema parsed.
public enum FactoryTables {
    public struct Factory: @unchecked Sendable {
        // @unchecked: immutable plugin-owned memory for the process lifetime, and `table`, when it is a
        // host copy, is never written after it is made and never freed while the factory is in use.
        /// The plugin's own struct: what the host hands back to the plugin (`create`, `advance_batch`, …).
        public let pointer: UnsafePointer<motion_factory>
        /// What the host reads members from: `pointer` itself when the plugin's struct is as large as this
        /// host's, else a copy padded with zeros (NULL), so reading never runs past the plugin's array.
        public let table: UnsafePointer<motion_factory>
        public let planType: String
        public let isContinuous: Bool
        /// The plans it accepts (ABI 1.2 `plan_schema`); nil when it declares none.
        public let schema: JSONSchema?
    }

    /// Why a factory array is not usable; `reason` names the field.
    public struct Failure: Error, Sendable {
        public let reason: String
    }

    /// The smallest factory a host reads: its size in ABI 1.0, pinned in the header (never today's
    /// `MemoryLayout`, which grows with every minor version and would refuse older plugins).
    public static let minimumSize = Int(MOTION_FACTORY_SIZE_1_0)
    /// Factories at least this large carry `plan_schema`.
    public static let schemaSize = Int(MOTION_FACTORY_SIZE_1_2)
    /// Larger than any motion_factory a future minor version could plausibly define: a bigger stride is a
    /// corrupt descriptor, not a newer one.
    public static let maximumSize = 4096

    /// Every factory of `plugin`, or the first problem (padded copies made so far are freed then).
    public static func read(_ plugin: UnsafePointer<motion_plugin>) throws(Failure) -> [Factory] {
        let count = Int(plugin.pointee.factory_count)
        guard count > 0 else { return [] }
        guard let base = plugin.pointee.factories.map(UnsafeRawPointer.init) else { throw Failure(reason: "factories: NULL") }
        let stride = Int(base.loadUnaligned(as: UInt32.self))
        guard stride % MemoryLayout<motion_factory>.alignment == 0, stride <= maximumSize else {
            throw Failure(reason: "factories[0].struct_size: \(stride) is not a size a C compiler gives motion_factory")
        }
        var factories: [Factory] = []
        var copies: [UnsafeMutableRawPointer] = []
        func fail(_ reason: String) -> Failure {
            for copy in copies { copy.deallocate() }
            return Failure(reason: reason)
        }
        for index in 0..<count {
            let raw = base + index * stride
            let field = "factories[\(index)]"
            let size = Int(raw.loadUnaligned(as: UInt32.self))
            guard size >= minimumSize else { throw fail("\(field).struct_size: \(size), expected at least \(minimumSize) (ABI 1.0)") }
            guard size == stride else { throw fail("\(field).struct_size: \(size), but factories[0] has \(stride) (one array, one size)") }
            let pointer = raw.assumingMemoryBound(to: motion_factory.self)
            var table = pointer
            if size < MemoryLayout<motion_factory>.size {
                let copy = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<motion_factory>.size,
                                                            alignment: MemoryLayout<motion_factory>.alignment)
                copy.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<motion_factory>.size)
                copy.copyMemory(from: raw, byteCount: size)
                copies.append(copy)
                table = UnsafePointer(copy.bindMemory(to: motion_factory.self, capacity: 1))
            }
            let factory = table.pointee
            guard let planType = factory.plan_type.map({ String(cString: $0) }), !planType.isEmpty else {
                throw fail("\(field).plan_type: missing or empty")
            }
            guard factory.create != nil else { throw fail("\(field).create: NULL") }
            guard factory.destroy != nil else { throw fail("\(field).destroy: NULL") }
            guard factory.add_plan != nil else { throw fail("\(field).add_plan: NULL") }
            let continuous = factory.flags & MOTION_FACTORY_CONTINUOUS != 0
            guard !continuous || factory.advance != nil else { throw fail("\(field).advance: NULL for a continuous factory") }
            var schema: JSONSchema?
            if size >= schemaSize, let text = factory.plan_schema.map({ String(cString: $0) }) {
                do throws(JSONSchema.Invalid) {
                    schema = try JSONSchema.plan(parsing: text)
                } catch {
                    throw fail("\(field).plan_schema (\(planType)): \(error.message)")
                }
            }
            factories.append(Factory(pointer: pointer, table: table, planType: planType, isContinuous: continuous, schema: schema))
        }
        return factories
    }
}
