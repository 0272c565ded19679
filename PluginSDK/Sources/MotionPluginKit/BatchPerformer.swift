import MotionPluginAPI

/// A performer type that advances all of its running instances in one call ("motion.batch/1"), so it can
/// keep their state in contiguous storage and step it in one loop instead of one call per performer.
public protocol BatchPerformer: Performer {
    /// [frame] Advances `performers` by `dt`: the same as calling `advance(by:)` on each of them in turn.
    /// Every one holds at least one token and appears once; all belong to one host.
    static func advance(_ performers: PerformerBatch<Self>, by dt: Double)
    /// [control, frame] Writes every value that this type's performers of the host `host`
    /// (`PerformerContext.hostIdentity`) kept instead of writing ("motion.kept/1"): a batch may keep them
    /// while `PropertyBatchWriter.writesUnread` is true, and must then write each one when its animation
    /// ends. The default keeps nothing, so writes nothing.
    static func writeKept(host: UInt)
    /// [control, frame] The same for the properties `handles` only (writing more is allowed): the host
    /// reads one property or a few. The default writes everything kept (`writeKept(host:)`).
    static func writeKept(host: UInt, handles: UnsafeBufferPointer<UInt32>)
}

extension BatchPerformer {
    public static func writeKept(host: UInt) {}
    public static func writeKept(host: UInt, handles: UnsafeBufferPointer<UInt32>) { writeKept(host: host) }
}

/// The performers the host advances in one batch, without reference counting per element.
public struct PerformerBatch<P: Performer>: RandomAccessCollection {
    let instances: UnsafeBufferPointer<UnsafeMutableRawPointer?>

    public var startIndex: Int { 0 }
    public var endIndex: Int { instances.count }

    public subscript(position: Int) -> P {
        Unmanaged<PerformerBox<P>>.fromOpaque(instances[position]!).takeUnretainedValue().performer
    }
}

enum BatchExtension {
    /// The table `get_extension("motion.batch/1")` returns, shared by every Swift plugin in the image: it
    /// finds the factory's `FactoryBox` and lets it advance the instances.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<motion_batch> = {
        let table = UnsafeMutablePointer<motion_batch>.allocate(capacity: 1)
        table.initialize(to: motion_batch(
            struct_size: UInt32(MemoryLayout<motion_batch>.size), reserved: 0,
            advance_batch: { factory, instances, count, dt in
                guard let data = factory?.pointee.factory_data, let instances, count > 0 else { return }
                Unmanaged<FactoryBox>.fromOpaque(data).takeUnretainedValue()
                    .advanceBatch(UnsafeBufferPointer(start: instances, count: count), dt)
            }))
        return table
    }()

    /// The table `get_extension("motion.kept/1")` returns: the factory's performer type writes what it kept.
    nonisolated(unsafe) static let keptTable: UnsafeMutablePointer<motion_kept> = {
        let table = UnsafeMutablePointer<motion_kept>.allocate(capacity: 1)
        table.initialize(to: motion_kept(
            struct_size: UInt32(MemoryLayout<motion_kept>.size), reserved: 0,
            write_kept: { factory, host in
                guard let data = factory?.pointee.factory_data, let host else { return }
                Unmanaged<FactoryBox>.fromOpaque(data).takeUnretainedValue().writeKept(UInt(bitPattern: host))
            },
            write_kept_some: { factory, host, handles, n in
                guard let data = factory?.pointee.factory_data, let host, let handles, n > 0 else { return }
                Unmanaged<FactoryBox>.fromOpaque(data).takeUnretainedValue()
                    .writeKeptSome(UInt(bitPattern: host), UnsafeBufferPointer(start: handles, count: n))
            }))
        return table
    }()
}
