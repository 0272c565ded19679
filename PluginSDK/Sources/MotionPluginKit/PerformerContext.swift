import MotionJSON
import MotionPluginAPI

/// An interned property of the performer's target: cheap to copy, valid while the performer lives.
public struct PropertyHandle: Hashable, Sendable {
    public let rawValue: motion_property
}

/// An is-active token; hold one while animating.
public struct ActiveToken: Hashable, Sendable {
    public let rawValue: motion_token
}

/// A property's value and velocity, up to four components.
public struct PropertyState: Equatable, Sendable {
    public var value: SIMD4<Double>
    public var velocity: SIMD4<Double>
    public var count: Int

    public init(value: SIMD4<Double>, velocity: SIMD4<Double>, count: Int) {
        self.value = value
        self.velocity = velocity
        self.count = count
    }
}

/// The host services one performer may use. Valid until the performer is destroyed.
public struct PerformerContext {
    let host: UnsafePointer<motion_host>
    let ref: motion_performer_ref
    /// The host's "motion.claim/1", looked up once per performer.
    private let claims: UnsafePointer<motion_claim>?

    init(host: UnsafePointer<motion_host>, ref: motion_performer_ref) {
        self.host = host
        self.ref = ref
        let table = host.pointee.get_extension(host, MOTION_CLAIM_EXTENSION)?.assumingMemoryBound(to: motion_claim.self)
        claims = table.flatMap { Int($0.pointee.struct_size) >= MemoryLayout<motion_claim>.size ? $0 : nil }
    }

    /// Names the host this performer belongs to. A host calls its plugins from one thread; two hosts in
    /// one process (an embedding program, tests) may run at once, so state shared between performers
    /// is kept per host. motiond gives dry runs' performers a host of their own (the same services at
    /// another address): the clock never advances them, and keyed by this they stay out of live batches.
    public var hostIdentity: UInt { UInt(bitPattern: host) }

    /// [control] Interns a property name of this performer's target. Do it when a plan arrives.
    public func property(_ name: String) -> PropertyHandle? {
        // The host takes a C string: a name with a NUL in it would be cut short, so it is refused.
        guard !name.utf8.contains(0) else { return nil }
        let handle = host.pointee.intern_property(host, ref, name)
        return handle == MOTION_INVALID_PROPERTY ? nil : PropertyHandle(rawValue: handle)
    }

    /// [control, frame] The property's current state, or nil if it was never written.
    public func read(_ property: PropertyHandle) -> PropertyState? {
        var value = SIMD4<Double>()
        var velocity = SIMD4<Double>()
        let count = withUnsafeMutableBytes(of: &value) { valueBytes in
            withUnsafeMutableBytes(of: &velocity) { velocityBytes in
                host.pointee.read_property(
                    host, property.rawValue,
                    valueBytes.baseAddress!.assumingMemoryBound(to: Double.self),
                    velocityBytes.baseAddress!.assumingMemoryBound(to: Double.self), 4)
            }
        }
        return count == 0 ? nil : PropertyState(value: value, velocity: velocity, count: Int(count))
    }

    /// [control, frame] Writes the first `count` components of `value` and `velocity`. Allocation-free.
    public func write(_ property: PropertyHandle, value: SIMD4<Double>, velocity: SIMD4<Double>, count: Int) {
        var value = value
        var velocity = velocity
        withUnsafeBytes(of: &value) { valueBytes in
            withUnsafeBytes(of: &velocity) { velocityBytes in
                host.pointee.write_property(
                    host, property.rawValue,
                    valueBytes.baseAddress!.assumingMemoryBound(to: Double.self),
                    velocityBytes.baseAddress!.assumingMemoryBound(to: Double.self), UInt32(count))
            }
        }
    }

    /// [control] This performer starts animating `property`: a performer of another plan type on the
    /// same target that was animating it lets go first (its `yield`), so the newest plan drives the
    /// property. Does nothing on a host without "motion.claim/1".
    public func claim(_ property: PropertyHandle) {
        claims?.pointee.claim_property(host, ref, property.rawValue)
    }

    /// [control] Adds a plan (JSON text with a "type") to this performer's own target, synchronously.
    public func emit(planJSON: String) throws {
        var error = [CChar](repeating: 0, count: 512)
        let status = planJSON.utf8CString.withUnsafeBufferPointer { text in
            host.pointee.emit_plan(host, ref, text.baseAddress, text.count - 1, &error, error.count)
        }
        if status != MOTION_OK {
            throw PlanError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// [control, frame] Takes an is-active token.
    public func generateToken() -> ActiveToken {
        ActiveToken(rawValue: host.pointee.token_generate(host, ref))
    }

    /// [control, frame] Releases a token taken with `generateToken()`.
    public func terminate(_ token: ActiveToken) {
        host.pointee.token_terminate(host, ref, token.rawValue)
    }

    /// [control, frame] Publishes a trace event; `fields` is a JSON object text or nil.
    public func trace(_ kind: String, fieldsJSON: String? = nil) {
        if let fieldsJSON {
            host.pointee.trace(host, ref, kind, fieldsJSON)
        } else {
            host.pointee.trace(host, ref, kind, nil)
        }
    }

    /// Reports the end of an animation on `property` with `reason` "finished" or "interrupted".
    public func animationEnded(property: String, reason: String, name: String? = nil, late: Double = 0) {
        var fields = "{\"property\":\(jsonString(property)),\"reason\":\(jsonString(reason))"
        if let name { fields += ",\"name\":\(jsonString(name))" }
        // How far the tick ran past the end: a `Sequence` starts its next step that far along.
        if late > 0, late.isFinite { fields += ",\"late\":\(late)" }
        trace("animation.ended", fieldsJSON: fields + "}")
    }

    /// Writes a line to the daemon log at a syslog level (`MOTION_LOG_*`).
    public func log(_ message: String, level: Int32 = MOTION_LOG_INFO) {
        host.pointee.log(host, ref, level, message)
    }
}

/// A JSON string literal for `text`, written by the JSON core.
func jsonString(_ text: String) -> String { JSONWriter.string(.string(text)) }
