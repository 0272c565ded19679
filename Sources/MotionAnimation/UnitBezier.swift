/// A cubic Bézier timing curve from (0,0) to (1,1), solved as Chromium's gfx::CubicBezier does
/// (docs/vocabulary.md): to `epsilon` in x (1e-7 by default) whatever the duration, and for progress outside [0, 1]
/// extended along its end tangents.
package struct UnitBezier: Sendable, Equatable {
    private let ax, bx, cx, ay, by, cy: Double
    private let startGradient, endGradient: Double
    /// What a control point's y may be: CSS allows any, but far past the ends it only overflows (a y of
    /// 1e308 made every value NaN).
    package static let allowedY = -1000.0...1000.0

    package init(_ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double) {
        cx = 3 * p1x
        bx = 3 * (p2x - p1x) - cx
        ax = 1 - cx - bx
        cy = 3 * p1y
        by = 3 * (p2y - p1y) - cy
        ay = 1 - cy - by
        // The tangents at the ends, for progress before 0 and after 1 (gfx::CubicBezier::InitGradients).
        if p1x > 0 {
            startGradient = p1y / p1x
        } else if p1y == 0, p2x > 0 {
            startGradient = p2y / p2x
        } else if p1y == 0, p2y == 0 {
            startGradient = 1
        } else {
            startGradient = 0
        }
        if p2x < 1 {
            endGradient = (p2y - 1) / (p2x - 1)
        } else if p2y == 1, p1x < 1 {
            endGradient = (p1y - 1) / (p1x - 1)
        } else if p2y == 1, p1y == 1 {
            endGradient = 1
        } else {
            endGradient = 0
        }
    }

    package func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    func derivativeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// The curve parameter whose x is `x` (in [0, 1]): up to 8 Newton steps, then bisection on [0, 1].
    package func solveT(_ x: Double, epsilon: Double) -> Double {
        var t = x
        for _ in 0..<8 {
            let error = sampleX(t) - x
            if abs(error) < epsilon { return t }
            let slope = derivativeX(t)
            if abs(slope) < 1e-6 { break }
            t -= error / slope
        }
        var low = 0.0, high = 1.0
        t = x
        if t < low { return low }
        if t > high { return high }
        while low < high {
            let sample = sampleX(t)
            if abs(sample - x) < epsilon { return t }
            if x > sample { low = t } else { high = t }
            t = (high - low) * 0.5 + low
            if high - low < 1e-16 { break }
        }
        return t
    }

    /// y and dy/dx at `x` from one solve (a tween's value and velocity at each tick).
    package func valueAndSlope(_ x: Double, epsilon: Double = TimingCurve.bezierEpsilon) -> (value: Double, slope: Double) {
        if x < 0 { return (startGradient * x, startGradient) }
        if x > 1 { return (1 + endGradient * (x - 1), endGradient) }
        let t = solveT(x, epsilon: epsilon)
        let dx = derivativeX(t), dy = (3 * ay * t + 2 * by) * t + cy
        let slope = abs(dx) > 1e-9 ? dy / dx : (dy == 0 ? 0 : (dy > 0 ? 1e9 : -1e9))
        return (sampleY(t), slope)
    }

    /// dy/dx at `x`: the curve's slope there (a tween's velocity is it times the distance over the
    /// duration), from the parameter solved for `x`; outside [0, 1] the end tangents.
    package func slope(_ x: Double, epsilon: Double = TimingCurve.bezierEpsilon) -> Double {
        if x < 0 { return startGradient }
        if x > 1 { return endGradient }
        let t = solveT(x, epsilon: epsilon)
        let dx = derivativeX(t), dy = (3 * ay * t + 2 * by) * t + cy
        // A vertical tangent (x standing still while y moves): the steepest slope a double tells apart.
        guard abs(dx) > 1e-9 else { return dy == 0 ? 0 : (dy > 0 ? 1e9 : -1e9) }
        return dy / dx
    }

    /// y for `x`, to within `epsilon` in x; outside [0, 1] along the end tangents.
    package func solve(_ x: Double, epsilon: Double = TimingCurve.bezierEpsilon) -> Double {
        if x < 0 { return startGradient * x }
        if x > 1 { return 1 + endGradient * (x - 1) }
        return sampleY(solveT(x, epsilon: epsilon))
    }
}
