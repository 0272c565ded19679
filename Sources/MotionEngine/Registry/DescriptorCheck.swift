import MotionPluginAPI
import MotionSchema

/// Validates a plugin descriptor before anything in it is called: magic first, then size and version,
/// then identity and factories. Every error names the field that differs.
public enum DescriptorCheck {
    public static let hostMajor = UInt16(MOTION_ABI_MAJOR)
    public static let hostMinor = UInt16(MOTION_ABI_MINOR)

    /// The smallest descriptors this host reads: their sizes in ABI 1.0, pinned in the header (never
    /// today's `MemoryLayout`, which grows with every minor version and would refuse older plugins).
    static let minimumPluginSize = Int(MOTION_PLUGIN_SIZE_1_0)
    static let minimumFactorySize = Int(MOTION_FACTORY_SIZE_1_0)
    /// Factories at least this large carry `plan_schema`.
    static let schemaFactorySize = Int(MOTION_FACTORY_SIZE_1_2)
    /// Larger than any motion_factory a future minor version could plausibly define: a bigger stride is a
    /// corrupt descriptor, not a newer one.
    static let maximumFactorySize = 4096

    public static func check(_ raw: UnsafeRawPointer, file: String) -> Result<PluginDescriptor, PluginLoadError> {
        func fail(_ reason: String) -> Result<PluginDescriptor, PluginLoadError> {
            .failure(PluginLoadError(file: file, reason: reason))
        }
        let magic = raw.loadUnaligned(as: UInt32.self)
        guard magic == MOTION_PLUGIN_MAGIC else {
            return fail("magic: expected \(hex(MOTION_PLUGIN_MAGIC)), found \(hex(magic))")
        }
        let size = raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        let major = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
        let minor = raw.loadUnaligned(fromByteOffset: 10, as: UInt16.self)
        guard major == hostMajor else {
            return fail("abi_major: plugin is built for ABI \(major).\(minor), this host speaks \(hostMajor).\(hostMinor)")
        }
        guard minor <= hostMinor else {
            return fail("abi_minor: plugin needs ABI \(major).\(minor), this host provides \(hostMajor).\(hostMinor)")
        }
        guard Int(size) >= minimumPluginSize else {
            return fail("struct_size: \(size) is smaller than an ABI 1.0 descriptor (\(minimumPluginSize))")
        }
        let plugin = raw.assumingMemoryBound(to: motion_plugin.self)
        guard let id = string(plugin.pointee.id), !id.isEmpty else { return fail("id: missing or empty") }
        guard isValidID(id) else { return fail("id: \"\(id)\" must be letters, digits, '.', '-' or '_'") }
        guard let version = string(plugin.pointee.version), !version.isEmpty else {
            return fail("version: missing or empty")
        }
        let buildTag = string(plugin.pointee.build_tag) ?? ""
        let factoryCount = Int(plugin.pointee.factory_count)
        guard factoryCount == 0 || plugin.pointee.factories != nil else { return fail("factories: NULL") }
        let batch: UnsafePointer<motion_batch>?
        let yield: UnsafePointer<motion_yield>?
        do throws(ExtensionError) {
            batch = try extensionTable(plugin, MOTION_BATCH_EXTENSION, function: "advance_batch") { $0.advance_batch != nil }
            yield = try extensionTable(plugin, MOTION_YIELD_EXTENSION, function: "yield_property") { $0.yield_property != nil }
        } catch {
            return fail(error.reason)
        }
        var factories: [FactoryDescriptor] = []
        // The array's stride is the plugin's sizeof(motion_factory), which its first struct_size gives:
        // a plugin built against an older (smaller) header is walked with its own size, not this host's.
        let stride = factoryCount > 0 ? Int(UnsafeRawPointer(plugin.pointee.factories!).loadUnaligned(as: UInt32.self)) : 0
        guard factoryCount == 0 || (stride % MemoryLayout<motion_factory>.alignment == 0 && stride <= maximumFactorySize) else {
            return fail("factories[0].struct_size: \(stride) is not a size a C compiler gives motion_factory")
        }
        var copies: [UnsafePointer<motion_factory>] = []
        func reject(_ reason: String) -> Result<PluginDescriptor, PluginLoadError> {
            for copy in copies { UnsafeMutableRawPointer(mutating: copy).deallocate() }
            return fail(reason)
        }
        for index in 0..<factoryCount {
            let raw = UnsafeRawPointer(plugin.pointee.factories!) + index * stride
            let field = "factories[\(index)]"
            let size = Int(raw.loadUnaligned(as: UInt32.self))
            guard size >= minimumFactorySize else {
                return reject("\(field).struct_size: \(size), expected at least \(minimumFactorySize) (ABI 1.0)")
            }
            guard size == stride else {
                return reject("\(field).struct_size: \(size), but factories[0] has \(stride) (one array, one size)")
            }
            let pointer = raw.assumingMemoryBound(to: motion_factory.self)
            var table = pointer
            if size < MemoryLayout<motion_factory>.size {
                table = paddedCopy(of: raw, size: size)
                copies.append(table)
            }
            let factory = table.pointee
            guard let planType = string(factory.plan_type), !planType.isEmpty else {
                return reject("\(field).plan_type: missing or empty")
            }
            guard factory.create != nil else { return reject("\(field).create: NULL") }
            guard factory.destroy != nil else { return reject("\(field).destroy: NULL") }
            guard factory.add_plan != nil else { return reject("\(field).add_plan: NULL") }
            let continuous = factory.flags & MOTION_FACTORY_CONTINUOUS != 0
            guard !continuous || factory.advance != nil else {
                return reject("\(field).advance: NULL for a continuous factory")
            }
            var schema: JSONSchema?
            if size >= schemaFactorySize, let text = string(factory.plan_schema) {
                do throws(JSONSchema.Invalid) {
                    schema = try JSONSchema.plan(parsing: text)
                } catch {
                    return reject("\(field).plan_schema (\(planType)): \(error.message)")
                }
            }
            factories.append(FactoryDescriptor(pointer: pointer, table: table, planType: planType, schema: schema,
                                               isContinuous: continuous, batch: continuous ? batch : nil, yield: yield))
        }
        let functionCount = Int(plugin.pointee.function_count)
        guard functionCount == 0 || plugin.pointee.functions != nil else { return reject("functions: NULL") }
        var functions: [FunctionDescriptor] = []
        for index in 0..<functionCount {
            let function = plugin.pointee.functions! + index
            guard let name = string(function.pointee.name), !name.isEmpty else {
                return reject("functions[\(index)].name: missing or empty")
            }
            guard let signature = string(function.pointee.signature), let address = function.pointee.function else {
                return reject("functions[\(index)]: signature or function missing")
            }
            functions.append(FunctionDescriptor(name: name, signature: signature,
                                                address: UInt(bitPattern: unsafeBitCast(address, to: Int.self))))
        }
        return .success(
            PluginDescriptor(
                pointer: UnsafePointer(plugin), id: id, version: version, buildTag: buildTag, file: file,
                factories: factories, functions: functions))
    }

    /// A host-owned copy of a factory struct smaller than this host's, with the newer members zeroed.
    /// Kept for the process lifetime, like the plugin's own.
    private static func paddedCopy(of raw: UnsafeRawPointer, size: Int) -> UnsafePointer<motion_factory> {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<motion_factory>.size,
                                                    alignment: MemoryLayout<motion_factory>.alignment)
        copy.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<motion_factory>.size)
        copy.copyMemory(from: raw, byteCount: size)
        return UnsafePointer(copy.bindMemory(to: motion_factory.self, capacity: 1))
    }

    private struct ExtensionError: Error {
        let reason: String
    }

    /// The plugin's table for extension `id`: nil when it has none; an error naming the field when the
    /// table is smaller than this host's or its function is NULL.
    private static func extensionTable<Table>(_ plugin: UnsafePointer<motion_plugin>, _ id: String, function: String,
                                              isComplete: (Table) -> Bool) throws(ExtensionError) -> UnsafePointer<Table>? {
        guard let lookup = plugin.pointee.get_extension, let raw = lookup(id) else { return nil }
        // Every extension table starts with its uint32_t struct_size.
        let size = raw.loadUnaligned(as: UInt32.self)
        guard Int(size) >= MemoryLayout<Table>.size else {
            throw ExtensionError(reason: "\(id).struct_size: \(size), expected at least \(MemoryLayout<Table>.size)")
        }
        let table = raw.assumingMemoryBound(to: Table.self)
        guard isComplete(table.pointee) else { throw ExtensionError(reason: "\(id).\(function): NULL") }
        return table
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func isValidID(_ id: String) -> Bool {
        id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// Why a plugin file was not used.
public struct PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reason)" }
}
