import MotionPluginAPI
import MotionHostABI
import MotionSchema

/// Validates a plugin descriptor before anything in it is called: magic first, then size and version,
/// then identity and factories. Every error names the field that differs.
package enum DescriptorCheck {
    package static let hostMajor = UInt16(MOTION_ABI_MAJOR)
    package static let hostMinor = UInt16(MOTION_ABI_MINOR)

    /// The smallest descriptors this host reads: their sizes in ABI 1.0, pinned in the header (never
    /// today's `MemoryLayout`, which grows with every minor version and would refuse older plugins).
    static let minimumPluginSize = Int(MOTION_PLUGIN_SIZE_1_0)

    package static func check(_ raw: UnsafeRawPointer, file: String) -> Result<PluginDescriptor, PluginLoadError> {
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
        let kept: UnsafePointer<motion_kept>?
        do throws(ExtensionError) {
            // A table must reach the members this host calls, no further: members a later header appends
            // to a table of the same id leave the older plugins' tables valid.
            batch = try extensionTable(plugin, MOTION_BATCH_EXTENSION, function: "advance_batch",
                                       minimumSize: reaching(\motion_batch.advance_batch)) { $0.pointee.advance_batch != nil }
            yield = try extensionTable(plugin, MOTION_YIELD_EXTENSION, function: "yield_property",
                                       minimumSize: reaching(\motion_yield.yield_property)) { $0.pointee.yield_property != nil }
            // Tables from before `write_kept_some` was appended are accepted (`Engine.writeKeptValues(of:)`).
            kept = try extensionTable(plugin, MOTION_KEPT_EXTENSION, function: "write_kept",
                                      minimumSize: MemoryLayout<motion_kept>.offset(of: \.write_kept_some)!) { $0.pointee.write_kept != nil }
        } catch {
            return fail(error.reason)
        }
        let functionCount = Int(plugin.pointee.function_count)
        guard functionCount == 0 || plugin.pointee.functions != nil else { return fail("functions: NULL") }
        var functions: [FunctionDescriptor] = []
        for index in 0..<functionCount {
            let function = plugin.pointee.functions! + index
            guard let name = string(function.pointee.name), !name.isEmpty else {
                return fail("functions[\(index)].name: missing or empty")
            }
            guard let signature = string(function.pointee.signature), let address = function.pointee.function else {
                return fail("functions[\(index)]: signature or function missing")
            }
            functions.append(FunctionDescriptor(name: name, signature: signature,
                                                address: UInt(bitPattern: unsafeBitCast(address, to: Int.self))))
        }
        // Last, as it may make host copies of older (smaller) factory structs.
        let factories: [FactoryDescriptor]
        do throws(FactoryTables.Failure) {
            factories = try FactoryTables.read(UnsafePointer(plugin)).map { factory in
                FactoryDescriptor(pointer: factory.pointer, table: factory.table, planType: factory.planType, schema: factory.schema,
                                  isContinuous: factory.isContinuous, batch: factory.isContinuous ? batch : nil, yield: yield,
                                  kept: factory.isContinuous && batch != nil ? kept : nil)
            }
        } catch {
            return fail(error.reason)
        }
        return .success(
            PluginDescriptor(
                pointer: UnsafePointer(plugin), id: id, version: version, buildTag: buildTag, file: file,
                factories: factories, functions: functions))
    }

    /// The size of a table that ends with `member`.
    static func reaching<Table, Member>(_ member: KeyPath<Table, Member>) -> Int {
        MemoryLayout<Table>.offset(of: member)! + MemoryLayout<Member>.size
    }

    private struct ExtensionError: Error {
        let reason: String
    }

    /// The plugin's table for extension `id`: nil when it has none; an error naming the field when the
    /// table is smaller than this host's or its function is NULL.
    private static func extensionTable<Table>(_ plugin: UnsafePointer<motion_plugin>, _ id: String, function: String,
                                              minimumSize: Int,
                                              isComplete: (UnsafePointer<Table>) -> Bool) throws(ExtensionError) -> UnsafePointer<Table>? {
        guard let lookup = plugin.pointee.get_extension, let raw = lookup(id) else { return nil }
        // Every extension table starts with its uint32_t struct_size.
        let size = raw.loadUnaligned(as: UInt32.self)
        guard Int(size) >= minimumSize else {
            throw ExtensionError(reason: "\(id).struct_size: \(size), expected at least \(minimumSize)")
        }
        let table = raw.assumingMemoryBound(to: Table.self)
        // Through the pointer: a table may be shorter than `Table` (down to `minimumSize`).
        guard isComplete(table) else { throw ExtensionError(reason: "\(id).\(function): NULL") }
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
package struct PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    package var file: String
    package var reason: String

    package init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    package var description: String { "\(file): \(reason)" }
}
