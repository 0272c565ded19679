/// How a tween's progress maps to its value: identity, a Bézier, CSS steps, a CSS `linear()` polyline, or
/// a function from a plugin.
package enum TimingCurve: Sendable {
    case linear
    case bezier(UnitBezier)
    /// CSS `steps(count, position)` (CSS Easing 1).
    case steps(count: Int, position: StepPosition)
    /// CSS `linear(…)` (CSS Easing 2): points (input, output), inputs non-decreasing.
    case polyline([(input: Double, output: Double)])
    /// A curve evaluated elsewhere (a plugin's C function through libffi), already bound to its arguments.
    case function(@Sendable (Double) -> Double)
    /// libadwaita's and niri's easing names, by their own formulas.
    case desktop(DesktopEasing)

    package enum StepPosition: String, Sendable {
        case jumpStart = "jump-start", jumpEnd = "jump-end", jumpNone = "jump-none", jumpBoth = "jump-both"
    }

    /// Presets by name (docs/vocabulary.md, and CSS's names, docs/vocabulary.md). `linear` is the identity, as in Advance.
    package static let presets: [String: TimingCurve] = [
        "linear": .linear,
        "default": .bezier(UnitBezier(0.25, 0.1, 0.25, 1)),
        "easeIn": .bezier(UnitBezier(0.42, 0, 1, 1)),
        "easeOut": .bezier(UnitBezier(0, 0, 0.58, 1)),
        "easeInEaseOut": .bezier(UnitBezier(0.42, 0, 0.58, 1)),
        "swiftOut": .bezier(UnitBezier(0.4, 0, 0.2, 1)),
        "ease": .bezier(UnitBezier(0.25, 0.1, 0.25, 1)),
        "ease-in": .bezier(UnitBezier(0.42, 0, 1, 1)),
        "ease-out": .bezier(UnitBezier(0, 0, 0.58, 1)),
        "ease-in-out": .bezier(UnitBezier(0.42, 0, 0.58, 1)),
        "step-start": .steps(count: 1, position: .jumpStart),
        "step-end": .steps(count: 1, position: .jumpEnd),
    ].merging(DesktopEasing.allCases.map { ($0.rawValue, TimingCurve.desktop($0)) }) { first, _ in first }

    package static let swiftOut = presets["swiftOut"]!

    /// A Bézier is solved to 1e-7 in x, whatever the duration (as Chromium's gfx::CubicBezier).
    package static let bezierEpsilon = 1e-7

    /// The curve's slope at `progress` (its derivative; 0 on the flats of steps and past the ends of
    /// `linear()`'s vertical segments), so that a velocity is exact whatever the steps taken to reach it.
    package func slope(at progress: Double) -> Double {
        switch self {
        case .linear: return 1
        case .bezier(let curve): return curve.slope(progress)
        case .steps: return 0
        case .polyline(let points): return Self.slope(progress, points)
        case .function(let function):
            // A plugin's function: a difference over 1e-5 of progress, inside [0, 1].
            let step = 1e-5, start = Swift.min(Swift.max(progress - step / 2, 0), 1 - step)
            return (function(start + step) - function(start)) / step
        case .desktop(let easing): return easing.slope(progress)
        }
    }

    /// `value(at:)` and `slope(at:)` together: one solve of a Bézier for both.
    @inline(__always)
    package func valueAndSlope(at progress: Double) -> (value: Double, slope: Double) {
        if case .bezier(let curve) = self { return curve.valueAndSlope(progress) }
        return (value(at: progress), slope(at: progress))
    }

    /// The slope of `interpolate`'s segment at `progress` (0 on a vertical one: the jump itself).
    static func slope(_ progress: Double, _ points: [(input: Double, output: Double)]) -> Double {
        guard points.count >= 2 else { return 0 }
        var upper = points.firstIndex { $0.input > progress } ?? points.count - 1
        if upper == 0 { upper = 1 }
        let (a, b) = (points[upper - 1], points[upper])
        guard b.input > a.input else { return 0 }
        return (b.output - a.output) / (b.input - a.input)
    }

    package func value(at progress: Double, epsilon: Double = bezierEpsilon) -> Double {
        switch self {
        case .linear: return progress
        case .bezier(let curve): return curve.solve(progress, epsilon: epsilon)
        case .steps(let count, let position): return Self.step(progress, count: count, position: position)
        case .polyline(let points): return Self.interpolate(progress, points)
        case .function(let function): return function(progress)
        case .desktop(let easing): return easing.value(progress)
        }
    }

    /// CSS Easing 1 §3.3, the step easing function (the "before flag" is for negative progress only).
    static func step(_ progress: Double, count: Int, position: StepPosition) -> Double {
        var step = (progress * Double(count)).rounded(.down)
        if position == .jumpStart || position == .jumpBoth { step += 1 }
        if progress >= 0, step < 0 { step = 0 }
        let jumps = switch position {
        case .jumpStart, .jumpEnd: Double(count)
        case .jumpNone: Double(count - 1)
        case .jumpBoth: Double(count + 1)
        }
        if progress <= 1, step > jumps { step = jumps }
        return step / jumps
    }

    /// CSS Easing 2 §2.3: the output of the last point at or before `progress` and the next one, linearly;
    /// outside the points, the first or last segment extended.
    static func interpolate(_ progress: Double, _ points: [(input: Double, output: Double)]) -> Double {
        guard points.count >= 2 else { return points.first?.output ?? progress }
        var upper = points.firstIndex { $0.input > progress } ?? points.count - 1
        if upper == 0 { upper = 1 }
        let (a, b) = (points[upper - 1], points[upper])
        if progress >= b.input, upper == points.count - 1, b.input == a.input { return b.output }
        guard b.input > a.input else { return b.output }
        return a.output + (b.output - a.output) * (progress - a.input) / (b.input - a.input)
    }
}
