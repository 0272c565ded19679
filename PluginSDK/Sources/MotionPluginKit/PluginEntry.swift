import MotionPluginAPI
import Synchronization

/// Builds the C descriptor for a Swift plugin, once per process.
public enum PluginEntry {
    private static let descriptors = Mutex<[ObjectIdentifier: UInt]>([:])

    /// The pointer `motion_plugin_entry` returns. Built on first use and kept for the process lifetime.
    public static func descriptor<Plugin: MotionPlugin>(for plugin: Plugin.Type) -> UnsafeRawPointer {
        let address = descriptors.withLock { descriptors in
            if let address = descriptors[ObjectIdentifier(plugin)] { return address }
            let address = UInt(bitPattern: build(plugin))
            descriptors[ObjectIdentifier(plugin)] = address
            return address
        }
        return UnsafeRawPointer(bitPattern: address)!
    }

    private static func build<Plugin: MotionPlugin>(_ plugin: Plugin.Type) -> UnsafeMutablePointer<motion_plugin> {
        let types = Plugin.performers
        let factories = UnsafeMutablePointer<motion_factory>.allocate(capacity: max(types.count, 1))
        for (index, type) in types.enumerated() {
            factories.advanced(by: index).initialize(to: makeFactory(type))
        }
        let descriptor = UnsafeMutablePointer<motion_plugin>.allocate(capacity: 1)
        descriptor.initialize(
            to: motion_plugin(
                magic: MOTION_PLUGIN_MAGIC,
                struct_size: UInt32(MemoryLayout<motion_plugin>.size),
                abi_major: UInt16(MOTION_ABI_MAJOR),
                abi_minor: UInt16(MOTION_ABI_MINOR),
                reserved: 0,
                id: permanentCString(Plugin.id),
                version: permanentCString(Plugin.version),
                build_tag: permanentCString("swift"),
                init: nil,
                deinit: nil,
                factory_count: UInt32(types.count),
                function_count: 0,
                factories: factories,
                functions: nil,
                get_extension: PluginExtensions.lookup(
                    migrate: types.contains { $0 is any MigratablePerformer.Type },
                    batch: types.contains { $0.isContinuous })))
        return descriptor
    }

    private static func makeFactory<P: Performer>(_ type: P.Type) -> motion_factory {
        motion_factory(
            struct_size: UInt32(MemoryLayout<motion_factory>.size),
            flags: P.isContinuous ? MOTION_FACTORY_CONTINUOUS : 0,
            plan_type: permanentCString(P.planType),
            factory_data: Unmanaged.passRetained(FactoryBox(type)).toOpaque(),
            create: { factory, host, ref, target in
                guard let factory, let host, let data = factory.pointee.factory_data else { return nil }
                let box = Unmanaged<FactoryBox>.fromOpaque(data).takeUnretainedValue()
                let context = PerformerContext(host: host, ref: ref)
                let performer = box.make(context, target.map { String(cString: $0) } ?? "")
                return Unmanaged.passRetained(performer).toOpaque()
            },
            destroy: { instance in
                guard let instance else { return }
                Unmanaged<AnyPerformerBox>.fromOpaque(instance).release()
            },
            add_plan: { instance, json, length, error, capacity in
                guard let instance, let json else { return MOTION_ERROR }
                return report(error, capacity) {
                    try box(instance).add(json: UnsafeRawBufferPointer(start: json, count: length))
                }
            },
            add_named_plan: { instance, name, json, length, error, capacity in
                guard let instance, let name, let json else { return MOTION_ERROR }
                return report(error, capacity) {
                    try box(instance).add(
                        json: UnsafeRawBufferPointer(start: json, count: length), named: String(cString: name))
                }
            },
            remove_named_plan: { instance, name in
                guard let instance, let name else { return }
                box(instance).removePlan(named: String(cString: name))
            },
            advance: P.isContinuous
                ? { instance, dt in
                    guard let instance else { return }
                    box(instance).advance(by: dt)
                } : nil,
            plan_schema: P.planSchema.map { permanentCString($0.json) })
    }
}

/// The plugin's `get_extension`: a C function cannot capture which extensions apply, so there is one per
/// set. Every Swift plugin offers "motion.yield/1" (a performer that does not animate ignores it).
enum PluginExtensions {
    typealias Lookup = @convention(c) (UnsafePointer<CChar>?) -> UnsafeRawPointer?

    static func lookup(migrate: Bool, batch: Bool) -> Lookup {
        switch (migrate, batch) {
        case (true, true):
            return { id in
                guard let id else { return nil }
                return PluginExtensions.common(String(cString: id), migrate: true, batch: true)
            }
        case (true, false):
            return { id in
                guard let id else { return nil }
                return PluginExtensions.common(String(cString: id), migrate: true, batch: false)
            }
        case (false, true):
            return { id in
                guard let id else { return nil }
                return PluginExtensions.common(String(cString: id), migrate: false, batch: true)
            }
        case (false, false):
            return { id in
                guard let id else { return nil }
                return PluginExtensions.common(String(cString: id), migrate: false, batch: false)
            }
        }
    }

    static func common(_ name: String, migrate: Bool, batch: Bool) -> UnsafeRawPointer? {
        switch name {
        case MOTION_YIELD_EXTENSION: return UnsafeRawPointer(YieldExtension.table)
        case MOTION_MIGRATE_EXTENSION where migrate: return UnsafeRawPointer(MigrateExtension.table)
        case MOTION_BATCH_EXTENSION where batch: return UnsafeRawPointer(BatchExtension.table)
        case MOTION_KEPT_EXTENSION where batch: return UnsafeRawPointer(BatchExtension.keptTable)
        default: return nil
        }
    }
}

enum YieldExtension {
    /// The table `get_extension("motion.yield/1")` returns, shared by every Swift plugin in the image.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<motion_yield> = {
        let table = UnsafeMutablePointer<motion_yield>.allocate(capacity: 1)
        table.initialize(to: motion_yield(
            struct_size: UInt32(MemoryLayout<motion_yield>.size), reserved: 0,
            yield_property: { _, instance, property in
                guard let instance else { return }
                box(instance).yield(PropertyHandle(rawValue: property))
            }))
        return table
    }()
}

func box(_ instance: UnsafeMutableRawPointer) -> AnyPerformerBox {
    Unmanaged<AnyPerformerBox>.fromOpaque(instance).takeUnretainedValue()
}

/// Runs `body`; on error writes its description into the host's buffer and returns MOTION_ERROR.
func report(_ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return MOTION_OK
    } catch {
        if let buffer, capacity > 0 {
            let message = Array(String(describing: error).utf8.prefix(capacity - 1))
            for (index, byte) in message.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[message.count] = 0
        }
        return MOTION_ERROR
    }
}

/// A C string that lives as long as the process, as descriptor strings must.
private func permanentCString(_ text: String) -> UnsafePointer<CChar> {
    let bytes = Array(text.utf8CString)
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    pointer.initialize(from: bytes, count: bytes.count)
    return UnsafePointer(pointer)
}
