import MotionJSON
import MotionPluginAPI

/// The C tables a `PluginHarness` hands its plugin: `motion_host` and the extensions it offers
/// ("motion.claim/1"; "motion.plan/1" is `PlanReaderTable`'s). Every callback finds its harness through `host_data`.
enum HostTables {
    static func install(_ owner: PluginHarness) {
        owner.host.initialize(to: motion_host(
            struct_size: UInt32(MemoryLayout<motion_host>.size),
            abi_major: UInt16(MOTION_ABI_MAJOR), abi_minor: UInt16(MOTION_ABI_MINOR),
            host_data: Unmanaged.passUnretained(owner).toOpaque(),
            intern_property: { host, ref, name in
                guard let harness = harness(host), let name else { return MOTION_INVALID_PROPERTY }
                return harness.intern(String(cString: name), for: ref)
            },
            read_property: { host, property, value, velocity, capacity in
                harness(host)?.read(property, value, velocity, Int(capacity)) ?? 0
            },
            write_property: { host, property, value, velocity, count in
                guard let value else { return }
                harness(host)?.write(property, value, velocity, Int(count))
            },
            emit_plan: { host, ref, json, length, error, capacity in
                guard let harness = harness(host), let json else { return MOTION_ERROR }
                return harness.emit(UnsafeRawBufferPointer(start: json, count: length), from: ref) ? MOTION_OK : MOTION_ERROR
            },
            token_generate: { host, ref in harness(host)?.token(for: ref) ?? 0 },
            token_terminate: { host, ref, token in harness(host)?.terminate(token, for: ref) },
            trace: { host, ref, kind, fields in
                guard let kind else { return }
                harness(host)?.trace(String(cString: kind), fields.map { String(cString: $0) }, from: ref)
            },
            log: { host, _, _, message in
                guard let message else { return }
                harness(host)?.log(String(cString: message))
            },
            get_extension: { host, id in
                guard let harness = harness(host), let id else { return nil }
                switch String(cString: id) {
                case MOTION_PLAN_EXTENSION: return UnsafeRawPointer(harness.planReader)
                case MOTION_CLAIM_EXTENSION: return UnsafeRawPointer(harness.claims)
                default: return nil
                }
            }))
        owner.claims.initialize(to: motion_claim(
            struct_size: UInt32(MemoryLayout<motion_claim>.size), reserved: 0,
            claim_property: { host, ref, property in harness(host)?.claim(property, for: ref) }))
    }
}

private func harness(_ host: UnsafePointer<motion_host>?) -> PluginHarness? {
    guard let data = host?.pointee.host_data else { return nil }
    return Unmanaged<PluginHarness>.fromOpaque(data).takeUnretainedValue()
}
