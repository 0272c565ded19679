import MotionPluginAPI
import MotionWire

/// "motion.plan/1": the plan that `add_plan` is being handed, as typed values for C plugins.
///
/// Nodes are indices into `nodes` (a handle is the index plus one, so NULL is never a node). A plan
/// handed to a plugin opens a frame; a plan it emits while handling it opens another on top, and when
/// that returns the inner nodes go while the outer ones stay valid.
final class PlanReader {
    private var nodes: [JSONValue] = []
    /// The C strings handed out for string nodes, by node index, freed with their frame.
    private var strings: [Int: UnsafeMutablePointer<CChar>] = [:]
    /// Per open frame: where its nodes start (its root is the first).
    private var frames: [Int] = []

    let table: UnsafeMutablePointer<motion_plan_reader> = .allocate(capacity: 1)

    init() {
        table.initialize(to: motion_plan_reader(
            struct_size: UInt32(MemoryLayout<motion_plan_reader>.size), reserved: 0,
            root: { host in reader(host)?.root() },
            member: { host, node, key in
                guard let reader = reader(host), let key else { return nil }
                return reader.member(node, String(cString: key))
            },
            kind: { host, node in reader(host)?.kind(node) ?? MOTION_PLAN_ABSENT },
            number: { host, node, fallback in reader(host)?.value(node)?.doubleValue ?? fallback },
            boolean: { host, node, fallback in reader(host)?.value(node)?.boolValue.map { $0 ? 1 : 0 } ?? fallback },
            string: { host, node, length in reader(host)?.string(node, length: length) },
            count: { host, node in
                switch reader(host)?.value(node) {
                case .array(let elements)?: return UInt32(elements.count)
                case .object(let members)?: return UInt32(members.count)
                default: return 0
                }
            },
            element: { host, node, index in reader(host)?.element(node, Int(index)) },
            vector: { host, node, out, capacity in reader(host)?.vector(node, out, Int(capacity)) ?? 0 }))
    }

    deinit {
        end(all: true)
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// [control] `plan` is being handed to a plugin until `end()`.
    func begin(_ plan: JSONValue) {
        frames.append(nodes.count)
        nodes.append(plan)
    }

    func end(all: Bool = false) {
        while let start = frames.popLast() {
            for index in start..<nodes.count { strings.removeValue(forKey: index)?.deallocate() }
            nodes.removeSubrange(start...)
            if !all { return }
        }
    }

    private func handle(_ index: Int) -> OpaquePointer? { OpaquePointer(bitPattern: index + 1) }

    fileprivate func value(_ node: OpaquePointer?) -> JSONValue? {
        guard let node else { return nil }
        let index = Int(bitPattern: UnsafeRawPointer(node)) - 1
        return nodes.indices.contains(index) ? nodes[index] : nil
    }

    private func add(_ value: JSONValue?) -> OpaquePointer? {
        guard let value, !frames.isEmpty else { return nil }
        nodes.append(value)
        return handle(nodes.count - 1)
    }

    fileprivate func root() -> OpaquePointer? { frames.last.flatMap(handle) }

    fileprivate func member(_ node: OpaquePointer?, _ key: String) -> OpaquePointer? { add(value(node)?[key]) }

    fileprivate func element(_ node: OpaquePointer?, _ index: Int) -> OpaquePointer? {
        guard case .array(let elements)? = value(node), elements.indices.contains(index) else { return nil }
        return add(elements[index])
    }

    fileprivate func kind(_ node: OpaquePointer?) -> UInt32 {
        switch value(node) {
        case nil: return MOTION_PLAN_ABSENT
        case .null?: return MOTION_PLAN_NULL
        case .bool?: return MOTION_PLAN_BOOLEAN
        case .number?: return MOTION_PLAN_NUMBER
        case .string?: return MOTION_PLAN_STRING
        case .array?: return MOTION_PLAN_ARRAY
        case .object?: return MOTION_PLAN_OBJECT
        }
    }

    fileprivate func string(_ node: OpaquePointer?, length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
        guard let node, case .string(let text)? = value(node) else { return nil }
        let index = Int(bitPattern: UnsafeRawPointer(node)) - 1
        let bytes = Array(text.utf8)
        if strings[index] == nil {
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (offset, byte) in bytes.enumerated() { copy[offset] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            strings[index] = copy
        }
        length?.pointee = bytes.count
        return UnsafePointer(strings[index])
    }

    fileprivate func vector(_ node: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ capacity: Int) -> UInt32 {
        guard case .array(let elements)? = value(node) else { return 0 }
        var numbers: [Double] = []
        for element in elements {
            guard case .number(let number) = element else { return 0 }
            numbers.append(number)
        }
        if let out { for (index, number) in numbers.prefix(capacity).enumerated() { out[index] = number } }
        return UInt32(numbers.count)
    }
}

private func reader(_ host: UnsafePointer<motion_host>?) -> PlanReader? {
    HostServices.from(host)?.plans
}
