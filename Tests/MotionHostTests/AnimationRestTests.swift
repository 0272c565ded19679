@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// An animation that ended `finished` leaves its property at rest (SPEC §10), with the shipped plugins.
@Suite("Animations at rest")
struct AnimationRestTests {
    @Test func aFinishedTweenLeavesNoVelocityAndANoOpSpringStaysPut() throws {
        let engine = try ShippedPlanSchemaTests.engine(["TweenPlugin", "SpringPlugin"])
        try engine.addPlan(plan(#"{"type":"Tween","property":"x","from":[0],"to":[100],"duration":0.25,"timing":"linear"}"#), to: "card")
        for _ in 0..<40 { engine.advance(by: 1.0 / 120) }
        #expect(engine.value(of: "x", target: "card") == [100])
        #expect(engine.velocity(of: "x", target: "card") == [0], "a tween at rest does not move")
        #expect(!engine.isAnimating)
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card")
        var farthest = 0.0
        for _ in 0..<120 {
            engine.advance(by: 1.0 / 120)
            farthest = max(farthest, abs((engine.value(of: "x", target: "card")?[0] ?? 0) - 100))
        }
        #expect(farthest < 1e-9, "a spring to where the property rests does nothing (it swung \(farthest))")
    }

    @Test func aTweenStillRunningReportsItsSpeed() throws {
        let engine = try ShippedPlanSchemaTests.engine(["TweenPlugin"])
        try engine.addPlan(plan(#"{"type":"Tween","property":"x","from":[0],"to":[100],"duration":1,"timing":"linear"}"#), to: "card")
        for _ in 0..<12 { engine.advance(by: 1.0 / 120) }
        let speed = try #require(engine.velocity(of: "x", target: "card")?.first)
        #expect(abs(speed - 100) < 1e-6)
    }
}
