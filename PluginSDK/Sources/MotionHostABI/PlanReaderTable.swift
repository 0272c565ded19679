import MotionPluginAPI

/// A host whose `motion_host.host_data` is an object holding the plan being handed to a plugin.
public protocol PlanNodesOwner: AnyObject {
    var plans: PlanNodes { get }
}

/// The "motion.plan/1" table, shared by every host (motiond, MotionTesting): its callbacks find the
/// plan through `host_data`, which must point at a `PlanNodesOwner` (unretained).
public enum PlanReaderTable {
    /// A table allocated for the caller, who keeps it as long as plugins may call it.
    public static func make() -> UnsafeMutablePointer<motion_plan_reader> {
        let table = UnsafeMutablePointer<motion_plan_reader>.allocate(capacity: 1)
        table.initialize(to: motion_plan_reader(
            struct_size: UInt32(MemoryLayout<motion_plan_reader>.size), reserved: 0,
            root: { host in nodes(host)?.root },
            member: { host, node, key in
                guard let key else { return nil }
                return nodes(host)?.member(node, String(cString: key))
            },
            kind: { host, node in nodes(host)?.kind(node) ?? MOTION_PLAN_ABSENT },
            number: { host, node, fallback in nodes(host)?.value(node)?.doubleValue ?? fallback },
            boolean: { host, node, fallback in nodes(host)?.value(node)?.boolValue.map { $0 ? 1 : 0 } ?? fallback },
            string: { host, node, length in nodes(host)?.string(node, length: length) },
            count: { host, node in nodes(host)?.count(node) ?? 0 },
            element: { host, node, index in nodes(host)?.element(node, Int(index)) },
            vector: { host, node, out, capacity in nodes(host)?.vector(node, out, Int(capacity)) ?? 0 }))
        return table
    }
}

private func nodes(_ host: UnsafePointer<motion_host>?) -> PlanNodes? {
    guard let data = host?.pointee.host_data else { return nil }
    return (Unmanaged<AnyObject>.fromOpaque(data).takeUnretainedValue() as? any PlanNodesOwner)?.plans
}
