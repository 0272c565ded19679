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
        context = try .greeted(on: output)
    }

    func sample(_ params: JSONValue) -> JSONValue { context.call("plan.sample", params, on: output) }

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
}
