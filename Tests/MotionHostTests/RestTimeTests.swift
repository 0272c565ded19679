import Foundation
@testable import MotionAnimation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// A spring rests at the time its rest rule first holds, exactly (docs/vocabulary.md#when-a-spring-rests):
/// `RestTime` against a search of the textbook closed form over the sweep of `ExactMotionTests`; the lanes
/// and `Simulation` rest there whatever the ticks; `plan.sample` reports it and its samples do not depend on
/// the other times asked.
@Suite("Rest time")
struct RestTimeTests {
    /// The rule on the textbook closed form: every component's offset and velocity within `limit`.
    static func holds(_ starts: [(x0: Double, v0: Double)], k: Double, ratio: Double, limit: Double, at t: Double, slack: Double = 0) -> Bool {
        starts.allSatisfy { start in
            let (x, v) = ExactMotionTests.closedForm(x0: start.x0, v0: start.v0, k: k, ratio: ratio, t: t)
            return abs(x) <= limit * (1 + slack) && abs(v) <= limit * (1 + slack)
        }
    }

    /// Searched: steps of 1/400 of the natural period up to where the slowest mode has decayed far below
    /// the limit, then halved to 1e-12 s inside the first step where the rule holds.
    static func searched(_ starts: [(x0: Double, v0: Double)], k: Double, ratio: Double, limit: Double) -> (first: Double?, step: Double) {
        let w0 = k.squareRoot()
        let rate = ratio < 1 ? ratio * w0 : w0 * (ratio - (ratio * ratio - 1).squareRoot())
        let step = 2 * Double.pi / w0 / 400, end = (log(1 / limit) + 12) / rate
        var t = 0.0
        guard !holds(starts, k: k, ratio: ratio, limit: limit, at: 0) else { return (0, step) }
        while t < end {
            let next = t + step
            if holds(starts, k: k, ratio: ratio, limit: limit, at: next) {
                var (low, high) = (t, next)
                while high - low > 1e-12 * max(1, high) {
                    let middle = (low + high) / 2
                    if holds(starts, k: k, ratio: ratio, limit: limit, at: middle) { high = middle } else { low = middle }
                }
                return (high, step)
            }
            t = next
        }
        return (nil, step)
    }

    @Test func theRestTimeIsTheFirstTimeTheRuleHoldsOverTheSweep() {
        var checked = 0
        let cases: [[(x0: Double, v0: Double)]] = [[(-1, 0.5)], [(-1, 0)], [(0, 3)], [(-1, 0), (0.4, -2)]]
        for k in ExactMotionTests.stiffnesses {
            for ratio in ExactMotionTests.ratios {
                for starts in cases {
                    for limit in [1e-3, 1e-6] {
                        let c = 2 * ratio * k.squareRoot()
                        var offset = SIMD4<Double>(), velocity = SIMD4<Double>()
                        for (d, start) in starts.enumerated() { (offset[d], velocity[d]) = start }
                        let found = RestTime.spring(offset: offset, velocity: velocity, tension: k, damping: c, threshold: limit)
                        let what = "k \(k), ratio \(ratio), starts \(starts), limit \(limit): \(found)"
                        // It holds there…
                        #expect(Self.holds(starts, k: k, ratio: ratio, limit: limit, at: found, slack: 1e-6), "\(what) does not hold")
                        // …and it is not later than the search found (the search misses the moments a stiff
                        // spring's speed passes within E at a turning point, often far narrower than its steps).
                        if let first = Self.searched(starts, k: k, ratio: ratio, limit: limit).first {
                            #expect(found <= first + 1e-9 * max(1, first), "\(what); searched \(first)")
                        }
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == ExactMotionTests.stiffnesses.count * ExactMotionTests.ratios.count * 8)
        // Undamped: where the rule holds on its orbit, or never; at rest already: at once; a decay: ln(|v|/E)/drag.
        #expect(RestTime.spring(offset: SIMD4(1, 0, 0, 0), velocity: .zero, tension: 100, damping: 0, threshold: 1e-3) == .infinity)
        let orbit = RestTime.spring(offset: SIMD4(-0.002, 0, 0, 0), velocity: .zero, tension: 0.25, damping: 0, threshold: 1e-3)
        #expect(abs(orbit - 2 * Double.pi / 3) < 1e-9, "x = −0.002·cos(t/2) is within 0.001 from t = 2π/3: \(orbit)")
        // So light a damping that the rule could hold only past 2²⁰ quarter turns: never (and at once)…
        #expect(RestTime.spring(offset: SIMD4(-1000, 0, 0, 0), velocity: .zero, tension: 120, damping: 1e-16, threshold: 1) == .infinity)
        // …but a rule met early is found however far the envelope's guarantee is: v = 3·cos 10t is within
        // 1 from acos(1/3)/10 (x within 0.3 all along); an overdamped spring whose slow mode takes 1e9 s.
        let early = RestTime.spring(offset: .zero, velocity: SIMD4(3, 0, 0, 0), tension: 100, damping: 1e-5, threshold: 1)
        #expect(abs(early - acos(1.0 / 3) / 10) < 1e-5, "\(early)")
        let slow = RestTime.spring(offset: .zero, velocity: SIMD4(1.5, 0, 0, 0), tension: 1e-9, damping: 1, threshold: 1)
        #expect(abs(slow - log(1.5)) < 1e-6, "\(slow)")
        #expect(RestTime.spring(offset: SIMD4(1e-4, 0, 0, 0), velocity: .zero, tension: 100, damping: 2, threshold: 1e-3) == 0)
        #expect(abs(RestTime.decay(velocity: SIMD4(-1000, 10, 0, 0), drag: 3, threshold: 0.1) - log(10_000) / 3) < 1e-12)
    }

    /// The case a rule tested at frames got wrong (docs/vocabulary.md#when-a-spring-rests): k = 1000, ζ = 0.6
    /// first meets the rule for 2.4 ms between two frames, at 0.371 s; tested at 120 Hz frames it rested at
    /// 0.492 s, half a period later.
    @Test func theLanesAndTheSimulationRestThereWhateverTheTicks() throws {
        let k = 1000.0, ratio = 0.6, c = 2 * ratio * k.squareRoot()
        let expected = try #require(Self.searched([(-1, 0)], k: k, ratio: ratio, limit: 1e-3).first)
        #expect(abs(expected - 0.371) < 0.001, "\(expected)")
        for ticks in [[1.0 / 120], [1.0 / 60, 0.0031, 1.0 / 144], [0.05, 0.0007]] {
            // The shipped plugin's lanes…
            let engine = try ShippedPlanSchemaTests.engine(["SpringPlugin"])
            try engine.addPlan(plan(#"{"type":"Spring","property":"y","from":[0],"to":[1],"stiffness":1000,"dampingRatio":0.6}"#), to: "s")
            // …and `Simulation`.
            var simulation = Simulation(value: .zero, velocity: .zero, force: .spring(target: SIMD4(1, 0, 0, 0), tension: k, damping: c), threshold: 1e-3)
            var elapsed = 0.0, index = 0
            while elapsed < 0.7 {
                let dt = ticks[index % ticks.count]
                index += 1
                engine.advance(by: dt)
                simulation.advance(by: dt)
                elapsed += dt
                let value = try #require(engine.value(of: "y", target: "s")?.first)
                let (x, _) = ExactMotionTests.closedForm(x0: -1, v0: 0, k: k, ratio: ratio, t: elapsed)
                if elapsed < expected - 1e-9 {
                    #expect(abs(value - 1 - x) < 1e-12 && abs(simulation.published.value.x - 1 - x) < 1e-12, "moving at \(elapsed) (ticks \(ticks))")
                } else if elapsed > expected + 1e-9 {
                    #expect(value == 1 && simulation.isSettled && simulation.published.value.x == 1, "at rest at \(elapsed) (ticks \(ticks)): \(value)")
                }
            }
        }
    }

    /// `plan.sample`: `settlingDuration` is that time, and a sample's value does not depend on the other
    /// times asked with it.
    @Test func aSampleIsTheSameWhateverElseIsAsked() throws {
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output, plugins: ["SpringPlugin", "TweenPlugin"])
        func sample(_ times: [Double]) -> JSONValue {
            let spring: JSONValue = ["type": "Spring", "property": "y", "from": [0], "to": [1], "stiffness": 1000, "dampingRatio": 0.6]
            return TestContext.call(context, "plan.sample", ["plan": spring, "times": .array(times.map { .number($0) })], on: output)
        }
        let expected = try #require(Self.searched([(-1, 0)], k: 1000, ratio: 0.6, limit: 1e-3).first)
        let alone = sample([0.45])
        let withOthers = sample([0.1, 0.372, 0.45])
        let value = { (reply: JSONValue, index: Int) in reply["samples"]?.arrayValue?[index]["value"] }
        #expect(value(alone, 0) == value(withOthers, 2), "\(alone) vs \(withOthers)")
        #expect(value(alone, 0) == [1], "at rest at 0.45: \(alone)")
        for reply in [alone, withOthers] {
            #expect(abs((reply["settlingDuration"]?.doubleValue ?? -1) - expected) <= 1e-6, "\(reply["settlingDuration"] ?? .null) vs \(expected)")
        }
        // A step after the spring in a Sequence starts at its rest time, whatever the frames: a linear
        // tween of 1 s from 1 to 2 is at 1.1 at 0.1 s past it.
        let sequence: JSONValue = ["type": "Sequence", "steps": [
            ["type": "Spring", "property": "y", "from": [0], "to": [1], "stiffness": 1000, "dampingRatio": 0.6],
            ["type": "Tween", "property": "y", "from": [1], "to": [2], "duration": 1, "timing": "linear"]]]
        // So does one after a step that finishes at once (a spring already at its target).
        var atRest = sequence
        atRest["steps"] = [sequence["steps"]?.arrayValue?[0] ?? .null, ["type": "Spring", "property": "y", "to": [1]],
                           sequence["steps"]?.arrayValue?[1] ?? .null]
        for plan in [sequence, atRest] {
            for times in [[expected + 0.1], [0.2, expected + 0.001, expected + 0.1], [0.05, 0.3333, 0.4, expected + 0.1]] {
                let reply = TestContext.call(context, "plan.sample", ["plan": plan, "times": .array(times.map { .number($0) })], on: output)
                let last = reply["samples"]?.arrayValue?.last?["value"]?.arrayValue?.first?.doubleValue ?? .nan
                #expect(abs(last - 1.1) < 1e-9, "\(times): \(reply)")
            }
        }
    }
}
