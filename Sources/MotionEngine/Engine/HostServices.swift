import Logging
import MotionHostABI
import MotionPluginAPI
import MotionWire

/// The `motion_host` table handed to plugins, and the bridge from its C callbacks to the engine.
///
/// Created before plugins load (their `init` receives it) and attached to the engine once the registry
/// is frozen. Callbacks arrive on the engine thread only, from inside calls the engine made.
package final class HostServices: PlanNodesOwner {
    package let pointer: UnsafeMutablePointer<motion_host>
    /// The same host (same calls, same services) at another address, given to the performers of dry runs
    /// (`plan.sample`, replays): plugins that keep state per host (the shipped animations' lanes, keyed by
    /// `PerformerContext.hostIdentity`) keep theirs apart, so the clock's batches hold every owner of the
    /// live lanes (sharing them, a dry run made every tick step 100,000 live springs one list at a time).
    package let dryRunPointer: UnsafeMutablePointer<motion_host>
    let logger: Logger
    /// Set by the engine for its lifetime. `unowned(unsafe)` keeps the frame-path callbacks free of
    /// reference counting; the engine clears it in `deinit`.
    unowned(unsafe) var engine: Engine?

    package init(logger: Logger) {
        self.logger = logger
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: motion_host(
            struct_size: UInt32(MemoryLayout<motion_host>.size),
            abi_major: UInt16(MOTION_ABI_MAJOR), abi_minor: UInt16(MOTION_ABI_MINOR),
            host_data: nil,
            intern_property: { host, ref, name in
                guard let engine = services(host)?.engine, let name else { return MOTION_INVALID_PROPERTY }
                return engine.internProperty(String(cString: name), for: ref)
            },
            read_property: { host, property, value, velocity, capacity in
                guard let engine = services(host)?.engine else { return 0 }
                return UInt32(engine.store.read(property, value: value, velocity: velocity, capacity: Int(capacity)))
            },
            write_property: { host, property, value, velocity, count in
                guard let engine = services(host)?.engine, let value else { return }
                engine.store.write(property, value: value, velocity: velocity, count: Int(count))
            },
            emit_plan: { host, ref, json, length, errorBuffer, capacity in
                guard let engine = services(host)?.engine, let json,
                    let performer = engine.performer(calling: ref)
                else { return MOTION_ERROR }
                do throws(EngineError) {
                    try engine.emitPlan(UnsafeRawBufferPointer(start: json, count: length), from: performer)
                    return MOTION_OK
                } catch {
                    copy(error.message, into: errorBuffer, capacity: capacity)
                    return MOTION_ERROR
                }
            },
            token_generate: { host, ref in
                services(host)?.engine?.generateToken(for: ref) ?? 0
            },
            token_terminate: { host, ref, token in
                services(host)?.engine?.terminateToken(token, for: ref)
            },
            trace: { host, ref, kind, fields in
                guard let engine = services(host)?.engine, let kind else { return }
                engine.pluginTrace(kind: String(cString: kind), fieldsJSON: fields.map { String(cString: $0) }, from: ref)
            },
            log: { host, ref, level, message in
                guard let services = services(host), let message else { return }
                services.log(level: level, message: String(cString: message), performer: ref)
            },
            get_extension: { host, id in
                guard let services = services(host), let id else { return nil }
                switch String(cString: id) {
                case MOTION_CURVES_EXTENSION: return UnsafeRawPointer(services.curves)
                case MOTION_PROPERTIES_EXTENSION: return UnsafeRawPointer(services.properties)
                case MOTION_CLAIM_EXTENSION: return UnsafeRawPointer(services.claims)
                case MOTION_PLAN_EXTENSION: return UnsafeRawPointer(services.planReader)
                case MOTION_GESTURE_EXTENSION: return UnsafeRawPointer(services.gestures)
                case MOTION_UNREAD_EXTENSION: return UnsafeRawPointer(services.unread)
                default: return nil
                }
            }))
        dryRunPointer = .allocate(capacity: 1)
        pointer.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        dryRunPointer.initialize(to: pointer.pointee)
        curves.initialize(to: motion_curves(
            struct_size: UInt32(MemoryLayout<motion_curves>.size), reserved: 0,
            bind: { host, name, arguments, count, errorBuffer, capacity in
                guard let engine = services(host)?.engine, let name else { return 0 }
                let values = arguments.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
                do throws(EngineError) {
                    return try engine.curves.bind(String(cString: name), arguments: values)
                } catch {
                    copy(error.message, into: errorBuffer, capacity: capacity)
                    return 0
                }
            },
            evaluate: { host, curve, t in
                services(host)?.engine?.curves.evaluate(curve, at: t) ?? t
            },
            release: { host, curve in
                services(host)?.engine?.curves.release(curve)
            }))
    }

    /// The "motion.plan/1" extension: the plan being handed to a plugin, as typed values.
    package let plans = PlanNodes()
    let planReader = PlanReaderTable.make()

    /// The services behind a host pointer a plugin passed back.
    static func from(_ host: UnsafePointer<motion_host>?) -> HostServices? { services(host) }

    /// The "motion.curves/1" extension table.
    let curves = UnsafeMutablePointer<motion_curves>.allocate(capacity: 1)
    /// The "motion.properties/1" extension table.
    let properties: UnsafeMutablePointer<motion_properties> = {
        let table = UnsafeMutablePointer<motion_properties>.allocate(capacity: 1)
        table.initialize(to: motion_properties(
            struct_size: UInt32(MemoryLayout<motion_properties>.size), reserved: 0,
            write_properties: { host, handles, counts, values, velocities, n in
                guard let engine = services(host)?.engine, let handles, let counts, let values, n > 0 else { return }
                engine.store.write(n, handles: handles, counts: counts, values: values, velocities: velocities)
            }))
        return table
    }()

    /// The "motion.unread/1" extension table: whether the advance in progress may keep its values.
    let unread: UnsafeMutablePointer<motion_unread> = {
        let table = UnsafeMutablePointer<motion_unread>.allocate(capacity: 1)
        table.initialize(to: motion_unread(
            struct_size: UInt32(MemoryLayout<motion_unread>.size), reserved: 0,
            writes_unread: { host in services(host)?.engine?.unread.isKeepingWrites == true ? 1 : 0 },
            read_properties: { host, count in
                guard let engine = services(host)?.engine, engine.unread.isKeepingWrites, let flags = engine.unread.readProperties,
                    let base = flags.baseAddress
                else {
                    count?.pointee = 0
                    return nil
                }
                count?.pointee = flags.count
                return base
            },
            read_property_list: { host, count in
                guard let engine = services(host)?.engine, engine.unread.isKeepingWrites, engine.unread.readProperties != nil,
                    let list = engine.unread.readPropertyList
                else {
                    count?.pointee = 0
                    return nil
                }
                count?.pointee = list.count
                // A list with nothing in it is still a list (not NULL: "not offered").
                return list.baseAddress ?? UnsafePointer(bitPattern: 8)
            }))
        return table
    }()

    /// The "motion.claim/1" extension table.
    let claims: UnsafeMutablePointer<motion_claim> = {
        let table = UnsafeMutablePointer<motion_claim>.allocate(capacity: 1)
        table.initialize(to: motion_claim(
            struct_size: UInt32(MemoryLayout<motion_claim>.size), reserved: 0,
            claim_property: { host, ref, property in
                services(host)?.engine?.claimProperty(property, for: ref)
            }))
        return table
    }()

    let gestures: UnsafeMutablePointer<motion_gesture> = {
        let table = UnsafeMutablePointer<motion_gesture>.allocate(capacity: 1)
        table.initialize(to: motion_gesture(
            struct_size: UInt32(MemoryLayout<motion_gesture>.size), reserved: 0,
            intern_gesture: { host, ref, name in
                guard let engine = services(host)?.engine, let name else { return MOTION_INVALID_GESTURE }
                return engine.gestures.internGesture(String(cString: name), for: ref)
            },
            read_gesture: { host, ref, gesture, state, size in
                guard let engine = services(host)?.engine, let state, size >= MemoryLayout<motion_gesture_state>.size else {
                    return MOTION_ERROR
                }
                return engine.gestures.readGesture(gesture, for: ref, into: state) ? MOTION_OK : MOTION_ERROR
            }))
        return table
    }()

    deinit {
        gestures.deinitialize(count: 1)
        gestures.deallocate()
        planReader.deinitialize(count: 1)
        planReader.deallocate()
        claims.deinitialize(count: 1)
        claims.deallocate()
        pointer.deinitialize(count: 1)
        pointer.deallocate()
        dryRunPointer.deinitialize(count: 1)
        dryRunPointer.deallocate()
        curves.deinitialize(count: 1)
        curves.deallocate()
        properties.deinitialize(count: 1)
        properties.deallocate()
    }

    /// While a plugin's `init` runs (`PluginLoader`), the lines it logs: the last one is its reason if it
    /// fails. Nil otherwise.
    package var initMessages: [String]?

    func log(level: Int32, message: String, performer: UInt64) {
        if initMessages != nil { initMessages = Array((initMessages! + [String(message.prefix(300))]).suffix(4)) }
        let plugin = engine?.performers[performer]?.pluginID ?? "-"
        let metadata: Logger.Metadata = ["plugin": "\(plugin)", "performer": "\(performer)"]
        switch level {
        case ...MOTION_LOG_ERROR: logger.error("\(message)", metadata: metadata)
        case MOTION_LOG_WARNING: logger.warning("\(message)", metadata: metadata)
        case MOTION_LOG_INFO, MOTION_LOG_INFO - 1: logger.info("\(message)", metadata: metadata)
        default: logger.debug("\(message)", metadata: metadata)
        }
    }
}

private func services(_ host: UnsafePointer<motion_host>?) -> HostServices? {
    guard let data = host?.pointee.host_data else { return nil }
    return Unmanaged<HostServices>.fromOpaque(data).takeUnretainedValue()
}

private func copy(_ message: String, into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    let bytes = Array(message.utf8.prefix(capacity - 1))
    for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}
