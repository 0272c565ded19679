import Foundation
@testable import MotionAnimation
@testable import MotionEngine
import MotionWire
import Testing

/// Springs are the closed form at every time asked (docs/vocabulary.md#exact-motion): over a sweep of
/// stiffness (10 … 1e9, the schema's maximum) and damping ratio (0.05 … 10), through the shipped Spring
/// plugin's lanes (each spring its own physics, and many sharing one), and in `Simulation` (a hot swap's
/// and a sample's path), at ticks of uneven length.
@Suite("Exact motion")
struct ExactMotionTests {
    static let stiffnesses: [Double] = [10, 100, 1000, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]
    static let ratios: [Double] = [0.05, 0.1, 0.3, 0.7, 1, 1.5, 3, 10]
    /// Uneven ticks: a display's present times, a late tick, a tiny one, a long one.
    static let ticks: [Double] = [1.0 / 120, 1.0 / 144, 0.0173, 0.0001, 1.0 / 60, 0.05, 1.0 / 90, 0.3]

    /// (offset, velocity) at t of x″ = −k·x − c·x′ from (x0, v0), each regime by its textbook formula.
    static func closedForm(x0: Double, v0: Double, k: Double, ratio: Double, t: Double) -> (Double, Double) {
        let w0 = k.squareRoot(), alpha = ratio * w0
        if ratio == 1 {
            let b = v0 + w0 * x0, decay = exp(-w0 * t)
            return (decay * (x0 + b * t), decay * (v0 - w0 * b * t))
        }
        if ratio < 1 {
            let wd = w0 * (1 - ratio * ratio).squareRoot(), decay = exp(-alpha * t)
            let b = (v0 + alpha * x0) / wd
            return (decay * (x0 * cos(wd * t) + b * sin(wd * t)), decay * (v0 * cos(wd * t) - (alpha * v0 + k * x0) / wd * sin(wd * t)))
        }
        let gamma = w0 * (ratio * ratio - 1).squareRoot()
        let r1 = -k / (alpha + gamma), r2 = -alpha - gamma
        let c1 = (v0 - r2 * x0) / (r1 - r2), c2 = x0 - c1
        return (c1 * exp(r1 * t) + c2 * exp(r2 * t), r1 * c1 * exp(r1 * t) + r2 * c2 * exp(r2 * t))
    }

    struct Worst: CustomStringConvertible {
        var error = 0.0, what = ""
        mutating func see(_ error: Double, _ what: @autoclosure () -> String) {
            if !(error <= self.error) { (self.error, self.what) = (error, what()) }
        }
        var description: String { "\(error) at \(what)" }
    }

    /// Every (stiffness, ratio) on its own target of one engine: the lanes' per-lane transitions.
    @Test func everySpringOfTheSweepIsTheClosedFormInTheLanes() throws {
        let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
        var springs: [(target: String, k: Double, ratio: Double)] = []
        for k in Self.stiffnesses {
            for ratio in Self.ratios {
                let target = "k\(k)-z\(ratio)"
                springs.append((target, k, ratio))
                try engine.addPlan(plan(#"{"type":"Spring","property":"y","from":[0],"to":[1],"velocity":[0.5],"stiffness":\#(k),"dampingRatio":\#(ratio),"epsilon":1e-9}"#),
                                   to: target)
            }
        }
        var worst = Worst(), elapsed = 0.0
        for round in 0..<40 {
            for dt in Self.ticks {
                engine.advance(by: dt)
                elapsed += dt
                for spring in springs {
                    guard let value = engine.value(of: "y", target: spring.target)?.first,
                          let velocity = engine.velocity(of: "y", target: spring.target)?.first
                    else { continue }
                    let (x, v) = Self.closedForm(x0: -1, v0: 0.5, k: spring.k, ratio: spring.ratio, t: elapsed)
                    // At rest it sits on the target, within epsilon (1e-9) of the curve.
                    let error = max(abs(value - 1 - x), abs(velocity - v) / spring.k.squareRoot())
                    worst.see(error, "k \(spring.k), ratio \(spring.ratio), t \(elapsed) (round \(round))")
                }
            }
        }
        #expect(worst.error <= 1e-9, "largest error of value (travel 1), or velocity over ω: \(worst)")
    }

    /// Many lanes of one physics take the transition computed once per tick: the same curve.
    @Test func springsSharingTheirPhysicsAreTheClosedFormToo() throws {
        for (k, ratio) in [(800.0, 1.0), (1500, 0.3), (1e4, 0.1), (120, 3)] {
            let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
            for index in 0..<40 {
                try engine.addPlan(plan(#"{"type":"Spring","property":"y","from":[\#(index)],"to":[\#(index + 1)],"stiffness":\#(k),"dampingRatio":\#(ratio),"epsilon":1e-9}"#),
                                   to: "t\(index)")
            }
            var worst = Worst(), elapsed = 0.0
            for dt in Self.ticks + Self.ticks {
                engine.advance(by: dt)
                elapsed += dt
                let (x, _) = Self.closedForm(x0: -1, v0: 0, k: k, ratio: ratio, t: elapsed)
                for index in [0, 17, 39] {
                    let value = engine.value(of: "y", target: "t\(index)")?.first ?? .nan
                    worst.see(abs(value - Double(index + 1) - x), "t\(index), k \(k), ratio \(ratio), t \(elapsed)")
                }
            }
            #expect(worst.error <= 1e-9, "\(worst)")
        }
    }

    /// `Simulation` (what a hot swap rebuilds and a sample steps) evaluates the same closed form, and a
    /// retarget keeps value and velocity exactly.
    @Test func theSimulationIsTheClosedFormAndRetargetsExactly() {
        var worst = Worst()
        for k in Self.stiffnesses {
            for ratio in Self.ratios {
                let c = 2 * ratio * k.squareRoot()
                var simulation = Simulation(value: SIMD4(0, 0, 0, 0), velocity: SIMD4(0.5, 0, 0, 0),
                                            force: .spring(target: SIMD4(1, 0, 0, 0), tension: k, damping: c), threshold: 1e-12)
                var elapsed = 0.0
                for dt in Self.ticks + Self.ticks where !simulation.isSettled {
                    simulation.advance(by: dt)
                    elapsed += dt
                    let (x, v) = Self.closedForm(x0: -1, v0: 0.5, k: k, ratio: ratio, t: elapsed)
                    let shown = simulation.published
                    worst.see(max(abs(shown.value.x - 1 - x), abs(shown.velocity.x - v) / k.squareRoot()), "k \(k), ratio \(ratio), t \(elapsed)")
                }
            }
        }
        #expect(worst.error <= 1e-9, "\(worst)")

        var moving = Simulation(value: .zero, velocity: .zero, force: .spring(target: SIMD4(100, 0, 0, 0), tension: 120, damping: 12), threshold: 1e-9)
        moving.advance(by: 0.2)
        let before = moving.published
        let retargeted = moving.retargeted(to: .spring(target: .zero, tension: 300, damping: 10), threshold: 1e-9)
        #expect(retargeted.published.value == before.value && retargeted.published.velocity == before.velocity)
    }

    /// A decay is the exponential: x(t) = x0 + v0·(1 − e^(−drag·t))/drag.
    @Test func aDecayIsTheExponential() {
        for drag in [0.5, 3, 20, 300] {
            var simulation = Simulation(value: SIMD4(10, 0, 0, 0), velocity: SIMD4(1000, 0, 0, 0), force: .decay(drag: drag), threshold: 1e-9)
            var elapsed = 0.0
            for dt in Self.ticks where !simulation.isSettled {
                simulation.advance(by: dt)
                elapsed += dt
                let expected = 10 + 1000 * (1 - exp(-drag * elapsed)) / drag
                #expect(abs(simulation.published.value.x - expected) <= 1e-9 * 1000 / drag, "drag \(drag), t \(elapsed)")
                #expect(abs(simulation.published.velocity.x - 1000 * exp(-drag * elapsed)) <= 1e-9 * 1000, "drag \(drag), t \(elapsed)")
            }
        }
    }
}
