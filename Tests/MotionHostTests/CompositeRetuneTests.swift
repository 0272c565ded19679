import Foundation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// A running `Sequence` or `Group` that used tokens, retuned (docs/themes.md#live-retune): its step under
/// way carried on without a jump, its later steps with the new values, a second retune from where the
/// first left it.
extension ThemeTests {
    /// A linear tween of `x` to 100 in 0.1 s (no token), then back to 0 over `@medium2` (0.3 s).
    static let twoSteps: JSONValue = ["type": "Sequence", "steps": [
        ["type": "Tween", "property": "x", "from": [0], "to": [100], "timing": "linear", "duration": 0.1],
        ["type": "Tween", "property": "x", "to": [0], "timing": "linear", "duration": "@medium2"],
    ]]

    func setMedium2(_ seconds: Double) -> JSONValue? {
        setTheme { $0["durations"]?["medium2"] = .number(seconds) }
    }

    /// Ticks `count` frames of 1 ms.
    func tickMilliseconds(_ count: Int) {
        for _ in 0..<count { context.tick(dt: 1.0 / 1000) }
    }

    /// Retuned in its first step: that step goes on as it was (no jump), and its second step takes the new
    /// duration (0.6 s, not 0.3 s).
    @Test func aSequencesLaterStepsTakeTheNewValues() throws {
        #expect(call("plan.add", ["target": "card", "plan": Self.twoSteps])["performer"] != nil)
        tickMilliseconds(50)
        let before = cardState()
        #expect(abs(before.value - 50) < 1e-6 && abs(before.velocity - 1000) < 1e-6, "half-way up: \(before)")
        #expect(setMedium2(0.6) == ["durations.medium2"])
        #expect(abs(cardState().value - before.value) < 1e-9, "no jump: \(before) → \(cardState())")
        tickMilliseconds(25)
        #expect(abs(cardState().value - 75) < 1e-6, "the first step as it was: \(cardState())")
        let took = runToRest()
        #expect(abs(took - (0.025 + 0.6)) < 0.0015, "the rest of the first step, then 0.6 s: \(took) s")
        #expect(abs(cardState().value) < 1e-9)
    }

    /// Retuned in its second step, a tween over `@medium2` a sixth of the way: no jump in value or
    /// velocity, the rest of its way over its share of the new duration; retuned again (0.15 s), the
    /// share left of that.
    @Test func aSequencesStepUnderWayIsCarriedOnAndRetunedAgain() throws {
        _ = call("plan.add", ["target": "card", "plan": Self.twoSteps])
        tickMilliseconds(150)
        let before = cardState()
        #expect(abs(before.value - 100 * (1 - 0.05 / 0.3)) < 1e-6, "a sixth of the way back: \(before)")
        #expect(setMedium2(0.6) == ["durations.medium2"])
        #expect(abs(cardState().value - before.value) < 1e-9, "no jump: \(before) → \(cardState())")
        context.tick(dt: 1e-5)
        #expect(abs(cardState().velocity - before.velocity) < 0.01 * abs(before.velocity), "\(before) → \(cardState())")
        // 0.5 s left; 0.1 s later, 0.4 s (a third of the way done, in all): at 0.15 s, two thirds of that.
        tickMilliseconds(100)
        let again = cardState()
        #expect(setMedium2(0.15) == ["durations.medium2"])
        #expect(abs(cardState().value - again.value) < 1e-9, "no jump: \(again) → \(cardState())")
        let left = 0.15 * (1 - (0.05 + 0.1 / 0.6 * 0.3 + 1e-5 / 0.6 * 0.3) / 0.3)
        let took = runToRest()
        #expect(abs(took - left) < 0.0015, "ended after \(took) s, expected \(left) s")
        #expect(abs(cardState().value) < 1e-9)
    }

    /// A Group's plans are carried on each by its own rule: the spring from its value and velocity on the
    /// new spring (its closed form), the tween over its share of the new duration; one that ended is left out.
    @Test func aGroupsPlansAreCarriedOnEachByItsRule() throws {
        let group: JSONValue = ["type": "Group", "plans": [
            ["type": "Spring", "property": "x", "from": [0], "to": [100], "spring": "@spatial.slow"],
            ["type": "Tween", "property": "y", "from": [0], "to": [100], "timing": "linear", "duration": "@medium2"],
            ["type": "Tween", "property": "z", "from": [0], "to": [1], "timing": "linear", "duration": 0.05],
        ]]
        #expect(call("plan.add", ["target": "card", "plan": group])["performer"] != nil)
        tickMilliseconds(100)
        let runtime = "0/default"
        func state(_ property: String) -> (value: Double, velocity: Double) {
            (context.engine.value(of: property, target: "card", runtime: runtime)?[0] ?? .nan,
             context.engine.velocity(of: property, target: "card", runtime: runtime)?[0] ?? .nan)
        }
        let (x, y) = (state("x"), state("y"))
        #expect(state("z").value == 1, "the third plan has ended")
        #expect(setTheme {
            $0["springs"]?["spatial.slow"] = ["dampingRatio": 1, "stiffness": 2000]
            $0["durations"]?["medium2"] = 0.6
        } == ["durations.medium2", "springs.spatial.slow"])
        #expect(state("x").value == x.value && state("x").velocity == x.velocity, "no jump in x")
        #expect(abs(state("y").value - y.value) < 1e-9, "no jump in y")
        context.tick(dt: 1.0 / 120)
        let w = 2000.0.squareRoot(), t = 1.0 / 120, x0 = x.value - 100, v0 = x.velocity
        let expected = 100 + (x0 + (v0 + w * x0) * t) * exp(-w * t)
        #expect(abs(state("x").value - expected) < 1e-9, "the new spring: \(state("x").value) vs \(expected)")
        // y, a third of the way: 0.4 s left of 0.6 s.
        var time = 1.0 / 120
        while state("y").value < 100, time < 2 {
            context.tick(dt: 1.0 / 1000)
            time += 1.0 / 1000
        }
        #expect(abs(time - 0.4) < 0.0015, "y over its share of 0.6 s: \(time) s")
        #expect(state("z").value == 1, "the ended plan is not started again")
        let carried = context.themes.tuned.values.first { $0.composite != nil }?.resolved["plans"]?.arrayValue
        #expect(carried?.compactMap { $0["property"]?.stringValue } == ["x", "y"], "the ended plan is left out: \(String(describing: carried))")
    }

    /// A Group's loop whose curve changed is bridged in it; a second retune (the Group's spring, and the
    /// loop's duration doubled) while the bridge runs carries the loop on too, without a jump: the rest of
    /// it takes twice the time it had left.
    @Test func aGroupsBridgedLoopIsCarriedOnByTheNextRetune() throws {
        let group: JSONValue = ["type": "Group", "plans": [Self.loop,
            ["type": "Spring", "property": "y", "from": [0], "to": [100], "spring": "@spatial.slow"]]]
        #expect(call("plan.add", ["target": "card", "plan": group])["performer"] != nil)
        tickMilliseconds(250)
        #expect(setTheme { $0["timings"]?["standard"] = "ease-out" } == ["timings.standard"])
        tickMilliseconds(10)
        let before = cardState()
        #expect(setTheme {
            $0["timings"]?["standard"] = "ease-out"
            $0["springs"]?["spatial.slow"] = ["dampingRatio": 1, "stiffness": 2000]
            $0["durations"]?["medium2"] = 0.6
        } == ["durations.medium2", "springs.spatial.slow"])
        #expect(abs(cardState().value - before.value) < 1e-9, "no jump: \(before) → \(cardState())")
        context.tick(dt: 1e-5)
        #expect(abs(cardState().velocity - before.velocity) < 0.01 * abs(before.velocity), "a bridge again: \(before) → \(cardState())")
        // The loop (1.8 s in all) had 1.54 s left: now 3.08 s; the stiff spring has long come to rest by then.
        var time = 0.26 + 1e-5
        while abs(cardState().velocity) > 0 || abs(cardState().value) > 1e-9, time < 5 {
            context.tick(dt: 1.0 / 1000)
            time += 1.0 / 1000
        }
        #expect(abs(time - (0.26 + 2 * 1.54)) < 0.0025, "the loop ended after \(time) s")
    }

    /// A client's plan on the property afterwards takes it: the composite is not retuned any more.
    @Test func aCompositeTakenOverIsNotRetuned() throws {
        _ = call("plan.add", ["target": "card", "plan": Self.twoSteps])
        tickMilliseconds(150)
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [50], "duration": 5]])
        tickMilliseconds(10)
        let before = cardState()
        #expect(setMedium2(0.6) == ["durations.medium2"])
        #expect(cardState().value == before.value && cardState().velocity == before.velocity)
        tickMilliseconds(1000)
        #expect(context.engine.isActive(runtime: "0/default"), "the client's 5 s tween runs on")
    }
}
