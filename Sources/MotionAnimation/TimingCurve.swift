/// How a tween's progress maps to its value: identity, a Bézier, or a function from a plugin.
public enum TimingCurve: Sendable {
    case linear
    case bezier(UnitBezier)
    /// A curve evaluated elsewhere (a plugin's C function through libffi), already bound to its arguments.
    case function(@Sendable (Double) -> Double)

    /// Presets by name (SPEC §3). `linear` is the identity, as in Advance, not a Bézier.
    public static let presets: [String: TimingCurve] = [
        "linear": .linear,
        "default": .bezier(UnitBezier(0.25, 0.1, 0.25, 1)),
        "easeIn": .bezier(UnitBezier(0.42, 0, 1, 1)),
        "easeOut": .bezier(UnitBezier(0, 0, 0.58, 1)),
        "easeInEaseOut": .bezier(UnitBezier(0.42, 0, 0.58, 1)),
        "swiftOut": .bezier(UnitBezier(0.4, 0, 0.2, 1)),
    ]

    public static let swiftOut = presets["swiftOut"]!

    public func value(at progress: Double, epsilon: Double) -> Double {
        switch self {
        case .linear: return progress
        case .bezier(let curve): return curve.solve(progress, epsilon: epsilon)
        case .function(let function): return function(progress)
        }
    }
}
