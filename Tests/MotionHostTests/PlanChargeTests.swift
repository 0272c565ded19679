@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/protocol.md#ownership-and-quotas, `planBytes`: a uid's running plans are charged what their values
/// cost the daemon (`PlanCharge`); past its quota a plan is refused, and a charge is given back when its
/// animation ends, another plan takes its property, or its runtime goes.
@Suite("Plan charges (planBytes)")
struct PlanChargeTests {
    static func keyframes(_ count: Int, duration: Double = 10) -> JSONValue {
        ["type": "Keyframes", "property": "x", "values": .array((0..<count).map { [.number(Double($0))] }), "duration": .number(duration)]
    }

    @Test func largePlansAreChargedUntilTheyEndAndRefusedPastTheQuota() throws {
        let engine = try ShippedPlanSchemaTests.engine(["TweenPlugin", "SpringPlugin"])
        try engine.createRuntime("1000/work")
        var quotas = Quotas()
        quotas.planBytes = 1 << 20
        let cost = PlanCharge.bytes(of: Self.keyframes(1000))
        #expect(cost > 150_000 && cost < 170_000, "\(cost)")
        // A spring costs nothing: the animations quota bounds those.
        let spring: JSONValue = ["type": "Spring", "property": "y", "from": [0], "to": [1], "stiffness": 100, "dampingRatio": 1]
        #expect(PlanCharge.bytes(of: spring) == 0)
        _ = try engine.addPlan(spring, to: "s", in: "1000/work", quotas: quotas)

        let fit = (1 << 20) / cost
        for index in 0..<fit { _ = try engine.addPlan(Self.keyframes(1000), to: "t\(index)", in: "1000/work", quotas: quotas) }
        #expect(engine.usage[1000]?.planBytes == fit * cost)
        #expect(throws: EngineError(.quotaExceeded, "quota planBytes: uid 1000's running plans hold \(fit * cost) bytes; this one needs \(cost) (its quota is \(1 << 20))")) {
            try engine.addPlan(Self.keyframes(1000), to: "over", in: "1000/work", quotas: quotas)
        }
        // Another plan on a property gives the old one's charge back first.
        _ = try engine.addPlan(Self.keyframes(1000), to: "t0", in: "1000/work", quotas: quotas)
        #expect(engine.usage[1000]?.planBytes == fit * cost)
        // The animations end: every charge is given back, and the next large plan goes in.
        for _ in 0..<20 { engine.advance(by: 1) }
        #expect(engine.animations(of: 1000) == 0 && engine.usage[1000]?.planBytes == 0)
        _ = try engine.addPlan(Self.keyframes(1000), to: "over", in: "1000/work", quotas: quotas)
        #expect(engine.usage[1000]?.planBytes == cost)
        // Its runtime goes: given back once it is freed.
        try engine.destroyRuntime("1000/work")
        engine.continueTeardowns(until: .max)
        #expect((engine.usage[1000]?.planBytes ?? 0) == 0)
    }

    /// Plans waiting for their `delay` on one property are each charged (they wait beside the running one,
    /// replacing nothing) until the performer goes idle; a plan that ends at once holds nothing.
    @Test func waitingPlansAreEachChargedAndOneThatEndsAtOnceIsNot() throws {
        let engine = try ShippedPlanSchemaTests.engine(["TweenPlugin"])
        try engine.createRuntime("1000/work")
        var quotas = Quotas()
        quotas.planBytes = 1 << 20
        var delayed = Self.keyframes(1000)
        delayed["delay"] = 5
        let cost = PlanCharge.bytes(of: delayed), fit = (1 << 20) / cost
        for _ in 0..<fit { _ = try engine.addPlan(delayed, to: "card", in: "1000/work", quotas: quotas) }
        #expect(engine.usage[1000]?.planBytes == fit * cost)
        #expect(throws: EngineError.self) { try engine.addPlan(delayed, to: "card", in: "1000/work", quotas: quotas) }
        for _ in 0..<20 { engine.advance(by: 1) }
        #expect(engine.animations(of: 1000) == 0 && engine.usage[1000]?.planBytes == 0, "given back once the performer is idle")

        // One long animation keeps the performer busy; a second plan of no duration ends at once.
        _ = try engine.addPlan(Self.keyframes(1000, duration: 100), to: "card", in: "1000/work", quotas: quotas)
        var instant = Self.keyframes(1000, duration: 0)
        instant["property"] = "y"
        _ = try engine.addPlan(instant, to: "card", in: "1000/work", quotas: quotas)
        engine.advance(by: 1.0 / 120)
        #expect(engine.animations(of: 1000) == 1 && engine.usage[1000]?.planBytes == PlanCharge.bytes(of: Self.keyframes(1000, duration: 100)),
                "\(String(describing: engine.usage[1000]))")
    }
}
