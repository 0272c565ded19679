import MotionPluginAPI

/// A timing function exported by some plugin, bound to its arguments (host extension "motion.curves/1").
public final class Curve: @unchecked Sendable {
    // @unchecked: immutable after init; the host pointer is valid for the process lifetime and the host
    // serialises every call onto its engine thread.
    private let host: UnsafePointer<motion_host>
    private let api: UnsafePointer<motion_curves>
    private let handle: motion_curve

    init(host: UnsafePointer<motion_host>, api: UnsafePointer<motion_curves>, handle: motion_curve) {
        self.host = host
        self.api = api
        self.handle = handle
    }

    /// [control, frame] f(t, arguments...).
    public func callAsFunction(_ t: Double) -> Double {
        api.pointee.evaluate(host, handle, t)
    }

    deinit {
        api.pointee.release(host, handle)
    }
}

extension PerformerContext {
    /// [control] Binds the timing function `name` to `arguments`; throws `PlanError` with the host's reason.
    public func curve(named name: String, arguments: [Double]) throws -> Curve {
        guard let raw = host.pointee.get_extension(host, MOTION_CURVES_EXTENSION) else {
            throw PlanError("timing.function: this host has no timing functions")
        }
        let api = raw.assumingMemoryBound(to: motion_curves.self)
        var error = [CChar](repeating: 0, count: 512)
        let handle = arguments.withUnsafeBufferPointer { values in
            api.pointee.bind(host, name, values.baseAddress, UInt32(values.count), &error, error.count)
        }
        guard handle != 0 else {
            throw PlanError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Curve(host: host, api: api, handle: handle)
    }
}
