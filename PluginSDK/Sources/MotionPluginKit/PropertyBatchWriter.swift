import MotionPluginAPI

/// Writes many properties with one host call ("motion.properties/1"), or one `write_property` call each
/// on a host without that extension. Get one with `PerformerContext.batchWriter()`.
public struct PropertyBatchWriter {
    let host: UnsafePointer<motion_host>
    let table: UnsafePointer<motion_properties>?
    /// The host's "motion.unread/1", when it has one.
    var unread: UnsafePointer<motion_unread>?

    /// [frame] True while no one will read the values of the advance in progress before the host asks for
    /// them ("motion.unread/1"): a `BatchPerformer` that implements `writeKept(host:)` may keep them.
    public var writesUnread: Bool {
        guard let unread else { return false }
        return unread.pointee.writes_unread(host) != 0
    }

    /// [frame] While `writesUnread`: a byte per property handle, nonzero for a property someone reads
    /// anyway (write it as always); nil when there are none. Valid until the advance returns.
    public var readProperties: UnsafeBufferPointer<UInt8>? {
        guard let read = unread?.pointee.read_properties else { return nil }
        var count = 0
        guard let flags = read(host, &count), count > 0 else { return nil }
        return UnsafeBufferPointer(start: flags, count: count)
    }

    /// [frame] The same properties as a list of handles, in no order; nil when `readProperties` is nil or
    /// the host does not offer the list (then use `readProperties`). Valid until the advance returns.
    public var readPropertyList: UnsafeBufferPointer<UInt32>? {
        guard let unread, Int(unread.pointee.struct_size) >= MemoryLayout<motion_unread>.size,
              let list = unread.pointee.read_property_list else { return nil }
        var count = 0
        guard let handles = list(host, &count) else { return nil }
        return UnsafeBufferPointer(start: handles, count: count)
    }

    /// [control, frame] Entry `i` of `n`: `counts[i]` components of `values + 4i` and `velocities + 4i`
    /// for `handles[i]`. All arrays are borrowed for the call.
    public func write(_ n: Int, handles: UnsafePointer<UInt32>, counts: UnsafePointer<UInt8>, values: UnsafePointer<Double>,
                      velocities: UnsafePointer<Double>) {
        guard n > 0 else { return }
        if let table {
            table.pointee.write_properties(host, handles, counts, values, velocities, n)
            return
        }
        let width = Int(MOTION_MAX_COMPONENTS)
        for entry in 0..<n {
            host.pointee.write_property(host, handles[entry], values + entry * width, velocities + entry * width,
                                        UInt32(counts[entry]))
        }
    }
}

extension PerformerContext {
    /// [control] A writer for this performer's host, looked up once (keep it; use it on the frame path).
    public func batchWriter() -> PropertyBatchWriter {
        let table = host.pointee.get_extension(host, MOTION_PROPERTIES_EXTENSION)?
            .assumingMemoryBound(to: motion_properties.self)
        let usable = table.flatMap { Int($0.pointee.struct_size) >= MemoryLayout<motion_properties>.size ? $0 : nil }
        let unread = host.pointee.get_extension(host, MOTION_UNREAD_EXTENSION)?.assumingMemoryBound(to: motion_unread.self)
        // A table from before `read_property_list` is usable too (`readPropertyList` checks for it).
        let listed = MemoryLayout<motion_unread>.offset(of: \.read_property_list)!
        return PropertyBatchWriter(host: host, table: usable.map { UnsafePointer($0) },
                                   unread: unread.flatMap { Int($0.pointee.struct_size) >= listed ? UnsafePointer($0) : nil })
    }
}
