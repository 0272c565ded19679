import Foundation
import MotionAnimation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/vocabulary.md: every animation plan takes `delay` (the property is left alone until it ends), and
/// `plan.add {targets, stagger, plan}` staggers one plan over several targets.
@Suite("Delay and stagger")
struct DelayTests {
    let output = RecordingOutput()
    let context: EngineContext

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["TweenPlugin", "SpringPlugin"])
    }

    func call(_ method: String, _ params: JSONValue) -> JSONValue { TestContext.call(context, method, params, on: output) }

    func samples(_ plan: JSONValue, _ times: [Double]) -> [JSONValue] {
        call("plan.sample", ["plan": plan, "times": .array(times.map { .number($0) })])["samples"]?.arrayValue ?? []
    }

    @Test func aDelayedTweenLeavesThePropertyAloneUntilItStarts() {
        let plan: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear", "delay": 0.5]
        let values = samples(plan, [0.25, 0.5, 0.75, 1.5, 2]).map { $0["value"] ?? .null }
        #expect(values == [[], [0], [0.25], [1], [1]], "\(values)")
    }

    @Test func aDelayedSpringIsTheSameSpringLater() throws {
        let spring: JSONValue = ["type": "Spring", "property": "x", "from": [0], "to": [1], "stiffness": 200, "damping": 10]
        var delayed = spring
        delayed["delay"] = 0.3
        let plain = samples(spring, [0.2, 0.7]).map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan }
        let later = samples(delayed, [0.5, 1.0]).map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan }
        for (a, b) in zip(plain, later) { #expect(abs(a - b) < 1e-9, "\(plain) vs \(later)") }
    }

    @Test func staggerDelaysEachTargetByItsPlace() throws {
        let reply = call("plan.add", ["targets": ["a", "b", "c"], "stagger": 0.1,
                                      "plan": ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear"]])
        #expect(reply["performers"]?.arrayValue?.count == 3, "\(reply)")
        for _ in 0..<60 { context.tick(dt: 1.0 / 120) }   // 0.5 s
        let x = ["a", "b", "c"].map { context.engine.value(of: "x", target: $0, runtime: "0/default")?[0] ?? -1 }
        #expect(abs(x[0] - 0.5) < 1e-6 && abs(x[1] - 0.4) < 1e-6 && abs(x[2] - 0.3) < 1e-6, "\(x)")
        #expect(call("plan.add", ["targets": ["a"], "target": "b", "plan": ["type": "Tween", "property": "x", "to": [1]]])["code"] == "request.invalid")
        #expect(call("plan.add", ["targets": [], "plan": ["type": "Tween", "property": "x", "to": [1]]])["code"] == "request.invalid")
        // One request is applied whole between two ticks: at most 256 targets (~3 ms of the engine thread).
        let names = { (count: Int) in JSONValue.array((0..<count).map { .string("s\($0)") }) }
        let tooMany = call("plan.add", ["targets": names(257), "plan": ["type": "Tween", "property": "x", "to": [1]]])
        #expect(tooMany["code"] == "request.limit" && tooMany["message"] == "targets: 257 names; a staggered plan.add takes at most 256",
                "\(tooMany)")
        #expect(call("plan.add", ["targets": names(256), "plan": ["type": "Tween", "property": "x", "to": [1]]])["performers"]?
            .arrayValue?.count == 256)
        // And at most 1 MiB of plan over all of them (each target is journaled with its own copy).
        let big: JSONValue = ["type": "Keyframes", "property": "x", "values": .array((0..<1000).map { [.number(Double($0))] })]
        let heavy = call("plan.add", ["targets": names(256), "plan": big])
        #expect(heavy["code"] == "request.limit" && heavy["message"]?.stringValue?.hasPrefix("targets: 256 copies of a plan of ") == true,
                "\(heavy)")
    }

    @Test func removingADelayedNamedPlanEndsItInterrupted() throws {
        _ = call("subscribe", ["streams": ["trace"]])
        _ = call("plan.add", ["target": "a", "name": "later", "plan": ["type": "Tween", "property": "x", "to": [1], "delay": 1]])
        #expect(context.engine.isActive(runtime: "0/default"), "a waiting plan keeps its runtime active")
        _ = call("plan.remove", ["target": "a", "name": "later"])
        context.tick(dt: 1.0 / 120)
        let ended = output.lines.last { $0["kind"] == "animation.ended" }
        #expect(ended?["reason"] == "interrupted")
        #expect(!context.engine.isActive(runtime: "0/default"))
        #expect(context.engine.value(of: "x", target: "a", runtime: "0/default") == nil, "never touched")
    }

    /// Plans waiting on one property start in the order of their delays' ends, whatever order they were
    /// added in, each at its own time; removing one by name among many leaves the others waiting.
    @Test func manyWaitingPlansStartInTheOrderTheirDelaysEnd() {
        _ = call("subscribe", ["streams": ["trace"]])
        // Added latest-first: a Set-like tween of no duration to i at 0.01·i s, for i = 200 … 1.
        for i in stride(from: 200, through: 1, by: -1) {
            var params: JSONValue = ["target": "a", "plan": ["type": "Tween", "property": "x", "to": [.number(Double(i))], "duration": 0,
                                                             "delay": .number(Double(i) * 0.01)]]
            if i == 150 { params["name"] = "n150" }
            _ = call("plan.add", params)
        }
        _ = call("plan.remove", ["target": "a", "name": "n150"])
        var seen: [Double] = []
        for _ in 0..<600 {   // 2.5 s
            context.tick(dt: 1.0 / 240)
            if let x = context.engine.value(of: "x", target: "a", runtime: "0/default")?[0], x != seen.last { seen.append(x) }
        }
        #expect(seen.count > 100 && seen == seen.sorted(), "values only rise: \(seen.prefix(20))")
        #expect(!seen.contains(150), "the removed plan never started")
        #expect(seen.last == 200)
        #expect(!context.engine.isActive(runtime: "0/default"), "every token released")
        let ended = output.lines.filter { $0["kind"] == "animation.ended" }
        #expect(ended.count == 200, "\(ended.count)")
    }

    /// Core Animation's `repeatCount` and `autoreverses` on a tween: each cycle forward (then back), and
    /// at rest where it ended, with velocity 0.
    @Test func aTweenRepeatsAndAutoreverses() {
        let plan: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear",
                               "repeat": 2, "autoreverse": true]
        let values = samples(plan, [0.25, 1.25, 1.75, 2.25, 3.5, 4, 5]).map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan }
        for (value, expected) in zip(values, [0.25, 0.75, 0.25, 0.25, 0.5, 0, 0]) {
            #expect(abs(value - expected) < 1e-9, "\(values)")
        }
        #expect(samples(plan, [5]).first?["velocity"] == [0])
        let forever: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear", "repeat": "forever"]
        #expect(abs((samples(forever, [100.25]).first?["value"]?.arrayValue?.first?.doubleValue ?? 0) - 0.25) < 1e-6)
        #expect(call("plan.sample", ["plan": ["type": "Tween", "property": "x", "to": [1], "repeat": "always"], "times": [1]])["code"] == "plan.invalid")
        #expect(call("plan.sample", ["plan": ["type": "Tween", "property": "x", "to": [1], "repeat": 0], "times": [1]])["code"] == "plan.invalid")
    }

    /// CAKeyframeAnimation's values and keyTimes, a timing function per segment, and repeat/autoreverse.
    @Test func keyframesFollowTheirValuesKeyTimesAndTimings() {
        let plan: JSONValue = ["type": "Keyframes", "property": "x", "values": [[0], [10], [4]], "keyTimes": [0, 0.25, 1],
                               "timing": ["linear", "steps(2)"], "duration": 2]
        let values = samples(plan, [0.25, 0.5, 1.0, 1.4, 1.8, 2, 3]).map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan }
        // 0–0.5 s: linear 0 → 10; 0.5–2 s: steps(2) 10 → 4 (10 until 1.25 s, then 7, then 4 at the end).
        for (value, expected) in zip(values, [5, 10, 10, 7, 7, 4, 4] as [Double]) {
            #expect(abs(value - expected) < 1e-9, "\(values)")
        }
        let even: JSONValue = ["type": "Keyframes", "property": "x", "values": [[0], [1], [0]], "duration": 1, "autoreverse": true, "repeat": 2]
        let bounced = samples(even, [0.25, 1.25, 4]).map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan }
        for (value, expected) in zip(bounced, [0.5, 0.5, 0] as [Double]) { #expect(abs(value - expected) < 1e-9, "\(bounced)") }
        for bad: JSONValue in [["type": "Keyframes", "property": "x", "values": [[0]]],
                               ["type": "Keyframes", "property": "x", "values": [[0], [1]], "keyTimes": [0, 0.5]],
                               ["type": "Keyframes", "property": "x", "values": [[0], [1], [2]], "keyTimes": [0, 0.8, 0.5]],
                               ["type": "Keyframes", "property": "x", "values": [[0], [1, 2]]],
                               ["type": "Keyframes", "property": "x", "values": [[0], [1], [2]], "timing": ["linear"]]] {
            #expect(call("plan.sample", ["plan": bad, "times": [1]])["code"] == "plan.invalid", "\(bad)")
        }
    }

    /// `plan.sample` reports when the plan's animation rests, whatever times were asked.
    @Test func aSampleReportsTheSettlingDuration() {
        let tween: JSONValue = ["type": "Tween", "property": "x", "to": [1], "duration": 0.3, "delay": 0.2]
        for times in [[0.1], [0.1, 5], [2]] as [[Double]] {
            let reply = call("plan.sample", ["plan": tween, "times": .array(times.map { .number($0) })])
            #expect(abs((reply["settlingDuration"]?.doubleValue ?? -1) - 0.5) < 1e-9, "\(times): \(reply["settlingDuration"] ?? .null)")
        }
        let spring = call("plan.sample", ["plan": ["type": "Spring", "property": "x", "from": [0], "to": [1], "dampingRatio": 1, "response": 0.5],
                                          "times": [0.1]])["settlingDuration"]?.doubleValue ?? 0
        #expect(spring > 0.5 && spring < 3, "\(spring)")
        let forever = call("plan.sample", ["plan": ["type": "Tween", "property": "x", "to": [1], "repeat": "forever"], "times": [1]])
        #expect(forever["settlingDuration"] == .null, "an animation that never rests within 600 s: null")
    }

    /// A spring's `settlingDuration` is the time its rest rule first holds, exactly (docs/vocabulary.md#exact-motion), not the
    /// frame after: a critically damped spring from 0 to 1 (ω = 20) rests when its distance
    /// (1 + ωt)·e^(−ωt) and its speed ω²t·e^(−ωt) are both within epsilon 0.001 of its travel.
    @Test func aSpringsSettlingDurationIsWhenTheRuleFirstHolds() {
        let omega = 20.0, epsilon = 0.001
        func holds(_ t: Double) -> Bool {
            (1 + omega * t) * exp(-omega * t) <= epsilon && omega * omega * t * exp(-omega * t) <= epsilon
        }
        var (low, high) = (0.0, 0.0)
        while !holds(high) { (low, high) = (high, high + 0.001) }
        while high - low > 1e-12 {
            let middle = (low + high) / 2
            if holds(middle) { high = middle } else { low = middle }
        }
        let spring: JSONValue = ["type": "Spring", "property": "x", "from": [0], "to": [1], "stiffness": 400, "dampingRatio": 1]
        for times in [[0.1], [0.1, 0.2345, 0.31], [5]] as [[Double]] {
            let reported = call("plan.sample", ["plan": spring, "times": .array(times.map { .number($0) })])["settlingDuration"]?.doubleValue ?? -1
            #expect(abs(reported - high) <= 1e-6, "\(times): \(reported) vs \(high)")
        }
    }

    /// Under a speed, frames show velocities per wall-clock second (a tween of 1 unit per second at speed
    /// 0.25 moves 0.25 units per second on screen), and `plan.sample` evaluates the plan as written unless
    /// asked `"applySettings": true` (docs/vocabulary.md#speed-and-reduce-motion) — speed and reduce motion alike.
    @Test func velocitiesAreOnScreenAndSamplesAreAsWrittenUnlessAsked() throws {
        let admin = RecordingOutput()
        context.openSession(2, output: admin, role: .admin)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 2)
        context.receive(line: Array(#"{"id":1,"method":"settings.set","params":{"speed":0.25}}"#.utf8), from: 2)
        #expect(admin.lines.last?["result"]?["speed"] == 0.25)
        _ = call("subscribe", ["streams": ["frames"]])
        let tween: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear"]
        _ = call("plan.add", ["target": "a", "plan": tween])
        for _ in 0..<12 { context.tick(dt: 1.0 / 120) }
        let shown = output.lines.reversed().lazy.compactMap { $0["updates"]?.arrayValue?.first { $0["target"] == "a" } }.first
        let velocity = try #require(shown?["velocity"]?.arrayValue?.first?.doubleValue)
        #expect(abs(velocity - 0.25) < 1e-9, "on screen: \(velocity)")
        #expect(abs((context.engine.velocity(of: "x", target: "a", runtime: "0/default")?[0] ?? 0) - 1) < 1e-9,
                "the store keeps animation time (a retarget starts from it)")

        let written = call("plan.sample", ["plan": tween, "times": [0.5]])
        #expect(written["samples"]?.arrayValue?.first?["value"] == [0.5] && written["samples"]?.arrayValue?.first?["velocity"] == [1], "\(written)")
        #expect(written["settlingDuration"] == 1)
        let applied = call("plan.sample", ["plan": tween, "times": [0.5], "applySettings": true])
        #expect(applied["samples"]?.arrayValue?.first?["value"] == [0.125] && applied["samples"]?.arrayValue?.first?["velocity"] == [0.25], "\(applied)")
        #expect(applied["settlingDuration"] == 4)

        context.receive(line: Array(#"{"id":2,"method":"settings.set","params":{"speed":1,"reduceMotion":true}}"#.utf8), from: 2)
        #expect(call("plan.sample", ["plan": tween, "times": [0.5]])["samples"]?.arrayValue?.first?["value"] == [0.5], "as written")
        let reduced = call("plan.sample", ["plan": tween, "times": [0.5], "applySettings": true])
        #expect(reduced["samples"]?.arrayValue?.first?["value"] == [1] && reduced["settlingDuration"] == 0, "\(reduced)")
    }

    /// Global speed (docs/vocabulary.md): an admin sets it live; every animation then advances at that rate.
    @Test func aGlobalSpeedSlowsEveryAnimation() throws {
        #expect(call("settings.set", ["speed": 0.5])["code"] == "access.denied", "the in-process session is a client")
        let admin = RecordingOutput()
        context.openSession(2, output: admin, role: .admin)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 2)
        _ = call("subscribe", ["streams": ["trace"]])
        context.receive(line: Array(#"{"id":1,"method":"settings.set","params":{"speed":0.5}}"#.utf8), from: 2)
        #expect(admin.lines.last?["result"]?["speed"] == 0.5)
        #expect(output.lines.contains { $0["kind"] == "settings.changed" && $0["speed"] == 0.5 })
        #expect(call("status", [:])["speed"] == 0.5)
        _ = call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear"]])
        for _ in 0..<60 { context.tick(dt: 1.0 / 120) }
        #expect(abs((context.engine.value(of: "x", target: "a", runtime: "0/default")?[0] ?? 0) - 0.25) < 1e-9, "half a second at half speed")
        context.receive(line: Array(#"{"id":2,"method":"settings.set","params":{"speed":200}}"#.utf8), from: 2)
        #expect(admin.lines.last?["error"]?["code"] == "request.invalid")
        context.receive(line: Array(#"{"id":3,"method":"settings.set","params":{"slowdown":2}}"#.utf8), from: 2)
        #expect(admin.lines.last?["error"]?["code"] == "request.invalid")
    }

    @Test func repeatedTweensEndWhereTheirLastCycleStops() {
        func end(_ extra: JSONValue) -> JSONValue? {
            var plan: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear"]
            for (key, value) in extra.objectValue ?? [:] { plan[key] = value }
            return samples(plan, [100]).first?["value"]
        }
        #expect(end(["repeat": 1.5, "autoreverse": true]) == [1], "forward, back, forward")
        #expect(end(["repeat": 0.5, "autoreverse": true]) == [1], "half a back-and-forth: forward only")
        #expect(end(["repeat": 1.25]) == [0.25])
        let instant = call("plan.sample", ["plan": ["type": "Tween", "property": "x", "to": [1], "duration": 0, "repeat": "forever"], "times": [1]])
        #expect(instant["settlingDuration"] == 0, "a tween of no duration ends at once, repeated or not")
    }
}
