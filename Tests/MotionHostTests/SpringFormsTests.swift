import Foundation
@testable import MotionAnimation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// Every spring parameterisation users know is the same physics (docs/vocabulary.md): checked against the closed
/// forms of the damped oscillator, through the shipped (dlopen'd) Spring plugin at 120 Hz.
@Suite("Spring forms")
struct SpringFormsTests {
    /// x(t) of x'' = −k(x − target) − c·x', from x0 with velocity v0, in all three regimes.
    static func closedForm(x0: Double, v0: Double, target: Double, k: Double, c: Double, t: Double) -> Double {
        let w0 = k.squareRoot(), zeta = c / (2 * w0), a = x0 - target
        if abs(zeta - 1) < 1e-9 {
            return target + (a + (v0 + w0 * a) * t) * exp(-w0 * t)
        }
        if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot(), b = (v0 + zeta * w0 * a) / wd
            return target + exp(-zeta * w0 * t) * (a * cos(wd * t) + b * sin(wd * t))
        }
        let root = w0 * (zeta * zeta - 1).squareRoot(), r1 = -zeta * w0 + root, r2 = -zeta * w0 - root
        let c1 = (v0 - r2 * a) / (r1 - r2), c2 = a - c1
        return target + c1 * exp(r1 * t) + c2 * exp(r2 * t)
    }

    func follows(_ spring: JSONValue, k: Double, c: Double) throws {
        let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
        guard case .object(var plan) = spring else { return }
        plan["type"] = "Spring"
        plan["property"] = "x"
        plan["from"] = [0]
        plan["to"] = [100]
        plan["velocity"] = [50]
        plan["threshold"] = 1e-6
        try engine.addPlan(.object(plan), to: "card")
        for frame in 1...120 {
            engine.advance(by: 1.0 / 120)
            guard frame % 6 == 0 else { continue }
            let t = Double(frame) / 120
            let expected = Self.closedForm(x0: 0, v0: 50, target: 100, k: k, c: c, t: t)
            let value = engine.value(of: "x", target: "card")?.first ?? .nan
            // Published values are interpolated between 8 ms RK4 steps (docs/vocabulary.md): within 0.05 of 100, as
            // the socket-level closed-form test holds them.
            #expect(abs(value - expected) < 0.05, "\(spring) at t=\(t): \(value) vs \(expected)")
        }
    }

    @Test func durationAndBounceAreSwiftUIs() throws {
        let spring = try SpringParameters(SpringPlan(property: "x", to: [1], duration: 0.5, bounce: 0.3))
        #expect(abs(spring.tension - 157.9137) < 1e-3, "stiffness (2π/0.5)²")
        #expect(abs(spring.damping - 17.5929) < 1e-3, "damping 4π·0.7/0.5")
        try follows(["duration": 0.5, "bounce": 0.3], k: 157.91367041742973, c: 17.592918860102841)
    }

    @Test func anUnderDampedTensionSpringFollowsTheClosedForm() throws {
        try follows(["tension": 200, "damping": 10], k: 200, c: 10)
    }

    @Test func aCriticallyDampedRatioAndResponseSpringFollowsTheClosedForm() throws {
        let omega = 2 * Double.pi / 0.4
        try follows(["dampingRatio": 1, "response": 0.4], k: omega * omega, c: 2 * omega)
    }

    @Test func anOverDampedStiffnessDampingMassSpringFollowsTheClosedForm() throws {
        try follows(["stiffness": 100, "damping": 40, "mass": 2], k: 50, c: 20)
    }

    @Test func aNegativeBounceIsOverDamped() throws {
        let spring = try SpringParameters(SpringPlan(property: "x", to: [1], duration: 1, bounce: -0.5))
        #expect(abs(spring.damping - 4 * Double.pi * 2) < 1e-9, "dampingRatio 1/(1 + bounce) = 2 for bounce −0.5")
    }

    /// Issue #39: libadwaita's and niri's form, stiffness + dampingRatio (+ mass): damping 2ζ√(k·m).
    @Test func stiffnessAndDampingRatioAreLibadwaitasAndNirisForm() throws {
        let spring = try SpringParameters(SpringPlan(property: "x", to: [1], stiffness: 800, mass: 2, dampingRatio: 0.5))
        #expect(abs(spring.tension - 400) < 1e-9 && abs(spring.damping - 20) < 1e-9, "k/m, 2ζ√(k·m)/m: \(spring)")
        // (Stiffer springs are off the closed form by more than this test allows: issue #39's exact springs.)
        try follows(["stiffness": 200, "dampingRatio": 1], k: 200, c: 2 * 200.0.squareRoot())
        try follows(["stiffness": 150, "dampingRatio": 0.3, "mass": 1.5], k: 100, c: 2 * 0.3 * (150.0 * 1.5).squareRoot() / 1.5)
    }

    /// Issue #39: the rest rule is relative to the motion (`epsilon` of its travel, 0.001 by default): a
    /// spring from 0.9 to 1 animates and ends within 1e-4 of its target; one from 0 to 400 takes as long
    /// as one from 0 to 1; `threshold` stays the absolute rule, and the two cannot be mixed.
    @Test func theRestRuleIsRelativeToTheMotion() throws {
        func settles(_ json: String) throws -> (frames: Int, values: [Double]) {
            let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
            try engine.addPlan(plan(json), to: "card")
            var values: [Double] = []
            for frame in 1...2400 {
                engine.advance(by: 1.0 / 120)
                values.append(engine.value(of: "scale", target: "card")?.first ?? .nan)
                if !engine.isAnimating { return (frame, values) }
            }
            return (2400, values)
        }
        let small = try settles(#"{"type":"Spring","property":"scale","from":[0.9],"to":[1],"dampingRatio":0.6,"response":0.4}"#)
        #expect(small.frames > 30, "0.9 → 1 animates: \(small.frames) frames")
        let beforeEnd = small.values.dropLast().last ?? .nan
        #expect(abs(beforeEnd - 1) <= 1e-4 + 1e-12, "the last step onto the target is at most epsilon of the travel: \(beforeEnd)")
        #expect(small.values.last == 1)
        let unit = try settles(#"{"type":"Spring","property":"scale","from":[0],"to":[1],"stiffness":800,"dampingRatio":1}"#)
        let pixels = try settles(#"{"type":"Spring","property":"scale","from":[0],"to":[400],"stiffness":800,"dampingRatio":1}"#)
        #expect(unit.frames == pixels.frames, "the same motion in other units takes as long: \(unit.frames) vs \(pixels.frames)")
        let loose = try settles(#"{"type":"Spring","property":"scale","from":[0],"to":[1],"stiffness":800,"dampingRatio":1,"epsilon":0.01}"#)
        #expect(loose.frames < unit.frames, "a larger epsilon rests sooner: \(loose.frames) vs \(unit.frames)")
        let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
        #expect(throws: EngineError.self, "threshold and epsilon together") {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"threshold":0.1,"epsilon":0.01}"#), to: "card")
        }
    }

    @Test func mixingFormsIsRefusedNamingTheFields() throws {
        let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
        #expect(throws: EngineError(.invalidPlan, "tension, stiffness: one spring form per plan (tension/damping, stiffness/damping/mass, stiffness/dampingRatio/mass, dampingRatio/response or duration/bounce)")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"tension":100,"stiffness":100}"#), to: "card")
        }
        #expect(throws: EngineError(.invalidPlan, "dampingRatio, damping: one spring form per plan (tension/damping, stiffness/damping/mass, stiffness/dampingRatio/mass, dampingRatio/response or duration/bounce)")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"dampingRatio":0.5,"damping":3}"#), to: "card")
        }
        // `response` beside the stiffness form was dropped without a word.
        #expect(throws: EngineError(.invalidPlan, "stiffness, dampingRatio, response: one spring form per plan (tension/damping, stiffness/damping/mass, stiffness/dampingRatio/mass, dampingRatio/response or duration/bounce)")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"stiffness":600,"dampingRatio":0.7,"response":0.05}"#), to: "card")
        }
        #expect(throws: EngineError(.invalidPlan, "stiffness, response: one spring form per plan (tension/damping, stiffness/damping/mass, stiffness/dampingRatio/mass, dampingRatio/response or duration/bounce)")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"stiffness":600,"response":0.05}"#), to: "card")
        }
        #expect(engine.performerCount <= 1 && !engine.isAnimating, "nothing moves")
    }

    /// `overshootClamping` ends an under-damped spring where the closed form first reaches its target
    /// (within one 8 ms step and one frame), with velocity 0 and never past the target — in the
    /// vectorised lanes of the running spring and in the Swift simulation a hot swap rebuilds alike.
    @Test func overshootClampingEndsTheSpringTheFirstTimeItReachesItsTarget() throws {
        let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","from":[0],"to":[100],"tension":200,"damping":10,"overshootClamping":true,"threshold":1e-6}"#),
                           to: "card")
        let k = 200.0, c = 10.0, w0 = k.squareRoot(), zeta = c / (2 * w0), wd = w0 * (1 - zeta * zeta).squareRoot()
        let reaches = (Double.pi - atan(wd / (zeta * w0))) / wd
        #expect(Self.closedForm(x0: 0, v0: 0, target: 100, k: k, c: c, t: reaches + 0.01) > 100, "it would overshoot")
        var endedAt: Double?
        for frame in 1...120 {
            engine.advance(by: 1.0 / 120)
            let value = engine.value(of: "x", target: "card")?.first ?? .nan
            #expect(value <= 100, "never past the target: \(value)")
            if endedAt == nil, !engine.isActive(runtime: Engine.defaultRuntime) {
                endedAt = Double(frame) / 120
                #expect(value == 100 && engine.velocity(of: "x", target: "card") == [0])
            }
        }
        let ended = try #require(endedAt)
        #expect(ended >= reaches - 0.008 - 1e-9 && ended <= reaches + 0.008 + 1.0 / 120, "ended at \(ended), reaches at \(reaches)")
        var simulation = Simulation(value: [0, 0, 0, 0], velocity: .zero, force: .spring(target: [100, 0, 0, 0], tension: k, damping: c),
                                    threshold: 1e-6, clampsAtTarget: true)
        var time = 0.0
        while !simulation.isSettled && time < 2 {
            simulation.advance(by: 1.0 / 120, components: 1)
            time += 1.0 / 120
        }
        #expect(abs(time - ended) < 1e-9, "the Swift simulation ends at the same frame: \(time) vs \(ended)")
    }
}
