import Foundation
import MotionJSON

/// A spring token in the terms the compositors use: damping ratio, stiffness and mass (libadwaita's
/// `adw_spring_params_new`; niri's `damping-ratio`, `stiffness`, with mass 1 folded in), from any of
/// motiond's forms (docs/vocabulary.md#springs).
public struct SpringForm: Equatable {
    public var dampingRatio: Double
    public var stiffness: Double
    public var mass: Double
    public var epsilon: Double?

    public init(dampingRatio: Double, stiffness: Double, mass: Double = 1, epsilon: Double? = nil) {
        (self.dampingRatio, self.stiffness, self.mass, self.epsilon) = (dampingRatio, stiffness, mass, epsilon)
    }

    /// nil for a token that is not a spring's keys.
    public init?(token: JSONValue) {
        let number = { (key: String) in token[key]?.doubleValue }
        epsilon = number("epsilon")
        let mass = number("mass") ?? 1
        if let stiffness = number("stiffness"), let ratio = number("dampingRatio") {
            (self.stiffness, self.dampingRatio, self.mass) = (stiffness, ratio, mass)
        } else if let stiffness = number("stiffness") {
            let damping = number("damping") ?? 12
            (self.stiffness, self.mass, self.dampingRatio) = (stiffness, mass, damping / (2 * (stiffness * mass).squareRoot()))
        } else if number("response") != nil || number("dampingRatio") != nil {
            let response = number("response") ?? 0.5, omega = 2 * Double.pi / response
            (self.stiffness, self.mass, self.dampingRatio) = (omega * omega, 1, number("dampingRatio") ?? 0.825)
        } else if number("duration") != nil || number("bounce") != nil {
            let response = number("duration") ?? 0.5, bounce = number("bounce") ?? 0, omega = 2 * Double.pi / response
            (self.stiffness, self.mass, self.dampingRatio) = (omega * omega, 1, bounce >= 0 ? 1 - bounce : 1 / (1 + bounce))
        } else if number("tension") != nil || number("damping") != nil {
            let tension = number("tension") ?? 120, damping = number("damping") ?? 12
            (self.stiffness, self.mass, self.dampingRatio) = (tension, 1, damping / (2 * tension.squareRoot()))
        } else {
            return nil
        }
    }

    /// The same motion with mass 1 (niri has no mass): stiffness per unit of mass.
    public var perUnitMass: SpringForm {
        SpringForm(dampingRatio: dampingRatio, stiffness: stiffness / mass, mass: 1, epsilon: epsilon)
    }

    public var token: JSONValue {
        var keys: [String: JSONValue] = ["dampingRatio": .number(dampingRatio), "stiffness": .number(stiffness)]
        if mass != 1 { keys["mass"] = .number(mass) }
        if let epsilon { keys["epsilon"] = .number(epsilon) }
        return .object(keys)
    }

    /// Progress from 0 (start, at rest) to 1 (target) at time t: the closed form (docs/vocabulary.md#exact-motion).
    public func progress(at t: Double) -> Double {
        let k = stiffness / mass, omega = k.squareRoot(), zeta = dampingRatio, alpha = zeta * omega
        if abs(zeta - 1) < 1e-12 { return 1 - (1 + omega * t) * exp(-omega * t) }
        if zeta < 1 {
            let wd = omega * (1 - zeta * zeta).squareRoot()
            return 1 - exp(-alpha * t) * (cos(wd * t) + alpha / wd * sin(wd * t))
        }
        let gamma = omega * (zeta * zeta - 1).squareRoot(), r1 = -k / (alpha + gamma), r2 = -alpha - gamma
        let c1 = r2 / (r1 - r2), c2 = -1 - c1
        return 1 + c1 * exp(r1 * t) + c2 * exp(r2 * t)
    }

    /// When it stays within `epsilon` (default 0.001) of its target and of rest (motiond's rule for a
    /// travel of 1), to the millisecond.
    public var settlingDuration: Double {
        let e = epsilon ?? 0.001
        var t = 0.0, lastOutside = 0.0
        while t < 60 {
            let x = 1 - progress(at: t), v = (progress(at: t + 1e-6) - progress(at: t)) / 1e-6
            if abs(x) > e || abs(v) > e { lastOutside = t }
            if t - lastOutside > 1 { break }
            t += 0.001
        }
        return lastOutside + 0.001
    }
}
