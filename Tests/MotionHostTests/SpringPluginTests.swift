import Foundation
import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// The shipped Spring plugin, dlopen'd from the build, driven by the engine at 60 Hz like Advance's tests.
@Suite("Spring plugin")
struct SpringPluginTests {
    let engine: Engine
    let reference: JSONValue

    init() throws {
        let host = HostServices(logger: Logger(label: "test"))
        let plugin = try PluginLoader.load(file: PluginLoaderTests.buildDirectory + "/libSpringPlugin.so", host: host).get()
        var builder = PluginRegistryBuilder()
        builder.add(plugin)
        engine = Engine(registry: builder.freeze(), host: host, vocabulary: .none)
        reference = try Conformance.load("advance_numeric.json")
    }

    private func run(frames: Int, dt: Double = 1.0 / 60) {
        for _ in 0..<frames { engine.advance(by: dt) }
    }

    /// The plugin's spring is the closed form (docs/vocabulary.md#exact-motion): the reference's analytic
    /// values, rounded to 6 decimals there, at 60 Hz frames.
    @Test func defaultSpringMatchesTheClosedFormAt60Hz() throws {
        let cases = try #require(reference["dynamics"]?.arrayValue)
        let spring = try #require(cases.first { $0["name"] == "spring_default_0_to_100" })
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","from":[0],"to":[100]}"#), to: "card")
        var elapsedFrames = 0
        for (time, frames) in [("0.1", 6), ("0.5", 30), ("1.0", 60)] {
            run(frames: frames - elapsedFrames)
            elapsedFrames = frames
            let expected = try #require(spring["analytic"]?[time])
            let value = try #require(engine.value(of: "x", target: "card")?.first)
            let velocity = try #require(engine.velocity(of: "x", target: "card")?.first)
            #expect(abs(value - expected["value"]!.doubleValue!) <= 1e-6, "value at \(time)")
            #expect(abs(velocity - expected["velocity"]!.doubleValue!) <= 1e-6, "velocity at \(time)")
        }
    }

    @Test func twoDimensionalSpringSettlesExactlyAtItsTarget() throws {
        try engine.addPlan(plan(#"{"type":"Spring","property":"position","to":[100,200]}"#), to: "card")
        #expect(engine.isAnimating)
        var frames = 0
        while engine.isAnimating && frames < 600 {
            engine.advance(by: 1.0 / 120)
            frames += 1
        }
        #expect(!engine.isAnimating)
        #expect(engine.value(of: "position", target: "card") == [100, 200])
        #expect(engine.velocity(of: "position", target: "card") == [0, 0])
        #expect(frames > 100 && frames < 300)
    }

    @Test func settlesAfterAsManyFramesAsAdvance() throws {
        let spring = try #require(reference["dynamics"]?.arrayValue?.first { $0["name"] == "spring_default_0_to_100" })
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card")
        var frames = 0
        while engine.isAnimating { engine.advance(by: 1.0 / 60); frames += 1 }
        // Its rest rule (epsilon 0.001 of a travel of 100: Advance's 0.1) on the exact curve, not RK4's.
        let advanceFrames = try #require(spring["settles_after_frames_60hz"]?.intValue)
        #expect(abs(frames - advanceFrames) <= 2, "\(frames) vs Advance's \(advanceFrames)")
    }

    @Test func retargetingKeepsValueAndVelocity() throws {
        let retarget = try #require(reference["retarget"])
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card")
        run(frames: 12)
        let before = try #require(engine.value(of: "x", target: "card")?.first)
        let velocityBefore = try #require(engine.velocity(of: "x", target: "card")?.first)
        #expect(abs(before - retarget["state_at_retarget_analytic"]!["value"]!.doubleValue!) <= 1e-6)
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[0]}"#), to: "card")
        #expect(engine.value(of: "x", target: "card")?.first == before)
        #expect(engine.velocity(of: "x", target: "card")?.first == velocityBefore)
        run(frames: 6)
        let expected = try #require(retarget["after_analytic"]?["0.3"])
        #expect(abs(engine.value(of: "x", target: "card")!.first! - expected["value"]!.doubleValue!) <= 1e-6)
    }

    @Test func aNamedReplaceTakesOverTheRunningSpring() throws {
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card", named: "move")
        run(frames: 10)
        let velocity = try #require(engine.velocity(of: "x", target: "card")?.first)
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[-50]}"#), to: "card", named: "move")
        #expect(engine.velocity(of: "x", target: "card")?.first == velocity)
        #expect(engine.isActive(runtime: "default"))
        #expect(engine.activeTokenCount == 1)
    }

    @Test func refusesMalformedPlansNamingTheField() throws {
        #expect(throws: EngineError(.invalidPlan, "to: missing (required)")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x"}"#), to: "card")
        }
        #expect(throws: EngineError(.invalidPlan, "to: expected an array of 1 to 4 numbers, found 5 elements")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1,2,3,4,5]}"#), to: "card")
        }
        #expect(throws: EngineError(.invalidPlan, "from: expected 2 numbers, one per component of to; found 1")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1,2],"from":[0]}"#), to: "card")
        }
        #expect(!engine.isAnimating)
    }
}
