import MotionJSON

/// The plan a host is handing to a plugin, as nodes a C plugin can hold ("motion.plan/1").
///
/// A node is an index into `nodes`; its handle is the index plus one, so a null handle is never a node.
/// A plan handed to a plugin opens a frame; a plan the plugin emits while handling it opens another on
/// top, and when that one ends its nodes go while the outer ones stay valid.
public final class PlanNodes {
    private var nodes: [JSONValue] = []
    /// NUL-terminated copies of string nodes handed out, by node index, freed with their frame.
    private var strings: [Int: UnsafeMutablePointer<CChar>] = [:]
    /// Per open frame: the index of its root.
    private var frames: [Int] = []

    public init() {}

    deinit {
        while !frames.isEmpty { end() }
    }

    /// `plan` is being handed to a plugin until the matching `end()`.
    public func begin(_ plan: JSONValue) {
        frames.append(nodes.count)
        nodes.append(plan)
    }

    public func end() {
        guard let start = frames.popLast() else { return }
        for index in start..<nodes.count { strings.removeValue(forKey: index)?.deallocate() }
        nodes.removeSubrange(start...)
    }

    /// The plan being handed over now, or nil outside a call.
    public var root: OpaquePointer? { frames.last.flatMap(handle) }

    public func value(_ node: OpaquePointer?) -> JSONValue? {
        guard let index = index(node) else { return nil }
        return nodes[index]
    }

    public func member(_ node: OpaquePointer?, _ key: String) -> OpaquePointer? { add(value(node)?[key]) }

    public func element(_ node: OpaquePointer?, _ index: Int) -> OpaquePointer? {
        guard case .array(let elements)? = value(node), elements.indices.contains(index) else { return nil }
        return add(elements[index])
    }

    /// The string's bytes, NUL-terminated, valid while the node's frame is open; nil for a string that
    /// itself contains NUL (a C reader would see a shorter name than the client sent).
    public func string(_ node: OpaquePointer?, length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
        guard let index = index(node), case .string(let text) = nodes[index] else { return nil }
        let bytes = Array(text.utf8)
        guard !bytes.contains(0) else { return nil }
        if strings[index] == nil {
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (offset, byte) in bytes.enumerated() { copy[offset] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            strings[index] = copy
        }
        length?.pointee = bytes.count
        return UnsafePointer(strings[index])
    }

    /// Copies up to `capacity` numbers of an array of numbers into `out`; returns how many it holds
    /// (0 unless the node is an array of numbers).
    public func vector(_ node: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?, _ capacity: Int) -> UInt32 {
        guard case .array(let elements)? = value(node) else { return 0 }
        var count = 0
        for element in elements {
            guard case .number(let number) = element else { return 0 }
            if let out, count < capacity { out[count] = number }
            count += 1
        }
        return UInt32(count)
    }

    /// Elements of an array or members of an object; 0 otherwise.
    public func count(_ node: OpaquePointer?) -> UInt32 {
        switch value(node) {
        case .array(let elements)?: return UInt32(elements.count)
        case .object(let members)?: return UInt32(members.count)
        default: return 0
        }
    }

    /// The kind numbers of "motion.plan/1" (MOTION_PLAN_ABSENT … MOTION_PLAN_OBJECT).
    public func kind(_ node: OpaquePointer?) -> UInt32 {
        switch value(node) {
        case nil: return 0
        case .null?: return 1
        case .bool?: return 2
        case .number?: return 3
        case .string?: return 4
        case .array?: return 5
        case .object?: return 6
        }
    }

    private func handle(_ index: Int) -> OpaquePointer? { OpaquePointer(bitPattern: index + 1) }

    private func index(_ node: OpaquePointer?) -> Int? {
        guard let node else { return nil }
        let index = Int(bitPattern: UnsafeRawPointer(node)) - 1
        return nodes.indices.contains(index) ? index : nil
    }

    private func add(_ value: JSONValue?) -> OpaquePointer? {
        guard let value, !frames.isEmpty else { return nil }
        nodes.append(value)
        return handle(nodes.count - 1)
    }
}
