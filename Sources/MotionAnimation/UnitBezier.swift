/// A cubic Bézier timing curve from (0,0) to (1,1), solved as WebKit's UnitBezier does (SPEC §3).
public struct UnitBezier: Sendable, Equatable {
    private let ax, bx, cx, ay, by, cy: Double

    public init(_ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double) {
        cx = 3 * p1x
        bx = 3 * (p2x - p1x) - cx
        ax = 1 - cx - bx
        cy = 3 * p1y
        by = 3 * (p2y - p1y) - cy
        ay = 1 - cy - by
    }

    func sampleX(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    func sampleY(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    func derivativeX(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    /// The curve parameter whose x is `x`: up to 8 Newton steps, then bisection on [0, 1].
    func solveT(_ x: Double, epsilon: Double) -> Double {
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
        }
        return t
    }

    /// y for `x`, to within `epsilon` in x.
    public func solve(_ x: Double, epsilon: Double) -> Double {
        sampleY(solveT(x, epsilon: epsilon))
    }
}
