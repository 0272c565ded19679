import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// One animation per property, whatever plugin drives it ("motion.claim/1", "motion.yield/1"): a plan of
/// another type on an animating property interrupts the animation that was moving it. The shipped
/// plugins, dlopen'd from the build, on an engine with no socket.
@Suite("Property claims across plan types")
final class PropertyClaimTests: TraceObserver {
    let engine: Engine
    private(set) var events: [TraceEvent] = []

    init() throws {
        let host = HostServices(logger: Logger(label: "test"))
        var builder = PluginRegistryBuilder()
        for name in ["Spring", "Tween", "Set"] {
            builder.add(try PluginLoader.load(file: PluginLoaderTests.buildDirectory + "/lib\(name)Plugin.so", host: host).get())
        }
        engine = Engine(registry: builder.freeze(), host: host, vocabulary: .none)
        engine.observer = self
    }

    func engine(_ engine: Engine, didTrace event: TraceEvent) {
        events.append(event)
    }

    private func frames(_ count: Int) {
        for _ in 0..<count { engine.advance(by: 1.0 / 120) }
    }

    private func settle() -> Int {
        var frames = 0
        while engine.isAnimating && frames < 1200 {
            engine.advance(by: 1.0 / 120)
            frames += 1
        }
        return frames
    }

    private var endings: [String] {
        events.filter { $0.kind == "animation.ended" }.map { "\($0.fields["planType"]?.stringValue ?? "?") \($0.fields["reason"]?.stringValue ?? "?")" }
    }

    @Test func aTweenInterruptsASpringOnTheSameProperty() throws {
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card")
        frames(12)
        let moving = try #require(engine.value(of: "x", target: "card")?.first)
        events.removeAll()
        try engine.addPlan(plan(#"{"type":"Tween","property":"x","to":[-20],"duration":0.1}"#), to: "card")
        #expect(endings == ["Spring interrupted"], "the spring ends when the tween takes the property")
        let kinds = events.map(\.kind)
        let interrupted = try #require(kinds.firstIndex(of: "animation.ended"))
        #expect(interrupted < kinds.lastIndex(of: "plan.added")!)
        #expect(!kinds.contains("runtime.idle"), "the tween's token is taken first: the runtime never looks idle")
        _ = settle()
        #expect(engine.value(of: "x", target: "card") == [-20], "the newest plan wins")
        #expect(endings == ["Spring interrupted", "Tween finished"])
        #expect(moving > 0 && moving < 100)
    }

    @Test func aSpringStartedOnATweeningPropertyTakesItsValueAndVelocity() throws {
        try engine.addPlan(plan(#"{"type":"Tween","property":"x","from":[0],"to":[100],"duration":1,"timing":"linear"}"#), to: "card")
        frames(60)
        events.removeAll()
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[0]}"#), to: "card")
        #expect(endings == ["Tween interrupted"])
        engine.advance(by: 1.0 / 120)
        let value = try #require(engine.value(of: "x", target: "card")?.first)
        #expect(value > 50, "the spring starts where the tween was (50) moving up at 100/s: \(value)")
        _ = settle()
        #expect(engine.value(of: "x", target: "card") == [0])
        #expect(endings == ["Tween interrupted", "Spring finished"])
    }

    @Test func aSetStopsAMovingSpringWhereItPutsTheValue() throws {
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card")
        frames(6)
        try engine.addPlan(plan(#"{"type":"Set","property":"x","value":[7]}"#), to: "card")
        #expect(endings == ["Spring interrupted"])
        #expect(!engine.isAnimating)
        frames(10)
        #expect(engine.value(of: "x", target: "card") == [7])
    }

    @Test func otherPropertiesAndTargetsKeepMoving() throws {
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "card")
        try engine.addPlan(plan(#"{"type":"Spring","property":"y","to":[100]}"#), to: "card")
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[100]}"#), to: "other")
        frames(6)
        try engine.addPlan(plan(#"{"type":"Tween","property":"x","to":[0],"duration":0.05}"#), to: "card")
        #expect(endings == ["Spring interrupted"])
        _ = settle()
        #expect(engine.value(of: "y", target: "card") == [100])
        #expect(engine.value(of: "x", target: "other") == [100])
        #expect(engine.value(of: "x", target: "card") == [0])
    }
}
