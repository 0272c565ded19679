import MotionPluginAPI
import MotionWire

/// "motion.plan/1": the table C plugins call to read the plan being added (`PlanNodes` holds it).
enum PlanReader {
    static func table() -> UnsafeMutablePointer<motion_plan_reader> {
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
    HostServices.from(host)?.plans
}
