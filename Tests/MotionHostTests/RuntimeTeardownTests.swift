@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/protocol.md (bounded work per tick): a destroyed runtime is gone at once for everyone, and a large one is
/// freed in slices between ticks (one of 100,000 springs destroyed in one go held every other client's
/// frames 150 ms).
@Suite("Destroying a large runtime")
struct RuntimeTeardownTests {
    let output = RecordingOutput()
    let context: EngineContext
    var engine: Engine { context.engine }

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["TweenPlugin", "SpringPlugin", "SetPlugin"], role: .admin)
    }

    func call(_ method: String, _ params: JSONValue) -> JSONValue { TestContext.call(context, method, params, on: output) }

    func add(_ target: String, _ plan: JSONValue, in runtime: String = "big") -> JSONValue {
        call("plan.add", ["runtime": .string(runtime), "target": .string(target), "plan": plan])
    }

    /// 5 targets of 1,000 `Set` properties and a spring that never settles each, and a `Sequence` whose
    /// second step is a `Set` on a property of its own: more than is freed inside the request.
    func fillBigRuntime() {
        #expect(call("runtime.create", ["name": "big"])["runtime"] == "big")
        for target in 0..<5 {
            for property in 0..<1000 { _ = add("t\(target)", ["type": "Set", "property": .string("p\(property)"), "value": [1]]) }
            _ = add("t\(target)", ["type": "Spring", "property": "spin", "to": [1], "tension": 1, "damping": 0.001, "threshold": 1e-9])
        }
        _ = add("t1", ["type": "Sequence", "steps": [
            ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 0.05, "timing": "linear"],
            ["type": "Set", "property": "after", "value": [9]],
        ]])
    }

    @Test func itIsGoneAtOnceAndFreedInSlicesWithoutTouchingARuntimeOfTheSameName() throws {
        fillBigRuntime()
        let properties = engine.propertyCount, performers = engine.performerCount
        #expect(properties >= 5005 && engine.isAnimating)
        _ = call("subscribe", ["streams": ["trace"]])
        #expect(call("runtime.destroy", ["name": "big"])["runtime"] == "big")
        let destroyedAt = output.lines.count
        #expect(!engine.runtimeNames.contains("0/big") && engine.hasTeardowns)
        #expect(engine.value(of: "p0", target: "t0", runtime: "0/big") == nil, "its properties are out of sight at once")
        #expect(engine.propertyCount == properties, "its handles are not free yet")

        // Its name is free at once; the new runtime's properties are its own.
        #expect(call("runtime.create", ["name": "big"])["runtime"] == "big")
        #expect(add("t0", ["type": "Set", "property": "p0", "value": [7]])["performer"] != nil)
        #expect(engine.value(of: "p0", target: "t0", runtime: "0/big") == [7])

        // A slice whose time is up frees one target (its Set and its spring performer) and stops.
        engine.continueTeardowns(until: 0)
        #expect(engine.performerCount == performers - 1, "two freed, one new")
        #expect(engine.hasTeardowns)
        // Until freed, its performers may still be advanced (its tween ends meanwhile): what they trace
        // or ask for reaches no one, and the old Sequence never goes on in the new runtime.
        for _ in 0..<30 { engine.advance(by: 1.0 / 60) }
        #expect(context.wantsTicks, "the clock runs while it frees")
        for _ in 0..<30 { context.tick(dt: 1.0 / 60) }
        engine.continueTeardowns(until: .max)
        #expect(!engine.hasTeardowns)
        #expect(engine.performerCount == 1 && engine.propertyCount == 1, "\(engine.performerCount) \(engine.propertyCount)")
        #expect(engine.value(of: "p0", target: "t0", runtime: "0/big") == [7])
        #expect(engine.value(of: "after", target: "t1", runtime: "0/big") == nil)
        #expect(!engine.isAnimating)
        let late = output.lines.dropFirst(destroyedAt).filter { $0["target"] == "t1" }
        #expect(late.isEmpty, "its performers, advanced until freed, reach no one: \(late)")
        let state = call("runtime.state", ["runtime": "big"])
        #expect(state["targets"]?.objectValue?.keys.sorted() == ["t0"] && state["tokens"] == 0, "\(state)")
        #expect(engine.usage[0]?.performers == 1, "\(String(describing: engine.usage[0]))")
    }

    @Test func theClockFreesItBetweenTicks() {
        fillBigRuntime()
        _ = call("runtime.destroy", ["name": "big"])
        #expect(engine.hasTeardowns)
        var ticks = 0
        while engine.hasTeardowns, ticks < 10_000 {
            context.tick(dt: 1.0 / 120)
            ticks += 1
        }
        #expect(!engine.hasTeardowns && engine.performerCount == 0 && engine.propertyCount == 0)
        #expect(engine.usage[0] == Engine.Usage(runtimes: 1, performers: 0), "its default runtime alone: \(String(describing: engine.usage[0]))")
    }

    /// uid 1000 destroys two large runtimes, then uid 1001 one: slices take the uids in turn, so the
    /// second uid's quotas are not charged until the first's runtimes are all freed.
    @Test func slicesTakeTheUidsInTurn() throws {
        let engine = try ShippedPlanSchemaTests.engine(["SetPlugin"])
        for runtime in ["1000/a", "1000/b", "1001/c"] {
            try engine.createRuntime(runtime)
            for target in 0..<10 {
                for property in 0..<500 {
                    _ = try engine.addPlan(["type": "Set", "property": .string("p\(property)"), "value": [1]], to: "t\(target)", in: runtime)
                }
            }
            try engine.destroyRuntime(runtime)
        }
        #expect(engine.usage[1000]?.performers == 20 && engine.usage[1001]?.performers == 10)
        engine.continueTeardowns(until: 0)
        #expect(engine.usage[1000]?.performers == 19 && engine.usage[1001]?.performers == 10)
        engine.continueTeardowns(until: 0)
        #expect(engine.usage[1000]?.performers == 19 && engine.usage[1001]?.performers == 9, "uid 1001's turn")
        engine.continueTeardowns(until: 0)
        #expect(engine.usage[1000]?.performers == 18 && engine.usage[1001]?.performers == 9)
        engine.continueTeardowns(until: .max)
        #expect(!engine.hasTeardowns && engine.usage[1000] == nil && engine.usage[1001] == nil && engine.propertyCount == 0)
    }

    @Test func aSmallRuntimeIsFreedInsideTheRequest() {
        #expect(call("runtime.create", ["name": "small"])["runtime"] == "small")
        for property in 0..<100 { _ = add("t", ["type": "Set", "property": .string("p\(property)"), "value": [1]], in: "small") }
        _ = call("runtime.destroy", ["name": "small"])
        #expect(!engine.hasTeardowns && engine.performerCount == 0 && engine.propertyCount == 0)
    }
}
