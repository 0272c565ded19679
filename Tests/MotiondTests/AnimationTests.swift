import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// Issue #3's acceptance over the socket: `plan.sample` against closed forms, libffi curves, completion.
@Suite("Animations over the socket")
struct AnimationTests {
    private func samples(_ client: MotionClient, _ plan: JSONValue, _ times: [Double]) async throws -> [(value: [Double], velocity: [Double])] {
        let result = try await client.call("plan.sample", ["plan": plan, "times": .array(times.map { .number($0) })])
        return (result["samples"]?.arrayValue ?? []).map { sample in
            ((sample["value"]?.arrayValue ?? []).compactMap(\.doubleValue), (sample["velocity"]?.arrayValue ?? []).compactMap(\.doubleValue))
        }
    }

    /// Underdamped spring, unit mass: x'' = −k(x − T) − c·x'.
    private func spring(x0: Double, v0: Double, target: Double, k: Double, c: Double, t: Double) -> (Double, Double) {
        let w0 = k.squareRoot(), zeta = c / (2 * w0), wd = w0 * (1 - zeta * zeta).squareRoot()
        let a = x0 - target, b = (v0 + zeta * w0 * a) / wd, decay = exp(-zeta * w0 * t)
        let x = target + decay * (a * cos(wd * t) + b * sin(wd * t))
        let v = decay * ((-zeta * w0 * a + wd * b) * cos(wd * t) + (-zeta * w0 * b - wd * a) * sin(wd * t))
        return (x, v)
    }

    @Test func springSamplesMatchTheClosedForm() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let times = stride(from: 0.05, through: 1.2, by: 0.05).map { $0 }
        let plan: JSONValue = ["type": "Spring", "property": "p", "from": [0, 50], "to": [80, -20], "velocity": [100, -40],
                               "tension": 200, "damping": 10, "threshold": 0.001]
        let sampled = try await samples(client, plan, times)
        #expect(sampled.count == times.count)
        for (time, sample) in zip(times, sampled) {
            for (axis, (x0, v0, target)) in [(0.0, 100.0, 80.0), (50, -40, -20)].enumerated() {
                let (x, v) = spring(x0: x0, v0: v0, target: target, k: 200, c: 10, t: time)
                #expect(abs(sample.value[axis] - x) <= 0.05, "x[\(axis)] at \(time): \(sample.value[axis]) vs \(x)")
                // Velocity is interpolated linearly between 8 ms RK4 steps (as Advance does), which costs up
                // to about 0.5 % of the speed; values are held to the 0.05 the issue asks for.
                #expect(abs(sample.velocity[axis] - v) <= 0.01 * max(abs(v), 20), "v[\(axis)] at \(time)")
            }
        }
        let oneD = try await samples(client, ["type": "Spring", "property": "x", "from": [5], "to": [-3], "velocity": [-12],
                                              "tension": 90, "damping": 6, "threshold": 0.001], [0.3, 0.9])
        for (time, sample) in zip([0.3, 0.9], oneD) {
            #expect(abs(sample.value[0] - spring(x0: 5, v0: -12, target: -3, k: 90, c: 6, t: time).0) <= 0.05)
        }
        await client.close()
    }

    @Test func decaySamplesMatchTheClosedForm() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let times = [0.0, 0.1, 0.25, 0.5, 1.0, 1.5]
        let sampled = try await samples(client, ["type": "Decay", "property": "p", "from": [10, 20], "velocity": [400, -250],
                                                 "drag": 5, "threshold": 0.001], times)
        for (time, sample) in zip(times, sampled) {
            for (axis, (x0, v0)) in [(10.0, 400.0), (20, -250)].enumerated() {
                let x = x0 + v0 / 5 * (1 - exp(-5 * time)), v = v0 * exp(-5 * time)
                #expect(abs(sample.value[axis] - x) <= 0.05, "x[\(axis)] at \(time)")
                #expect(abs(sample.velocity[axis] - v) <= 0.01 * max(abs(v), 20), "v[\(axis)] at \(time)")
            }
        }
        await client.close()
    }

    /// cubic-bezier(a,b,c,d) solved exactly (bisection to 1e-12), independent of the daemon's solver.
    private func exactBezier(_ p: [Double], _ x: Double) -> Double {
        func component(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
            3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t
        }
        var low = 0.0, high = 1.0
        for _ in 0..<200 {
            let mid = (low + high) / 2
            if component(p[0], p[2], mid) < x { low = mid } else { high = mid }
        }
        return component(p[1], p[3], (low + high) / 2)
    }

    @Test func tweenSamplesFollowAnExactBezierSolve() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let points = [0.3, 0.8, 0.6, 0.05]
        let times = [0.0, 0.2, 0.4, 0.7, 1.1, 1.6, 2.0]
        let sampled = try await samples(client, ["type": "Tween", "property": "o", "from": [10, -10], "to": [110, 30], "duration": 2,
                                                 "timing": .array(points.map { .number($0) })], times)
        for (time, sample) in zip(times, sampled) {
            let eased = exactBezier(points, time / 2)
            #expect(abs(sample.value[0] - (10 + 100 * eased)) <= 0.05, "at \(time)")
            #expect(abs(sample.value[1] - (-10 + 40 * eased)) <= 0.05, "at \(time)")
        }
        await client.close()
    }

    @Test func stepsFromTheCCurvesPluginThroughLibffi() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let sampled = try await samples(client, ["type": "Tween", "property": "o", "from": [0], "to": [1], "duration": 1,
                                                 "timing": ["function": "steps", "args": [4]]], [0.1, 0.3, 0.6, 0.99])
        #expect(sampled.map { $0.value } == [[0], [0.25], [0.5], [0.75]])
        let list = try await client.call("plugins.list")
        let curves = list["plugins"]?.arrayValue?.first { $0["id"] == "org.motiond.curves" }
        let functions = curves?["functions"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(functions == ["steps", "bounceOut", "elasticOut"])
        #expect(curves?["functions"]?.arrayValue?.first?["signature"] == "d(di)")
        let bounce = try await samples(client, ["type": "Tween", "property": "o", "from": [0], "to": [1], "duration": 1,
                                                "timing": ["function": "bounceOut"]], [0, 1])
        // t = 1 is reached by 120 frame steps of 1/120 s, which sum to 1 − 8e-16: the tween is a hair short of
        // finished, as Advance's strict `elapsed >= duration` has it.
        #expect(bounce.first?.value == [0])
        #expect(abs((bounce.last?.value.first ?? 0) - 1) < 1e-9)
        await client.close()
    }

    @Test func badCurveArgumentsAndSignaturesAreRefusedAtPlanAdd() async throws {
        let plugins = try CCompiler.temporaryDirectory()
        for name in ["libCurvesPlugin.so", "libTweenPlugin.so"] {
            try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent(name), to: plugins.appendingPathComponent(name))
        }
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/bad_curve.c"], name: "libbadcurve.so", in: plugins)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path])
        let client = try await daemon.client()
        func refusal(_ timing: JSONValue) async -> String {
            do {
                _ = try await client.call("plan.add", ["target": "t", "plan": ["type": "Tween", "property": "o", "to": [1], "timing": timing]])
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(await refusal(["function": "steps", "args": [4, 2]]) == #"plan.invalid: timing.args: "steps" takes 1 argument after t (signature d(di)), got 2"#)
        #expect(await refusal(["function": "steps", "args": [2.5]]) == #"plan.invalid: timing.args[0]: "steps" expects an integer, got 2.5"#)
        #expect(await refusal(["function": "wobble"]).hasPrefix(#"plan.invalid: timing.function: "wobble" from test.bad-curve has an invalid signature "q(d)""#))
        #expect(await refusal(["function": "missing"]).hasPrefix(#"plan.invalid: timing.function: no timing function "missing""#))
        #expect(await refusal("bouncy").hasPrefix(#"plan.invalid: timing: unknown timing function "bouncy"; known: default, ease"#))
        #expect(await refusal([1, 2, 3]) == "plan.invalid: timing: expected an array of 4 numbers, found 3 elements")
        #expect(await refusal([2, 0, 1, 1]) == "plan.invalid: timing: expected [x1,y1,x2,y2] with x1 and x2 in [0, 1], y1 and y2 within ±1000")
        #expect(await refusal([0.5, 1e308, 0.5, -1e308]) == "plan.invalid: timing: expected [x1,y1,x2,y2] with x1 and x2 in [0, 1], y1 and y2 within ±1000",
                "a y that only overflows (every value NaN)")
        // Refused plans leave nothing: not even the target they named.
        #expect(try await client.call("runtime.state")["targets"]?["t"] == nil)
        await client.close()
    }

    @Test func aRetargetedSpringKeepsMovingTheWayItWasGoingAndEndingsAreTraced() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["card"]])
        // Lightly damped: it still moves when a loaded machine's client gets round to the retarget (with
        // the default damping it had sometimes settled, and ended `finished`, under the full suite).
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Spring", "property": "x", "from": [0], "to": [100],
                                                                        "tension": 100, "damping": 2]])
        let firstFrames = try await events.waitFor { ($0["event"] == "frame") && ($0["updates"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue ?? 0) > 30 }
        let before = firstFrames.last?["updates"]?.arrayValue?.first?["velocity"]?.arrayValue?.first?.doubleValue ?? 0
        #expect(before > 100)
        let seen = firstFrames.count
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Spring", "property": "x", "to": [0]]])
        let all = try await events.waitFor(timeout: 15, isTrace("runtime.idle"))
        let after = all.dropFirst(seen).first { $0["event"] == "frame" }?["updates"]?.arrayValue?.first?["velocity"]?.arrayValue?.first?.doubleValue ?? -1
        // One frame later the spring still moves towards 100 (it was going that way), barely slowed.
        #expect(after > 0.7 * before, "velocity before \(before), first frame after retarget \(after)")
        let endings = all.filter { $0["kind"] == "animation.ended" }.compactMap { $0["reason"]?.stringValue }
        #expect(endings == ["interrupted", "finished"])

        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "o", "to": [1], "duration": 0.1]])
        let tweenEnd = try await events.waitFor { $0["kind"] == "animation.ended" && $0["property"] == "o" }.last
        #expect(tweenEnd?["reason"] == "finished")
        #expect(tweenEnd?["planType"] == "Tween")
        await client.close()
    }

    /// A plan of another type (another plugin) on a moving property takes it over: the spring ends
    /// `interrupted`, the tween's value is the one that stays.
    @Test func aTweenTakesAMovingPropertyFromASpring() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["card"]])
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Spring", "property": "x", "to": [100]]])
        _ = try await events.waitFor { ($0["event"] == "frame") && ($0["updates"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue ?? 0) > 20 }
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [-5], "duration": 0.1]])
        let all = try await events.waitFor(timeout: 15, isTrace("runtime.idle"))
        let endings = all.filter { $0["kind"] == "animation.ended" }.map { "\($0["planType"]?.stringValue ?? "?") \($0["reason"]?.stringValue ?? "?")" }
        #expect(endings == ["Spring interrupted", "Tween finished"])
        let last = all.last { $0["event"] == "frame" }?["updates"]?.arrayValue?.first?["value"]
        #expect(last == [-5])
        #expect(try await client.call("runtime.state")["targets"]?["card"]?["properties"]?["x"]?["value"] == [-5])
        await client.close()
    }
}
