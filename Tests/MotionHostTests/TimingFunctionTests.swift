import Logging
import MotionAnimation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/vocabulary.md's timing model: CSS timing functions as strings, a Bézier solved to 1e-7 in x and extended
/// along its end tangents, and `plan.sample` that depends only on the time asked.
@Suite("Timing functions")
struct TimingFunctionTests {
    func curve(_ text: String) throws -> TimingCurve { try CSSTiming.parse(text).get() }

    @Test func stepsFollowCSSEasing1() throws {
        let cases: [(String, [(Double, Double)])] = [
            ("steps(4)", [(0, 0), (0.24, 0), (0.25, 0.25), (0.99, 0.75), (1, 1)]),
            ("steps(4, end)", [(0.5, 0.5)]),
            ("steps(4, jump-start)", [(0, 0.25), (0.25, 0.5), (1, 1)]),
            ("steps(4, start)", [(0.1, 0.25)]),
            ("steps(4, jump-none)", [(0, 0), (0.25, 1.0 / 3), (0.99, 1), (1, 1)]),
            ("steps(4, jump-both)", [(0, 0.2), (0.25, 0.4), (1, 1)]),
            ("step-start", [(0, 1), (0.5, 1)]),
            ("step-end", [(0.5, 0), (1, 1)]),
        ]
        for (text, points) in cases {
            let timing = try curve(text)
            for (input, output) in points {
                #expect(abs(timing.value(at: input) - output) < 1e-12, "\(text) at \(input)")
            }
        }
    }

    /// Issue #39: libadwaita's and niri's easing names by their own formulas (Clutter's set), not Béziers.
    @Test func theDesktopsEasingNamesAreTheirOwnFormulas() throws {
        for easing in DesktopEasing.allCases {
            let timing = try curve(easing.rawValue)
            // The elastic formulas start a 2⁻¹⁰-damped oscillation, not exactly 0 (libadwaita's do the same).
            let start = easing.rawValue.contains("elastic") ? 1e-3 : 1e-12
            #expect(abs(timing.value(at: 0)) < start && abs(timing.value(at: 1) - 1) < 1e-12, "\(easing.rawValue) runs 0 → 1")
            if easing.rawValue.hasPrefix("ease-in-out-") {
                let (below, above) = (timing.value(at: 0.5 - 1e-9), timing.value(at: 0.5 + 1e-9))
                #expect(abs(below - above) < 1e-4, "\(easing.rawValue) is continuous where its halves meet: \(below) \(above)")
            }
        }
        // Values worked out by hand from the formulas (circ's halves meet with an infinite slope).
        let known: [(String, Double, Double)] = [
            ("ease-out-quad", 0.5, 0.75), ("ease-out-cubic", 0.5, 0.875), ("ease-out-expo", 0.5, 0.96875),
            ("ease-in-expo", 0.5, 0.03125), ("ease-in-out-quad", 0.25, 0.125), ("ease-in-out-cubic", 0.75, 0.9375),
            ("ease-in-quart", 0.5, 0.0625), ("ease-in-quint", 0.5, 0.03125), ("ease-in-out-sine", 0.5, 0.5),
            ("ease-out-sine", 1.0 / 3, 0.5), ("ease-in-circ", 0.6, 0.2), ("ease-out-bounce", 1 / 2.75, 1),
            ("ease-out-bounce", 0.5, 0.765625), ("ease-in-back", 0.5, -0.0876975), ("ease-out-elastic", 0.075, 1),
            ("ease-in-out-expo", 0.25, 0.015625),
        ]
        for (name, input, output) in known {
            let value = try curve(name).value(at: input)
            #expect(abs(value - output) < 1e-9, "\(name) at \(input): \(value)")
        }
        // The slope is the formula's derivative: ease-out-cubic's is 3 (1 − p)².
        #expect(abs(try curve("ease-out-cubic").slope(at: 0.5) - 0.75) < 1e-6)
        #expect(abs(try curve("ease-in-quad").slope(at: 0.3) - 0.6) < 1e-6)
        if case .failure(let error) = CSSTiming.parse("ease-out-cubix") {
            #expect("\(error)".contains("ease-out-cubic"), "the names are listed: \(error)")
        }
    }

    @Test func linearFollowsCSSEasing2() throws {
        let cases: [(String, [(Double, Double)])] = [
            ("linear(0, 0.25, 1)", [(0.25, 0.125), (0.5, 0.25), (0.75, 0.625)]),
            ("linear(0, 0.8 60%, 1)", [(0.3, 0.4), (0.6, 0.8), (0.8, 0.9)]),
            ("linear(0 0% 50%, 1 50% 100%)", [(0.25, 0), (0.5, 1), (0.75, 1)]),
            ("linear(0, 1 40%, 0.5 20%, 1)", [(0.4, 0.5), (0.7, 0.75)]),
            ("linear(0, 1)", [(-0.5, -0.5), (1.5, 1.5)]),
        ]
        for (text, points) in cases {
            let timing = try curve(text)
            for (input, output) in points {
                #expect(abs(timing.value(at: input) - output) < 1e-12, "\(text) at \(input): \(timing.value(at: input))")
            }
        }
    }

    @Test func cssNamesAreTheirBeziers() throws {
        for (name, points) in [("ease", [0.25, 0.1, 0.25, 1.0]), ("ease-in", [0.42, 0, 1, 1]), ("ease-out", [0, 0, 0.58, 1]),
                               ("ease-in-out", [0.42, 0, 0.58, 1])] {
            let reference = UnitBezier(points[0], points[1], points[2], points[3])
            let written = try curve("cubic-bezier(\(points.map { "\($0)" }.joined(separator: ", ")))")
            for input in stride(from: 0.0, through: 1, by: 0.05) {
                #expect(try curve(name).value(at: input) == reference.solve(input))
                #expect(written.value(at: input) == reference.solve(input))
            }
        }
    }

    /// 1e-7 in x whatever the duration: x(t) of the solved parameter is within 1e-7 of the input.
    @Test func aBezierIsSolvedTo1e7InX() {
        for points in [[0.25, 0.1, 0.25, 1.0], [0.42, 0, 0.58, 1], [0.4, 0, 0.2, 1], [0.68, -0.55, 0.265, 1.55], [1, 0, 0, 1]] {
            let bezier = UnitBezier(points[0], points[1], points[2], points[3])
            for step in 0...1000 {
                let x = Double(step) / 1000
                #expect(abs(bezier.sampleX(bezier.solveT(x, epsilon: 1e-7)) - x) < 1e-7, "\(points) at \(x)")
            }
        }
    }

    @Test func aBezierExtendsAlongItsEndTangents() {
        let ease = UnitBezier(0.25, 0.1, 0.25, 1)
        #expect(abs(ease.solve(-0.5) - -0.2) < 1e-12, "start tangent 0.1/0.25")
        #expect(ease.solve(1.5) == 1, "end tangent flat")
        let back = UnitBezier(0.68, -0.55, 0.265, 1.55)
        #expect(abs(back.solve(2) - (1 + (1.55 - 1) / (0.265 - 1) * (2 - 1))) < 1e-12)
    }

    @Test func badTimingTextNamesTheProblem() {
        for text in ["steps(0)", "steps(1, jump-none)", "steps(4, sideways)", "cubic-bezier(2, 0, 0, 1)", "cubic-bezier(0, 0, 1)",
                     "linear(0)", "linear(0, 1 half)", "bogus", "wobble(1)"] {
            guard case .failure(let error) = CSSTiming.parse(text) else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(error.description.hasPrefix("timing:"), "\(text): \(error)")
        }
    }

    /// `plan.sample` on an engine with the shipped Tween plugin: its output, and plan and times → samples.
    static func sampler() throws -> (RecordingOutput, (JSONValue, [Double]) -> [JSONValue]) {
        let output = RecordingOutput()
        let context = EngineContext(engine: try ShippedPlanSchemaTests.engine(["TweenPlugin"]),
                                    settings: EngineSettings(), logger: Logger(label: "test"))
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        return (output, { plan, times in
            context.receive(line: JSONWriter.bytes(["id": 1, "method": "plan.sample", "params": ["plan": plan, "times": .array(times.map { .number($0) })]]), from: 1)
            return output.lines.last?["result"]?["samples"]?.arrayValue ?? []
        })
    }

    /// A tween whose value does not change at a tick writes nothing then (a frame would repeat the last
    /// one's value): a `steps(2)` tween (0, ½ at 0.25 s, 1 at its end) writes at its two jumps only, and ends.
    @Test func aTweenOnAFlatWritesNothing() throws {
        let engine = try ShippedPlanSchemaTests.engine(["TweenPlugin"])
        try engine.addPlan(["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 0.5, "timing": "steps(2)"], to: "card")
        engine.clearFrame()
        var writes: [Int] = []
        for tick in 1...70 {
            engine.advance(by: 1.0 / 120)
            if !engine.dirtyProperties.isEmpty { writes.append(tick) }
            engine.clearFrame()
        }
        #expect(writes == [30, 60], "at the jumps (0.25 s, 0.5 s), not at the 68 ticks that changed nothing: \(writes)")
        #expect(engine.value(of: "x", target: "card") == [1] && !engine.isAnimating, "it ended")
    }

    /// A tween's velocity as it starts is its mean over the first thousandth: finite for a vertical tangent
    /// at 0 (material3's `standard.decelerate`, (0, 0, 0, 1); read just after 0 it came out near 1e9 a unit),
    /// the limit for a first handle on (0, 0), and the slope of a straight one.
    @Test func aTweensStartVelocityIsFinite() throws {
        let vertical = Tween(from: .zero, to: SIMD4(1, 0, 0, 0), duration: 1, curve: try curve("cubic-bezier(0, 0, 0, 1)"))
        // y = 3s² − 2s³ and x = s³: at progress 0.001, s = 0.1 and y = 0.028.
        #expect(abs(vertical.velocity.x - 28) < 1e-3, "\(vertical.velocity)")
        let linear = Tween(from: .zero, to: SIMD4(100, 0, 0, 0), duration: 0.5, curve: try curve("linear"))
        #expect(abs(linear.velocity.x - 200) < 1e-9, "\(linear.velocity)")
        let easeOut = Tween(from: .zero, to: SIMD4(1, 0, 0, 0), duration: 1, curve: try curve("cubic-bezier(0, 0, 0.58, 1)"))
        #expect(easeOut.velocity.x > 0 && easeOut.velocity.x.isFinite, "\(easeOut.velocity)")
    }

    /// A start `velocity` slower than a steep curve's own, in the same direction (a running tween retuned
    /// to `cubic-bezier(0.05, 0.951, 0.58, 1)` in the inspector's curve editor): the motion never turns back.
    /// Launched whole, the difference sent it to −1718 at 10 s on its way from 25 to 1000. A start the
    /// curve allows keeps its velocity exactly, and one against the travel still goes back first.
    @Test func aSlowStartNeverTurnsASteepCurveBack() throws {
        let steep = try curve("cubic-bezier(0.05, 0.951, 0.58, 1)")
        let plain = Tween(from: SIMD4(25, 0, 0, 0), to: SIMD4(1000, 0, 0, 0), duration: 39, curve: steep)
        let launch = plain.launch(toStartAt: SIMD4(25, 0, 0, 0))
        let tween = Tween(from: plain.from, to: plain.to, duration: 39, curve: steep, launch: launch)
        var previous = tween.value(at: 0).x
        for step in 1...3900 {
            let value = tween.value(at: Double(step) * 0.01).x
            #expect(value >= previous - 1e-9, "at \(Double(step) * 0.01) s: \(value) after \(previous)")
            previous = value
        }
        #expect(tween.startVelocity.x >= 25 && tween.startVelocity.x <= plain.startVelocity.x, "\(tween.startVelocity)")
        #expect(tween.value(at: 39).x == 1000)

        let ease = Tween(from: .zero, to: SIMD4(100, 0, 0, 0), duration: 1, curve: try curve("ease-in-out"))
        let gentle = Tween(from: .zero, to: SIMD4(100, 0, 0, 0), duration: 1, curve: try curve("ease-in-out"),
                           launch: ease.launch(toStartAt: SIMD4(20, 0, 0, 0)))
        #expect(abs(gentle.startVelocity.x - 20) < 1e-6, "\(gentle.startVelocity)")
        let linear = Tween(from: .zero, to: SIMD4(100, 0, 0, 0), duration: 1, curve: try curve("linear"))
        let backwards = Tween(from: .zero, to: SIMD4(100, 0, 0, 0), duration: 1, curve: try curve("linear"),
                              launch: linear.launch(toStartAt: SIMD4(-300, 0, 0, 0)))
        #expect(abs(backwards.startVelocity.x + 300) < 1e-5 && backwards.value(at: 0.1).x < 0, "\(backwards.startVelocity) \(backwards.launch) \(backwards.value(at: 0.1))")
    }

    /// `plan.sample` of a `steps(4)` tween: the value at 0.25 s is the same asked alone or after 0.249 s,
    /// and after the end it is the final value with velocity 0.
    @Test func aSampleDependsOnlyOnTheTimeAsked() throws {
        let (output, samples) = try Self.sampler()
        func sample(_ times: [Double]) -> [JSONValue] {
            samples(["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "steps(4)"], times)
        }
        var direct = Tween(from: .zero, to: SIMD4(1, 0, 0, 0), duration: 1, curve: try curve("steps(4)"))
        for _ in 0..<30 { direct.advance(by: 1.0 / 120) }
        #expect(direct.elapsed == 0.25 && direct.value.x == 0.25, "30 frames of 1/120 s are 0.25 s")
        let alone = sample([0.25])
        #expect(output.lines.last?["error"] == nil, "\(output.lines.last ?? .null)")
        let after = sample([0.249, 0.25])
        #expect(alone.first?["value"] == [0.25])
        #expect(after.last?["value"] == alone.first?["value"], "\(after)")
        for times in [[0.5], [0.1, 0.2, 0.3, 0.5], [0.499999, 0.5]] {
            #expect(sample(times).last?["value"] == [0.5], "\(times)")
        }
        let end = sample([0.9, 2])
        #expect(end.last?["value"] == [1] && end.last?["velocity"] == [0], "\(end)")
        // A curve of steps is flat between its jumps: no velocity, however the jump was reached.
        #expect(after.allSatisfy { $0["velocity"] == [0] } && sample([0.5])[0]["velocity"] == [0], "\(after)")
    }

    /// The velocity of a sample is the rate at the time asked, whatever else was asked; at its start a
    /// tween shows its curve's value at 0 (CSS: `steps(2, jump-start)` is 0.5 there, `linear(0.5, 1)` 0.5).
    @Test func aSampleVelocityAndAStartValueAreTheCurves() throws {
        let (_, samples) = try Self.sampler()
        func sample(_ timing: String, _ times: [Double]) -> [JSONValue] {
            samples(["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": .string(timing)], times)
        }
        let alone = sample("ease-in-out", [0.25]).first?["velocity"]?.arrayValue?.first?.doubleValue ?? 0
        let after = sample("ease-in-out", [0.249, 0.25]).last?["velocity"]?.arrayValue?.first?.doubleValue ?? 0
        #expect(abs(alone - after) < 1e-6 && abs(alone - 1.05926) < 1e-3, "\(alone) vs \(after)")
        // The curve's own slope: `ease` (cubic-bezier(0.25, 0.1, 0.25, 1)) at 0.206 is 2.28713 (bisection
        // to 1e-15 and dy/dx); a difference over a millionth of the duration was 6.6 % off there.
        let ease = sample("ease", [0.206]).first?["velocity"]?.arrayValue?.first?.doubleValue ?? 0
        #expect(abs(ease - 2.2871251804) < 1e-5, "\(ease)")
        // Keyframes whose first segment is steps: at the keyTime, exactly, the linear segment's rate (a
        // difference straddled the jump: ~10^7).
        let keyframes: JSONValue = ["type": "Keyframes", "property": "x", "values": [[0], [1], [3]], "keyTimes": [0, 0.5, 1],
                                    "timing": ["steps(2)", "linear"], "duration": 1]
        let rates = samples(keyframes, [0.25, 0.5, 0.75]).map { $0["velocity"]?.arrayValue?.first?.doubleValue ?? -1 }
        #expect(rates == [0, 4, 4], "\(rates)")
        for (timing, start) in [("steps(2, jump-start)", 0.5), ("step-start", 1.0), ("steps(2, jump-both)", 1.0 / 3), ("linear(0.5, 1)", 0.5), ("ease", 0)] {
            let value = sample(timing, [0]).first?["value"]?.arrayValue?.first?.doubleValue
            #expect(value.map { abs($0 - start) < 1e-12 } == true, "\(timing) at 0: \(String(describing: value))")
        }
    }
}
