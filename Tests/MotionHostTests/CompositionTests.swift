import MotionAnimation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/vocabulary.md: `Sequence` and `Group` compose plans of any type (nesting allowed, each reporting its own
/// `animation.ended`), and global speed and reduce motion apply to every plan.
@Suite("Sequence, Group, speed and reduce motion")
struct CompositionTests {
    let output = RecordingOutput()
    let context: EngineContext
    static let runtime = "0/default"

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["TweenPlugin", "SpringPlugin", "SetPlugin", "DecayPlugin"], role: .admin)
    }

    func call(_ method: String, _ params: JSONValue) -> JSONValue { TestContext.call(context, method, params, on: output) }

    func values(_ plan: JSONValue, _ times: [Double], property: String? = nil) -> [Double] {
        var params: JSONValue = ["plan": plan, "times": .array(times.map { .number($0) })]
        if let property { params["property"] = .string(property) }
        let reply = call("plan.sample", params)
        return reply["samples"]?.arrayValue?.map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan } ?? [.nan]
    }

    func x(_ target: String = "a", _ property: String = "x") -> Double {
        context.engine.value(of: property, target: target, runtime: Self.runtime)?.first ?? .nan
    }

    func ended() -> [JSONValue] { output.lines.filter { $0["kind"] == "animation.ended" } }

    static func tween(_ to: Double, _ duration: Double, _ property: String = "x") -> JSONValue {
        ["type": "Tween", "property": .string(property), "to": [.number(to)], "duration": .number(duration), "timing": "linear"]
    }

    static func near(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-9) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func aSequenceRunsItsStepsOneAfterAnother() {
        let plan: JSONValue = ["type": "Sequence", "steps": [
            ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear"], Self.tween(3, 0.5),
        ]]
        let sampled = values(plan, [0.5, 1.0, 1.25, 1.5, 2])
        #expect(Self.near(sampled, [0.5, 1, 2, 3, 3]), "\(sampled)")
        // A sample never depends on the other times asked for, even across a step boundary.
        for time in [1.013, 1.25, 1.3] {
            let alone = values(plan, [time]).first ?? .nan
            let among = values(plan, [0.3333, 0.9999, 1.0071, time]).last ?? .nan
            #expect(abs(alone - among) < 1e-9, "t=\(time): \(alone) vs \(among)")
            #expect(abs(alone - (1 + 4 * (time - 1))) < 1e-9, "t=\(time): \(alone)")
        }
    }

    @Test func aSequenceHandsOverAcrossPlanTypesAndReportsItsOwnEnd() {
        _ = call("subscribe", ["streams": ["trace"]])
        let reply = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": [
            ["type": "Set", "property": "x", "value": [10]],
            Self.tween(20, 0.25),
            ["type": "Spring", "property": "x", "to": [0], "stiffness": 300, "damping": 30],
        ]]])
        #expect(reply["performer"]?.doubleValue != nil, "\(reply)")
        #expect(x() == 10)
        for _ in 0..<36 { context.tick(dt: 1.0 / 120) }  // the tween ends at 0.25 s
        #expect(x() < 20 && x() > 15, "the spring took over from the tween's end: \(x())")
        for _ in 0..<480 { context.tick(dt: 1.0 / 120) }
        #expect(x() == 0)
        let sequenceEnds = ended().filter { $0["planType"] == "Sequence" }
        #expect(sequenceEnds.count == 1 && sequenceEnds.first?["reason"] == "finished", "\(sequenceEnds)")
        #expect(sequenceEnds.first?["property"] == "x")
        #expect(!context.engine.isActive(runtime: Self.runtime))
        // The runtime stays active between steps: one active, one idle.
        #expect(output.lines.filter { $0["kind"] == "runtime.active" }.count == 1)
        #expect(output.lines.filter { $0["kind"] == "runtime.idle" }.count == 1)
    }

    @Test func aGroupStartsItsPlansTogetherAndEndsWhenAllHaveEnded() {
        _ = call("subscribe", ["streams": ["trace"]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Group", "plans": [Self.tween(1, 0.25, "x"), Self.tween(1, 0.5, "y")]]])
        for _ in 0..<31 { context.tick(dt: 1.0 / 120) }
        #expect(x("a", "x") == 1 && x("a", "y") < 1)
        #expect(ended().filter { $0["planType"] == "Group" }.isEmpty, "not before the longer plan ends")
        for _ in 0..<31 { context.tick(dt: 1.0 / 120) }
        let groupEnds = ended().filter { $0["planType"] == "Group" }
        #expect(groupEnds.count == 1 && groupEnds.first?["reason"] == "finished" && groupEnds.first?["property"] == nil, "\(groupEnds)")
        // plan.sample of a Group reads its first plan's property, or the one asked for.
        let group: JSONValue = ["type": "Group", "plans": [Self.tween(1, 1, "x"), Self.tween(2, 1, "y")]]
        #expect(Self.near(values(group, [0.5]), [0.5]))
        #expect(Self.near(values(group, [0.5], property: "y"), [1]))
        #expect(call("plan.sample", ["plan": group, "times": [1], "property": "z"])["code"] == "request.invalid")
    }

    @Test func compositesNestAndTakeADelay() {
        let plan: JSONValue = ["type": "Sequence", "delay": 0.5, "steps": [
            ["type": "Group", "plans": [Self.tween(1, 0.5, "x"), Self.tween(1, 1, "y")]],
            ["type": "Sequence", "steps": [Self.tween(0, 0.5, "x"), Self.tween(5, 0.5, "x")]],
        ]]
        // 0–0.5 s waits; the group runs 0.5–1.5 s (its longer plan); then x goes 1 → 0 → 5.
        let sampled = values(plan, [0.25, 0.75, 1.25, 1.75, 2.25, 2.5, 3])
        #expect(Self.near(sampled, [.nan, 0.5, 1, 0.5, 2.5, 5, 5].map { $0.isNaN ? 0 : $0 }) || sampled.first?.isNaN == true, "\(sampled)")
        #expect(Self.near(Array(sampled.dropFirst()), [0.5, 1, 0.5, 2.5, 5, 5]), "\(sampled)")
    }

    @Test func anInterruptedStepEndsTheSequenceAndItsLaterStepsNeverRun() {
        _ = call("subscribe", ["streams": ["trace"]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": [Self.tween(1, 1), Self.tween(9, 1)]]])
        for _ in 0..<12 { context.tick(dt: 1.0 / 120) }
        _ = call("plan.add", ["target": "a", "plan": ["type": "Set", "property": "x", "value": [-1]]])
        for _ in 0..<300 { context.tick(dt: 1.0 / 120) }
        #expect(x() == -1, "the second step never ran")
        let sequenceEnds = ended().filter { $0["planType"] == "Sequence" }
        #expect(sequenceEnds.count == 1 && sequenceEnds.first?["reason"] == "interrupted", "\(sequenceEnds)")
        #expect(!context.engine.isActive(runtime: Self.runtime))
    }

    /// Another animation of the same property ending is never taken for a step's end: a step waiting for
    /// its delay is not ended by the plain tween it will interrupt.
    @Test func aStepIsKnownByItsOwnEndNotByItsProperty() {
        _ = call("subscribe", ["streams": ["trace"]])
        _ = call("plan.add", ["target": "a", "plan": Self.tween(5, 0.5)])
        var delayed = Self.tween(10, 0.5)
        delayed["delay"] = 1
        _ = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": [delayed, Self.tween(1, 0.5, "y")]]])
        for _ in 0..<90 { context.tick(dt: 1.0 / 120) }  // 0.75 s: the plain tween has ended, the step waits
        #expect(x() == 5 && x("a", "y").isNaN, "the second step has not started: y \(x("a", "y"))")
        for _ in 0..<120 { context.tick(dt: 1.0 / 120) }  // 1.75 s: the step ran 1–1.5 s, then y started
        #expect(x() == 10 && x("a", "y") > 0, "\(x()) \(x("a", "y"))")
    }

    /// A target that ends (a router's screen that left its URL) ends the composites on it.
    @Test func removingATargetEndsItsComposites() {
        _ = call("subscribe", ["streams": ["trace"]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": [Self.tween(1, 1), Self.tween(2, 1)]]])
        context.tick(dt: 1.0 / 120)
        context.engine.removeTarget("a", in: Self.runtime)
        #expect(!context.engine.isActive(runtime: Self.runtime), "nothing holds the runtime")
        #expect(ended().last?["planType"] == "Sequence" && ended().last?["reason"] == "interrupted")
        #expect(context.engine.composition.composites.isEmpty)
    }

    /// A request starts at most 256 plans: a composite's leaves, over every staggered target.
    @Test func aRequestStartsAtMost256Plans() {
        func group(_ count: Int) -> JSONValue {
            ["type": "Group", "plans": .array((0..<count).map { ["type": "Set", "property": .string("p\($0)"), "value": [1]] })]
        }
        #expect(call("plan.add", ["target": "a", "plan": group(256)])["performer"] != nil)
        let large = call("plan.add", ["target": "b", "plan": group(257)])
        #expect(large["code"] == "plan.invalid", "\(large)")
        #expect(large["message"] == "plans[256]: one plan too many; a composite holds at most 256 plans, its nested composites' plans counted together")
        // Nested: the path names where the count ran out.
        let nested = call("plan.add", ["target": "b", "plan": ["type": "Sequence", "steps": [group(200), group(57)]]])
        #expect(nested["message"] == "steps[1].plans[56]: one plan too many; a composite holds at most 256 plans, its nested composites' plans counted together")
        // A child's fields are named as the child's (`steps[0].plan.type` before).
        #expect(call("plan.add", ["target": "b", "plan": ["type": "Sequence", "steps": [["property": "x"]]]])["message"] == "steps[0].type: expected a string")
        #expect(call("plan.add", ["target": "b", "plan": ["type": "Sequence", "steps": [1]]])["message"] == "steps[0]: expected an object")
        let targets = JSONValue.array((0..<13).map { .string("t\($0)") })
        let staggered = call("plan.add", ["targets": targets, "plan": group(20)])
        #expect(staggered["code"] == "request.limit", "\(staggered)")
        #expect(staggered["message"] == "targets: 13 targets × 20 plans each; a staggered plan.add starts at most 256 plans")
        #expect(context.engine.value(of: "p0", target: "t0", runtime: Self.runtime) == nil, "nothing started")
        #expect(call("plan.add", ["targets": .array(Array(targets.arrayValue!.prefix(12))), "plan": group(20)])["performers"] != nil)
    }

    /// Composites are found by their target and their leaves by their performer: a target that ends
    /// or a performer that goes idle ends what is its own, nothing of other targets or runtimes.
    @Test func endingATargetOrAPerformerTouchesOnlyItsOwnComposites() {
        _ = call("runtime.create", ["name": "other"])
        _ = call("plan.add", ["runtime": "other", "target": "a", "plan": ["type": "Group", "plans": [Self.tween(1, 10)]]])
        _ = call("plan.add", ["target": "b", "plan": ["type": "Group", "plans": [Self.tween(1, 10)]]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Group", "plans": [Self.tween(1, 0.05)]]])
        #expect(context.engine.composition.waits.count == 3)
        for _ in 0..<12 { context.tick(dt: 1.0 / 120) }
        #expect(context.engine.composition.waits.count == 2, "a's tween ended, its group with it")
        context.engine.removeTarget("b", in: Self.runtime)
        #expect(context.engine.composition.waits.count == 1)
        #expect(context.engine.isActive(runtime: "0/other"), "the other runtime's group runs on")
        _ = call("runtime.destroy", ["name": "other"])
        #expect(context.engine.composition.composites.isEmpty && context.engine.composition.waits.isEmpty)
    }

    /// A uid's composites start their next steps within a budget per frame; the rest wait for the next
    /// frame and start as far along as they would have: a step's values never depend on the wait.
    @Test func stepsPastAUidsBudgetWaitAFrameAndStartAsFarAlong() {
        context.engine.spread.compositeNanosPerUID = 1  // one end of the uid's a drain
        let sequence: JSONValue = ["type": "Sequence", "steps": [Self.tween(1, 0.05), Self.tween(2, 0.1)]]
        for target in ["a", "b", "c"] { _ = call("plan.add", ["target": .string(target), "plan": sequence]) }
        var carried = false
        for _ in 0..<8 {
            context.tick(dt: 1.0 / 120)
            carried = carried || context.engine.composites.hasCarriedCompositeEnds
        }
        #expect(carried, "the first tweens all ended at one frame: two of the three sequences waited")
        #expect(context.wantsTicks)
        #expect(x("a") > 1 && x("a") == x("b") && x("b") == x("c"), "\(x("a")) \(x("b")) \(x("c"))")
        for _ in 0..<20 { context.tick(dt: 1.0 / 120) }
        #expect(x("a") == 2 && x("b") == 2 && x("c") == 2 && !context.engine.composites.hasCarriedCompositeEnds)
    }

    /// The budget holds inside one Sequence: steps that end at once (`Set`s) past it start the next frame,
    /// from where it stopped, and every one of them still starts, in order.
    @Test func setsThatEndAtOncePastTheBudgetGoOnTheNextFrame() {
        context.engine.spread.compositeNanosPerUID = 1  // one step a drain past the first
        let sets: [JSONValue] = (0..<10).map { ["type": "Set", "property": .string("p\($0)"), "value": [.number(Double($0 + 1))]] }
        _ = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": .array([Self.tween(1, 0.05)] + sets)]])
        var frames = 0
        while x("a", "p9").isNaN, frames < 40 {
            context.tick(dt: 1.0 / 120)
            frames += 1
            if !x("a", "p1").isNaN, x("a", "p9").isNaN {
                #expect(context.engine.composites.hasCarriedCompositeEnds && context.wantsTicks, "the rest waits for the next frame")
            }
        }
        #expect(frames >= 6 + 9, "the tween's 6 frames, then a Set a frame: \(frames)")
        #expect((0..<10).map { x("a", "p\($0)") } == (1...10).map(Double.init))
        #expect(!context.engine.composites.hasCarriedCompositeEnds)
    }

    /// A Group a client adds starts within the uid's budget too: past it the rest of its plans start on
    /// the next frames, as far along as they would have been (every tween of it at the same value).
    @Test func aGroupPastTheBudgetStartsTheRestOnTheNextFramesAsFarAlong() {
        context.engine.spread.compositeNanosPerUID = 1  // one plan a request or a drain
        let tweens: [JSONValue] = (0..<10).map {
            ["type": "Tween", "property": .string("p\($0)"), "from": [0], "to": [1], "duration": 1, "timing": "linear"]
        }
        #expect(call("plan.add", ["target": "a", "plan": ["type": "Group", "plans": .array(tweens)]])["performer"] != nil)
        #expect(!x("a", "p0").isNaN && x("a", "p9").isNaN, "the first plans started, the rest wait")
        #expect(context.engine.composites.hasCarriedCompositeEnds && context.wantsTicks)
        for _ in 0..<12 { context.tick(dt: 1.0 / 120) }
        let values = (0..<10).map { x("a", "p\($0)") }
        #expect(values.allSatisfy { abs($0 - 12.0 / 120) < 1e-9 }, "all as far along: \(values)")
        #expect(!context.engine.composites.hasCarriedCompositeEnds)
    }

    @Test func compositesAreCheckedWholeBeforeAnythingStarts() {
        func code(_ plan: JSONValue) -> (String?, String?) {
            let reply = call("plan.add", ["target": "a", "plan": plan])
            return (reply["code"]?.stringValue, reply["message"]?.stringValue)
        }
        let (misspelt, hint) = code(["type": "Sequence", "plans": [Self.tween(1, 1)]])
        #expect(misspelt == "plan.invalid" && hint == "plans: unknown key of a Sequence; did you mean steps? (known: type, steps, delay, essential)", "\(hint ?? "")")
        #expect(code(["type": "Group", "plans": []]).0 == "plan.invalid")
        let (inner, path) = code(["type": "Sequence", "steps": [Self.tween(1, 1), ["type": "Tween", "property": "x", "to": [1], "dampng": 2]]])
        #expect(inner == "plan.invalid" && path?.hasPrefix("steps[1].") == true, "\(path ?? "")")
        #expect(code(["type": "Sequence", "steps": [["type": "Nope", "property": "x"]]]).0 == "plan.unknown_type")
        // A misspelt type names the closest (issue #43: "did you mean" for plan types too).
        let (unknown, suggestion) = code(["type": "Sprng", "property": "x", "to": [1]])
        #expect(unknown == "plan.unknown_type" && suggestion?.contains("did you mean Spring?") == true, "\(suggestion ?? "")")
        #expect(code(["type": "Sequense", "steps": []]).1?.contains("did you mean Sequence?") == true)
        #expect(x() .isNaN, "nothing started")
        var deep: JSONValue = Self.tween(1, 1)
        for _ in 0..<9 { deep = ["type": "Sequence", "steps": [deep]] }
        #expect(code(deep).0 == "plan.invalid")
        #expect(call("plan.add", ["target": "a", "name": "n", "plan": ["type": "Group", "plans": [Self.tween(1, 1)]]])["code"] == "request.invalid")
    }

    /// docs/vocabulary.md acceptance: at speed 0.5 a 0.2 s tween ends after 0.4 s.
    @Test func atHalfSpeedATweenTakesTwiceAsLong() {
        #expect(call("settings.set", ["speed": 0.5])["speed"] == 0.5)
        _ = call("plan.add", ["target": "a", "plan": Self.tween(1, 0.2)])
        for _ in 0..<47 { context.tick(dt: 1.0 / 120) }
        #expect(x() < 1 && x() > 0.95, "\(x())")
        for _ in 0..<2 { context.tick(dt: 1.0 / 120) }
        #expect(x() == 1)
    }

    /// Issue #39, README.md (protocol): when a plan completes at once (reduce motion, speed 0), the
    /// frame with the final value goes out before `animation.ended` and `runtime.idle`.
    @Test(arguments: [["reduceMotion": true], ["speed": 0]] as [JSONValue])
    func theFinalFrameComesBeforeTheEndOfAPlanThatEndsAtOnce(setting: JSONValue) {
        _ = call("subscribe", ["streams": ["frames", "trace"]])
        _ = call("settings.set", setting)
        _ = call("plan.add", ["target": "a", "plan": ["type": "Spring", "property": "x", "from": [0], "to": [100]]])
        expectTheFrameWith([100], onTarget: "a")
    }

    /// The frame with `value` on `target` went out before `animation.ended`, which went before `runtime.idle`.
    func expectTheFrameWith(_ value: JSONValue, onTarget target: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let final = output.lines.firstIndex { line in
            line["event"] == "frame" && (line["updates"]?.arrayValue ?? []).contains { $0["target"] == .string(target) && $0["value"] == value }
        }
        let ended = output.lines.firstIndex { $0["kind"] == "animation.ended" }
        let idle = output.lines.firstIndex { $0["kind"] == "runtime.idle" }
        #expect(final != nil && ended != nil && idle != nil, "\(output.lines)", sourceLocation: sourceLocation)
        if let final, let ended, let idle {
            #expect(final < ended && ended < idle, "frame \(final), ended \(ended), idle \(idle)", sourceLocation: sourceLocation)
        }
    }

    /// The same for a plan of no duration, under no setting at all.
    @Test func theFinalFrameComesBeforeTheEndOfAZeroDurationTween() {
        _ = call("subscribe", ["streams": ["frames", "trace"]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [7], "duration": 0]])
        expectTheFrameWith([7], onTarget: "a")
    }

    /// And for an unanimated route (`route.go` with `animated: false`): the screens' final values reach
    /// the subscriber before `route.update` and `route.transition.end` say the route arrived.
    @Test func theFinalFrameComesBeforeTheRouteOfAnUnanimatedGo() {
        _ = call("subscribe", ["streams": ["frames", "trace", "routes"]])
        let fade: JSONValue = ["type": "Tween", "property": "opacity", "from": [0], "to": [1], "duration": 0.2]
        _ = call("router.configure", ["scheme": "demo", "routes": ["home": ["kind": "stack", "transition": fade]]])
        _ = call("route.go", ["scheme": "demo", "to": "demo://home", "animated": false])
        for _ in 0..<3 { context.tick(dt: 1.0 / 120) }
        let final = output.lines.firstIndex { line in
            line["event"] == "frame" && (line["updates"]?.arrayValue ?? []).contains { $0["target"] == "screen:home" && $0["value"] == [1] }
        }
        let update = output.lines.firstIndex { $0["kind"] == "route.update" || $0["event"] == "route.update" }
        let end = output.lines.firstIndex { $0["kind"] == "route.transition.end" || $0["event"] == "route.transition.end" }
        #expect(final != nil && update != nil && end != nil, "\(output.lines.map { JSONWriter.string($0).prefix(160) })")
        if let final, let update, let end { #expect(final < update && final < end, "frame \(final), update \(update), end \(end)") }
    }

    @Test func reduceMotionCompletesEveryPlanButEssentialOnesAtOnce() {
        _ = call("subscribe", ["streams": ["trace"]])
        #expect(call("settings.set", ["reduceMotion": true]) == ["speed": 1, "reduceMotion": true])
        #expect(output.lines.contains { $0["kind"] == "settings.changed" && $0["reduceMotion"] == true })
        let added = call("plan.add", ["target": "a", "plan": ["type": "Spring", "property": "x", "to": [100]]])
        #expect(x() == 100, "\(added)")
        #expect(x() == 100, "a spring ends at once")
        #expect(ended().last?["reason"] == "finished")
        _ = call("plan.add", ["target": "a", "plan": ["type": "Decay", "property": "y", "from": [0], "velocity": [300], "drag": 3]])
        #expect(abs(x("a", "y") - 100) < 1e-9, "a decay rests where it would have")
        _ = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": [Self.tween(5, 1), Self.tween(7, 1)]]])
        #expect(x() == 7 && ended().last?["planType"] == "Sequence")
        _ = call("plan.add", ["target": "b", "plan": ["type": "Spring", "property": "x", "to": [100], "essential": true]])
        #expect(x("b") == 0 || x("b").isNaN, "an essential spring still moves")
        context.tick(dt: 1.0 / 120)
        #expect(x("b") > 0 && x("b") < 100)
        #expect(call("status", [:])["reduceMotion"] == true)
        #expect(call("settings.set", ["reduceMotion": "yes"])["code"] == "request.invalid")
    }

    @Test func speedZeroMakesNewAnimationsJumpToTheirEnd() {
        _ = call("plan.add", ["target": "a", "plan": Self.tween(1, 1)])
        context.tick(dt: 0.25)
        #expect(call("settings.set", ["speed": 0])["speed"] == 0)
        context.tick(dt: 0.25)
        #expect(abs(x() - 0.5) < 1e-9, "what was running carries on rather than freezing: \(x())")
        _ = call("plan.add", ["target": "b", "plan": ["type": "Spring", "property": "x", "to": [3], "essential": true]])
        #expect(x("b") == 3, "speed 0 is every plan, essential ones too")
        #expect(call("settings.set", ["speed": -1])["code"] == "request.invalid")
    }
}
