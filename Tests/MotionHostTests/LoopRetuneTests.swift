@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// A running loop whose curve changes (docs/themes.md#live-retune): bridged from its value and velocity
/// to the end of the way it is on, then its cycles in phase with the new curve, ending when and where they
/// would have.
extension ThemeTests {
    static let loop: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [100], "timing": "@standard",
                                  "duration": "@medium2", "repeat": 3, "autoreverse": true]

    /// `theme` with `change` made to the shipped one, set; returns the tokens it changed.
    func setTheme(_ change: (inout JSONValue) -> Void) -> JSONValue? {
        var theme = ShippedThemes.motiond.json
        change(&theme)
        theme["name"] = "changed"
        return call("theme.set", ["theme": theme])["changed"]
    }

    /// Ticks 1 ms frames until the default runtime rests (at most `limit` s); returns the time it took.
    func runToRest(limit: Double = 10) -> Double {
        var time = 0.0
        while context.engine.isActive(runtime: "0/default"), time < limit {
            context.tick(dt: 1.0 / 1000)
            time += 1.0 / 1000
        }
        return time
    }

    /// In the way there, the way back and a later cycle: no jump in value or velocity at the change, the
    /// new curve's values in phase once the way under way is over, the end at the same time and place.
    @Test(arguments: [30, 50, 100]) func aLoopsNewCurveTakesOverWithoutAJump(ticks: Int) throws {
        #expect(call("plan.add", ["target": "card", "plan": Self.loop])["performer"] != nil)
        for _ in 0..<ticks { context.tick(dt: 1.0 / 120) }
        let before = cardState()
        #expect(abs(before.velocity) > 1, "under way: \(before)")
        #expect(setTheme { $0["timings"]?["standard"] = "ease-out" } == ["timings.standard"])
        #expect(abs(cardState().value - before.value) < 1e-9, "no jump in value: \(before.value) → \(cardState().value)")
        context.tick(dt: 1e-5)
        let next = cardState()
        #expect(abs(next.velocity - before.velocity) < 0.01 * abs(before.velocity), "no jump in velocity: \(before) → \(next)")
        // Past the way under way (a way is 0.3 s), the loop is where the new one would be at that time.
        let elapsed = Double(ticks) / 120 + 1e-5
        let wayEnd = (elapsed / 0.3).rounded(.up) * 0.3
        var time = elapsed
        while time < wayEnd + 0.1 {
            context.tick(dt: 1.0 / 1000)
            time += 1.0 / 1000
        }
        var newLoop = Self.loop
        newLoop["timing"] = "ease-out"
        newLoop["duration"] = 0.3
        let expected = sample(newLoop, time)["value"]?.arrayValue?.first?.doubleValue ?? .nan
        #expect(abs(cardState().value - expected) < 1e-6, "in phase with the new curve: \(cardState().value) vs \(expected)")
        let remaining = 1.8 - time
        let took = runToRest()
        #expect(abs(took - remaining) < 0.0015, "ended after \(took) s, expected \(remaining) s")
        #expect(abs(cardState().value) < 1e-9, "ends where its cycles began: \(cardState())")
    }

    /// A second retune while the bridge runs (the duration doubled) carries the bridge on: no jump, and
    /// the rest of the loop takes twice the time it had left.
    @Test func aRetuneDuringALoopsBridgeCarriesItOn() throws {
        _ = call("plan.add", ["target": "card", "plan": Self.loop])
        for _ in 0..<30 { context.tick(dt: 1.0 / 120) }
        #expect(setTheme { $0["timings"]?["standard"] = "ease-out" } == ["timings.standard"])
        for _ in 0..<3 { context.tick(dt: 1.0 / 120) }
        let before = cardState()
        #expect(setTheme {
            $0["timings"]?["standard"] = "ease-out"
            $0["durations"]?["medium2"] = 0.6
        } == ["durations.medium2"])
        #expect(abs(cardState().value - before.value) < 1e-9, "no jump in value: \(before.value) → \(cardState().value)")
        context.tick(dt: 1e-5)
        #expect(abs(cardState().velocity - before.velocity) < 0.01 * abs(before.velocity), "no jump in velocity: \(before) → \(cardState())")
        let remaining = 2 * (1.8 - 33.0 / 120) - 1e-5
        let took = runToRest()
        #expect(abs(took - remaining) < 0.0015, "ended after \(took) s, expected \(remaining) s")
        #expect(abs(cardState().value) < 1e-9, "\(cardState())")
    }

    /// A named loop cannot be a `Sequence`: a new curve moves it in phase (the named plan replaced, not
    /// refused), and a later retune still carries it on.
    @Test func aNamedLoopMovesToItsNewCurveInPhase() throws {
        #expect(call("plan.add", ["target": "card", "name": "pulse", "plan": Self.loop])["performer"] != nil)
        for _ in 0..<30 { context.tick(dt: 1.0 / 120) }
        #expect(setTheme { $0["timings"]?["standard"] = "ease-out" } == ["timings.standard"])
        var newLoop = Self.loop
        newLoop["timing"] = "ease-out"
        newLoop["duration"] = 0.3
        let expected = sample(newLoop, 0.25)["value"]?.arrayValue?.first?.doubleValue ?? .nan
        #expect(abs(cardState().value - expected) < 1e-6, "in phase on the new curve: \(cardState().value) vs \(expected)")
        #expect(!output.lines.contains { $0["kind"] == "animation.ended" && $0["reason"] == "interrupted" && $0["planType"] == "Sequence" })
        #expect(setTheme {
            $0["timings"]?["standard"] = "ease-out"
            $0["durations"]?["medium2"] = 0.6
        } == ["durations.medium2"])
        let took = runToRest()
        #expect(abs(took - 2 * (1.8 - 0.25)) < 0.0015, "ended after \(took) s")
    }

    /// A staggered loop is remembered with its own target's delay: a new duration alone carries it on in
    /// phase (half the speed at once), not bridged as if its shape had changed.
    @Test func aStaggeredLoopsNewDurationIsCarriedOnInPhase() throws {
        let add = call("plan.add", ["targets": ["a", "b", "c"], "stagger": 0.05, "plan": Self.loop])
        #expect(add["performers"]?.arrayValue?.count == 3, "\(add)")
        for _ in 0..<30 { context.tick(dt: 1.0 / 120) }
        func velocity() -> Double { context.engine.velocity(of: "x", target: "b", runtime: "0/default")?[0] ?? .nan }
        let before = velocity()
        #expect(abs(before) > 1)
        #expect(setMedium2(0.6) == ["durations.medium2"])
        context.tick(dt: 1e-5)
        #expect(abs(velocity() - before / 2) < 0.01 * abs(before), "half the speed: \(before) → \(velocity())")
    }

    /// Repeating keyframes (there and back along a path) are bridged along the path they are on.
    @Test(arguments: [20, 50]) func repeatingKeyframesTakeANewCurveWithoutAJump(ticks: Int) throws {
        let plan: JSONValue = ["type": "Keyframes", "property": "x", "values": [[0], [100], [40]], "timing": "@standard",
                               "duration": "@medium2", "repeat": 2, "autoreverse": true]
        _ = call("plan.add", ["target": "card", "plan": plan])
        for _ in 0..<ticks { context.tick(dt: 1.0 / 120) }
        let before = cardState()
        #expect(setTheme { $0["timings"]?["standard"] = "ease-out" } == ["timings.standard"])
        #expect(abs(cardState().value - before.value) < 1e-9, "no jump in value: \(before.value) → \(cardState().value)")
        context.tick(dt: 1e-5)
        #expect(abs(cardState().velocity - before.velocity) < 0.01 * abs(before.velocity), "no jump in velocity: \(before) → \(cardState())")
        let remaining = 1.2 - Double(ticks) / 120 - 1e-5
        let took = runToRest()
        #expect(abs(took - remaining) < 0.0015, "ended after \(took) s, expected \(remaining) s")
        #expect(abs(cardState().value) < 1e-9, "\(cardState())")
    }
}
