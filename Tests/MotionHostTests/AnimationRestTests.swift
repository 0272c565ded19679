@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// An animation that ended `finished` leaves its property at rest (docs/vocabulary.md), with the shipped plugins.
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

    /// One performer animating many properties of one target (springs and tweens, some replaced while
    /// they run, some handed from one type to the other, most ending in the same tick): each ends where
    /// its last plan put it, and every token is released.
    @Test func onePerformerWithManyPropertiesEndsEachWhereItsPlanSays() throws {
        let engine = try ShippedPlanSchemaTests.engine(["TweenPlugin", "SpringPlugin"])
        let count = Engine.maximumPropertiesPerTarget
        for index in 0..<count {
            try engine.addPlan(plan(#"{"type":"Tween","property":"p\#(index)","from":[0],"to":[\#(index)],"duration":0.5}"#), to: "card")
        }
        for _ in 0..<12 { engine.advance(by: 1.0 / 120) }
        for index in stride(from: 0, to: count, by: 3) {
            // A third replaced by a tween to the negative, a third handed over to a spring.
            try engine.addPlan(plan(#"{"type":"Tween","property":"p\#(index)","to":[-\#(index)],"duration":0.25}"#), to: "card")
            if index + 1 < count {
                try engine.addPlan(plan(#"{"type":"Spring","property":"p\#(index + 1)","to":[7],"dampingRatio":1,"response":0.2}"#), to: "card")
            }
        }
        for _ in 0..<600 { engine.advance(by: 1.0 / 120) }
        #expect(!engine.isAnimating, "every token released")
        for index in 0..<count {
            let expected = index % 3 == 0 ? -Double(index) : index % 3 == 1 ? 7 : Double(index)
            let value = engine.value(of: "p\(index)", target: "card")?[0] ?? .nan
            #expect(abs(value - expected) < 1e-6, "p\(index): \(value), expected \(expected)")
            if abs(value - expected) >= 1e-6 { break }
        }
    }
}
