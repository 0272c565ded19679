@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// `plan.sample` of a plan whose plugin chooses what it animates (no `property` key, as docs/plugins.md's
/// Wobble): the property to read is asked for, and checked against what the plan really animated.
@Suite("plan.sample of a plan that names no property")
struct PlanSampleTests {
    let context: EngineContext
    let output = RecordingOutput()

    init() throws {
        context = try TestContext.greeted(on: output)
    }

    func sample(_ params: JSONValue) -> JSONValue { TestContext.call(context, "plan.sample", params, on: output) }

    @Test func thePropertyIsAskedForAndMustBeOneThePluginAnimated() {
        // `Frames` counts down into "frames" unless told otherwise, making the property at its first step.
        let plan: JSONValue = ["type": "Frames", "frames": 3]
        let read = sample(["plan": plan, "times": [.number(1.0 / 120), .number(2.0 / 120)], "property": "frames"])
        #expect(read["property"] == "frames")
        #expect(read["samples"]?.arrayValue?.map { $0["value"] } == [[2], [1]], "\(read)")

        let unnamed = sample(["plan": plan, "times": [0]])
        #expect(unnamed["code"] == "request.invalid")
        #expect(unnamed["message"]?.stringValue?.contains("its plugin chooses what it animates") == true, "\(unnamed)")

        let other = sample(["plan": plan, "times": [0.01], "property": "x"])
        #expect(other["code"] == "request.invalid")
        #expect(other["message"] == #"property: the plan does not animate "x" (it animates frames)"#, "\(other)")

        // A plan that names its property is held to it before it runs, as before.
        let named = sample(["plan": ["type": "Frames", "frames": 3, "property": "p"], "times": [0], "property": "frames"])
        #expect(named["message"] == #"property: the plan does not animate "frames" (it animates p)"#, "\(named)")
    }

    /// A plan `plan.add` refuses is refused by `plan.sample` with the same code and words (an empty
    /// composite was "plan.property: expected a string").
    @Test func aPlanIsCheckedAsPlanAddChecksIt() {
        for plan: JSONValue in [["type": "Sequence", "steps": []], ["type": "Group", "plans": []], ["type": "Sequence", "steps": [:]],
                                ["type": "Nope"]] {
            let added = TestContext.call(context, "plan.add", ["target": "t", "plan": plan], on: output)
            let sampled = sample(["plan": plan, "times": [0.1]])
            #expect(sampled["code"] == added["code"] && sampled["message"] == added["message"] && sampled["code"] != nil, "\(sampled) vs \(added)")
        }
    }

    /// Recorded gestures under other names than the plan reads: refused naming the one missing (it
    /// sampled a plan that never moved, `value: []`, as if settled).
    @Test func aGestureThePlanReadsMustBeRecorded() throws {
        let context = try TestContext.greeted(on: output, plugins: ["InteractionsPlugin"])
        let recorded: JSONValue = ["g": [["t": 0, "position": [0], "phase": "began"], ["t": 0.5, "position": [40]]]]
        let plan: JSONValue = ["type": "Draggable", "property": "x", "gesture": "f"]
        let wrong = TestContext.call(context, "plan.sample", ["plan": plan, "times": [0, 1], "gestures": recorded], on: output)
        #expect(wrong["code"] == "request.invalid", "\(wrong)")
        #expect(wrong["message"] == #"gestures: the plan reads gesture "f", which gestures does not hold (it holds g)"#, "\(wrong)")
        let nested: JSONValue = ["type": "Sequence", "steps": [["type": "Draggable", "property": "x", "gesture": "g"], plan]]
        #expect(TestContext.call(context, "plan.sample", ["plan": nested, "times": [0], "gestures": recorded], on: output)["message"] == wrong["message"])
        let right = TestContext.call(context, "plan.sample", ["plan": ["type": "Draggable", "property": "x", "gesture": "g"], "times": [1], "gestures": recorded], on: output)
        #expect(right["samples"]?.arrayValue?.first?["value"] == [40], "\(right)")
    }
}
