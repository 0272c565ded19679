@testable import MotionEngine
import MotionWire
import Testing

/// A target holds at most 1,024 properties, and a `runtime.state` page ends with the target that brings
/// it to 1,024: each property is a few µs of the engine thread (one target of 122,000 held it 0.4 s a page).
@Suite("Properties per target and per page")
struct PropertyLimitsTests {
    let output = RecordingOutput()
    let context: EngineContext

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["SetPlugin"])
    }

    func call(_ method: String, _ params: JSONValue) -> JSONValue { TestContext.call(context, method, params, on: output) }

    func set(_ target: String, _ property: String) -> JSONValue {
        call("plan.add", ["target": .string(target), "plan": ["type": "Set", "property": .string(property), "value": [1]]])
    }

    @Test func aTargetHoldsAtMost1024Properties() {
        let limit = Engine.maximumPropertiesPerTarget
        #expect(limit == 1024)
        for index in 0..<limit { _ = set("card", "p\(index)") }
        let refused = set("card", "one-more")
        #expect(refused["code"] == "request.limit", "\(refused)")
        #expect(refused["message"] == "property: target \"card\" has 1024 properties; a target holds at most 1024")
        #expect(set("card", "p7")["performer"] != nil, "a property it has is still animated")
        #expect(set("other", "one-more")["performer"] != nil, "another target has its own")
    }

    @Test func aStatePageEndsWithTheTargetThatBringsItTo1024Properties() throws {
        for target in ["a", "b", "c"] {
            for index in 0..<600 { _ = set(target, "p\(index)") }
        }
        let first = call("runtime.state", [:])
        #expect(first["targets"]?.objectValue?.keys.sorted() == ["a", "b"], "600 + 600 passes 1024: the page ends with b")
        #expect(first["next"] == "b" && first["targetCount"] == 3)
        let second = call("runtime.state", ["after": "b"])
        #expect(second["targets"]?.objectValue?.keys.sorted() == ["c"] && second["next"] == nil)
        #expect(second["targets"]?["c"]?["properties"]?.objectValue?.count == 600)
    }

    /// More times than a sample may ask for is `request.limit` naming the limit, as every limit answers.
    @Test func aSampleOfMoreThan10000TimesIsALimit() {
        let plan: JSONValue = ["type": "Set", "property": "x", "value": [1]]
        let times = JSONValue.array(Array(repeating: .number(0.5), count: EngineContext.maximumSamples + 1))
        let refused = call("plan.sample", ["plan": plan, "times": times])
        #expect(refused["code"] == "request.limit" && refused["message"]?.stringValue?.contains("at most 10000") == true, "\(refused)")
        #expect(call("plan.sample", ["plan": plan, "times": []])["code"] == "request.invalid")
    }
}
