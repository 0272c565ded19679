import Foundation

/// The easing names of the Linux desktop, each by its own formula (docs/vocabulary.md#timing-functions):
/// libadwaita's `AdwEasing` (Clutter's set: `ease-in-quad` … `ease-in-out-bounce`) and niri's
/// `ease-out-quad`, `ease-out-cubic`, `ease-out-expo` (the same formulas under the same names). Not
/// Bézier approximations: a `ease-out-expo` tween here takes exactly the values libadwaita's and niri's do.
package enum DesktopEasing: String, CaseIterable, Sendable {
    case easeInQuad = "ease-in-quad", easeOutQuad = "ease-out-quad", easeInOutQuad = "ease-in-out-quad"
    case easeInCubic = "ease-in-cubic", easeOutCubic = "ease-out-cubic", easeInOutCubic = "ease-in-out-cubic"
    case easeInQuart = "ease-in-quart", easeOutQuart = "ease-out-quart", easeInOutQuart = "ease-in-out-quart"
    case easeInQuint = "ease-in-quint", easeOutQuint = "ease-out-quint", easeInOutQuint = "ease-in-out-quint"
    case easeInSine = "ease-in-sine", easeOutSine = "ease-out-sine", easeInOutSine = "ease-in-out-sine"
    case easeInExpo = "ease-in-expo", easeOutExpo = "ease-out-expo", easeInOutExpo = "ease-in-out-expo"
    case easeInCirc = "ease-in-circ", easeOutCirc = "ease-out-circ", easeInOutCirc = "ease-in-out-circ"
    case easeInElastic = "ease-in-elastic", easeOutElastic = "ease-out-elastic", easeInOutElastic = "ease-in-out-elastic"
    case easeInBack = "ease-in-back", easeOutBack = "ease-out-back", easeInOutBack = "ease-in-out-back"
    case easeInBounce = "ease-in-bounce", easeOutBounce = "ease-out-bounce", easeInOutBounce = "ease-in-out-bounce"

    /// The overshoot of the `back` family (Penner's 10 %).
    static let back = 1.70158

    /// The value at progress `p` (0 → 0, 1 → 1; `back` and `elastic` leave [0, 1] between).
    package func value(_ p: Double) -> Double {
        switch self {
        case .easeInQuad: return p * p
        case .easeOutQuad: return 1 - (1 - p) * (1 - p)
        case .easeInOutQuad: return p < 0.5 ? 2 * p * p : 1 - 2 * (1 - p) * (1 - p)
        case .easeInCubic: return p * p * p
        case .easeOutCubic: return 1 - pow(1 - p, 3)
        case .easeInOutCubic: return p < 0.5 ? 4 * p * p * p : 1 - 4 * pow(1 - p, 3)
        case .easeInQuart: return pow(p, 4)
        case .easeOutQuart: return 1 - pow(1 - p, 4)
        case .easeInOutQuart: return p < 0.5 ? 8 * pow(p, 4) : 1 - 8 * pow(1 - p, 4)
        case .easeInQuint: return pow(p, 5)
        case .easeOutQuint: return 1 - pow(1 - p, 5)
        case .easeInOutQuint: return p < 0.5 ? 16 * pow(p, 5) : 1 - 16 * pow(1 - p, 5)
        case .easeInSine: return 1 - cos(p * .pi / 2)
        case .easeOutSine: return sin(p * .pi / 2)
        case .easeInOutSine: return (1 - cos(.pi * p)) / 2
        case .easeInExpo: return p == 0 ? 0 : pow(2, 10 * (p - 1))
        case .easeOutExpo: return p == 1 ? 1 : 1 - pow(2, -10 * p)
        case .easeInOutExpo:
            if p == 0 || p == 1 { return p }
            return p < 0.5 ? pow(2, 20 * p - 10) / 2 : 1 - pow(2, 10 - 20 * p) / 2
        case .easeInCirc: return 1 - (1 - p * p).squareRoot()
        case .easeOutCirc: return (1 - (p - 1) * (p - 1)).squareRoot()
        case .easeInOutCirc:
            return p < 0.5 ? (1 - (1 - 4 * p * p).squareRoot()) / 2 : (1 + (1 - (2 * p - 2) * (2 * p - 2)).squareRoot()) / 2
        case .easeInElastic:
            // Period 0.3, starting a quarter period early: -2^(10 q) sin((q − 0.075) 2π / 0.3), q = p − 1.
            if p == 1 { return 1 }
            let q = p - 1
            return -pow(2, 10 * q) * sin((q - 0.075) * 2 * .pi / 0.3)
        case .easeOutElastic:
            if p == 1 { return 1 }
            return pow(2, -10 * p) * sin((p - 0.075) * 2 * .pi / 0.3) + 1
        case .easeInOutElastic:
            // Period 0.45 of the doubled progress q ∈ [0, 2], each half scaled by ½.
            let q = 2 * p
            if q == 2 { return 1 }
            let r = q - 1, phase = (r - 0.1125) * 2 * .pi / 0.45
            return q < 1 ? -0.5 * pow(2, 10 * r) * sin(phase) : 0.5 * pow(2, -10 * r) * sin(phase) + 1
        case .easeInBack: return p * p * ((Self.back + 1) * p - Self.back)
        case .easeOutBack: let q = p - 1; return q * q * ((Self.back + 1) * q + Self.back) + 1
        case .easeInOutBack:
            let s = Self.back * 1.525, q = 2 * p
            if q < 1 { return q * q * ((s + 1) * q - s) / 2 }
            let r = q - 2
            return (r * r * ((s + 1) * r + s) + 2) / 2
        case .easeInBounce: return 1 - Self.bounceOut(1 - p)
        case .easeOutBounce: return Self.bounceOut(p)
        case .easeInOutBounce: return p < 0.5 ? (1 - Self.bounceOut(1 - 2 * p)) / 2 : Self.bounceOut(2 * p - 1) / 2 + 0.5
        }
    }

    /// Four parabolas of 7.5625 p², each lower than the last.
    static func bounceOut(_ p: Double) -> Double {
        let k = 7.5625
        if p < 1 / 2.75 { return k * p * p }
        if p < 2 / 2.75 { let q = p - 1.5 / 2.75; return k * q * q + 0.75 }
        if p < 2.5 / 2.75 { let q = p - 2.25 / 2.75; return k * q * q + 0.9375 }
        let q = p - 2.625 / 2.75
        return k * q * q + 0.984375
    }

    /// The rate of change at `p`: a central difference of 1e-6 (one-sided at the ends), inside [0, 1].
    package func slope(_ p: Double) -> Double {
        let h = 1e-6
        let low = Swift.max(0, Swift.min(p - h / 2, 1 - h))
        return (value(low + h) - value(low)) / h
    }
}
