import MotionEngine
import MotionPluginAPI
import MotionWire

/// An in-process plugin the validator uses to test claim and yield: its one plan type,
/// `motiond.validate.Claim {property}`, claims the property ("motion.claim/1") and writes nothing.
enum ClaimingPlugin {
    static let planType = "motiond.validate.Claim"

    private final class Instance {
        let host: UnsafePointer<motion_host>
        let ref: UInt64
        init(host: UnsafePointer<motion_host>, ref: UInt64) {
            self.host = host
            self.ref = ref
        }
    }

    /// The descriptor, built once and kept for the process lifetime like any plugin's.
    nonisolated(unsafe) static let descriptor: UnsafePointer<motion_plugin> = {
        let factory = UnsafeMutablePointer<motion_factory>.allocate(capacity: 1)
        factory.initialize(to: motion_factory(
            struct_size: UInt32(MemoryLayout<motion_factory>.size), flags: 0,
            plan_type: permanent(planType), factory_data: nil,
            create: { _, host, ref, _ in
                guard let host else { return nil }
                return Unmanaged.passRetained(Instance(host: host, ref: ref)).toOpaque()
            },
            destroy: { instance in
                guard let instance else { return }
                Unmanaged<Instance>.fromOpaque(instance).release()
            },
            add_plan: { instance, json, length, _, _ in
                guard let instance, let json else { return MOTION_ERROR }
                let me = Unmanaged<Instance>.fromOpaque(instance).takeUnretainedValue()
                let bytes = UnsafeRawBufferPointer(start: json, count: length)
                guard let plan = try? JSONValue.parse(bytes), let property = plan["property"]?.stringValue,
                      let claim = me.host.pointee.get_extension(me.host, MOTION_CLAIM_EXTENSION)?
                        .assumingMemoryBound(to: motion_claim.self)
                else { return MOTION_ERROR }
                let handle = property.withCString { me.host.pointee.intern_property(me.host, me.ref, $0) }
                claim.pointee.claim_property(me.host, me.ref, handle)
                return MOTION_OK
            },
            add_named_plan: nil, remove_named_plan: nil, advance: nil, plan_schema: nil))
        let plugin = UnsafeMutablePointer<motion_plugin>.allocate(capacity: 1)
        plugin.initialize(to: motion_plugin(
            magic: MOTION_PLUGIN_MAGIC, struct_size: UInt32(MemoryLayout<motion_plugin>.size),
            abi_major: UInt16(MOTION_ABI_MAJOR), abi_minor: UInt16(MOTION_ABI_MINOR), reserved: 0,
            id: permanent("org.motiond.validate"), version: permanent("1"), build_tag: permanent("swift"),
            init: nil, deinit: nil, factory_count: 1, function_count: 0, factories: factory, functions: nil,
            get_extension: nil))
        return UnsafePointer(plugin)
    }()

    private static func permanent(_ text: String) -> UnsafePointer<CChar> {
        let bytes = Array(text.utf8CString)
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        pointer.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(pointer)
    }
}
