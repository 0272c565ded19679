import Logging
@testable import MotionEngine
import MotionPluginKit
import MotionWire
import Testing

/// `{"type":"Ramp","rate"?:r}`: the value grows at `Speed.rate` units per second forever. Two builds of
/// one plugin (same id) differ only in that constant, like a C plugin compiled twice.
protocol Speed { static var rate: Double { get } }
enum Slow: Speed { static let rate = 10.0 }
enum Fast: Speed { static let rate = 100.0 }

final class Ramp<S: Speed>: MigratablePerformer {
    /// `poison` makes the state one that no build will import (a negative value); `unexportable`, one this
    /// build cannot export (a NaN value, which JSON cannot hold).
    struct Plan: Decodable { var poison: Bool?; var unexportable: Bool? }
    struct State: Codable { var value: Double; var running: Bool }
    static var planType: String { "Ramp" }
    static var isContinuous: Bool { true }
    let context: PerformerContext
    var value = 0.0
    var token: ActiveToken?

    init(context: PerformerContext, target: String) { self.context = context }

    func add(_ plan: Plan) throws {
        if plan.poison == true { value = -1e9 }
        if plan.unexportable == true { value = .nan }
        if token == nil { token = context.generateToken() }
        if let property = context.property("x") { context.claim(property) }
    }

    /// Another plan type took "x": stop.
    func yield(_ property: PropertyHandle) {
        if let token { context.terminate(token) }
        token = nil
    }

    func advance(by dt: Double) {
        value += S.rate * dt
        if let property = context.property("x") {
            context.write(property, value: SIMD4(value, 0, 0, 0), velocity: SIMD4(S.rate, 0, 0, 0), count: 1)
        }
    }

    func exportState() -> State { State(value: value, running: token != nil) }

    func importState(_ state: State) throws {
        guard state.value >= 0 else { throw PlanError("value: negative") }
        value = state.value
        if state.running { token = context.generateToken() }
    }
}

enum RampV1: MotionPlugin {
    static let id = "test.ramp"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] { [Ramp<Slow>.self] }
}

enum RampV2: MotionPlugin {
    static let id = "test.ramp"
    static let version = "2.0.0"
    static var performers: [any Performer.Type] { [Ramp<Fast>.self] }
}

/// A third build without `motion.migrate/1`.
final class PlainRamp: Performer {
    struct Plan: Decodable {}
    static let planType = "Ramp"
    static let isContinuous = true
    init(context: PerformerContext, target: String) {}
    func add(_ plan: Plan) throws {}
}

/// `{"type":"Pin"}` sets "x" to 42 at once, claiming it (as the shipped Set does).
final class Pin: Performer {
    struct Plan: Decodable {}
    static let planType = "Pin"
    let context: PerformerContext
    init(context: PerformerContext, target: String) { self.context = context }
    func add(_ plan: Plan) throws {
        guard let property = context.property("x") else { return }
        context.claim(property)
        context.write(property, value: SIMD4(42, 0, 0, 0), velocity: .zero, count: 1)
    }
}

enum PinPlugin: MotionPlugin {
    static let id = "test.pin"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] { [Pin.self] }
}

enum RampV3: MotionPlugin {
    static let id = "test.ramp"
    static let version = "3.0.0"
    static var performers: [any Performer.Type] { [PlainRamp.self] }
}

@Suite("Hot swap in the engine")
struct HotSwapTests {
    let harness: EngineHarness

    init() throws {
        harness = try EngineHarness(plugins: [RampV1.descriptor])
    }

    private func swapped(to plugin: UnsafeRawPointer) throws -> PluginRegistry {
        var builder = PluginRegistryBuilder(extending: harness.engine.registry)
        let descriptor = try DescriptorCheck.check(plugin, file: "<v-next>").get()
        _ = try builder.replace(with: descriptor, hash: "x").get()
        return builder.freeze()
    }

    @Test func aRunningPerformerMovesToTheNewBuildWithoutAJump() throws {
        let engine = harness.engine
        try engine.addPlan(["type": "Ramp"], to: "box", named: "ramp")
        for _ in 0..<10 { engine.advance(by: 0.01) }
        let before = try #require(engine.value(of: "x", target: "box"))[0]
        #expect(abs(before - 1.0) < 1e-9, "v1 moves at 10/s")
        harness.clearEvents()

        let report = try engine.swaps.swap(to: try swapped(to: RampV2.descriptor), pluginID: "test.ramp")
        #expect(report == .init(migrated: 1, remaining: 0))
        #expect(engine.value(of: "x", target: "box")?[0] == before, "nothing written at the swap")
        #expect(!harness.kinds().contains("runtime.idle"), "the runtime never looked idle")
        #expect(harness.kinds().contains("performer.migrated"))
        let tokens = harness.events.filter { $0.kind.hasPrefix("token.") }.map(\.kind)
        #expect(tokens == ["token.activated"], "the new performer's token, announced once it is committed: \(tokens)")
        #expect(engine.isActive(runtime: "default"))

        engine.advance(by: 0.01)
        let after = try #require(engine.value(of: "x", target: "box"))[0]
        #expect(abs(after - (before + 1.0)) < 1e-9, "v2 continues from the same value at 100/s")
        #expect(engine.performerCount == 1, "the old performer is gone")
        // The name moved with it: removing it reaches the new build's performer.
        #expect(try engine.removePlan(named: "ramp", from: "box"))
        try engine.addPlan(["type": "Ramp"], to: "box")
        #expect(engine.performerCount == 1, "new plans go to the migrated performer")
    }

    /// The property a migrated performer claimed stays claimed by it: a newer plan of another type
    /// reaches the new build's instance, which stops.
    @Test func aMigratedPerformerStillYieldsItsProperty() throws {
        let harness = try EngineHarness(plugins: [RampV1.descriptor, PinPlugin.descriptor])
        let engine = harness.engine
        try engine.addPlan(["type": "Ramp"], to: "box")
        engine.advance(by: 0.1)
        var builder = PluginRegistryBuilder(extending: engine.registry)
        _ = try builder.replace(with: try DescriptorCheck.check(RampV2.descriptor, file: "<v2>").get(), hash: "x").get()
        #expect(try engine.swaps.swap(to: builder.freeze(), pluginID: "test.ramp") == .init(migrated: 1, remaining: 0))
        try engine.addPlan(["type": "Pin"], to: "box")
        #expect(!engine.isAnimating, "the v2 ramp let go of x")
        engine.advance(by: 0.1)
        #expect(engine.value(of: "x", target: "box") == [42])
    }

    @Test func withoutMigrationTheOldBuildFinishesWhatItRuns() throws {
        let engine = harness.engine
        try engine.addPlan(["type": "Ramp"], to: "box")
        engine.advance(by: 0.1)
        let report = try engine.swaps.swap(to: try swapped(to: RampV3.descriptor), pluginID: "test.ramp")
        #expect(report == .init(migrated: 0, remaining: 1))
        engine.advance(by: 0.1)
        #expect(abs((engine.value(of: "x", target: "box")?[0] ?? 0) - 2.0) < 1e-9, "still v1, still moving")
        try engine.addPlan(["type": "Ramp"], to: "card")
        #expect(engine.performerCount == 2, "new plans use the new build")
    }

    @Test func aRefusedStateLeavesTheOldBuildRunning() throws {
        let engine = harness.engine
        try engine.addPlan(["type": "Ramp"], to: "card")
        engine.advance(by: 0.1)
        let registryBefore = engine.registry.factories.count
        let extended = try swapped(to: RampV2.descriptor)
        try engine.addPlan(["type": "Ramp", "poison": true], to: "box")
        harness.clearEvents()
        #expect(throws: EngineError.self) { try engine.swaps.swap(to: extended, pluginID: "test.ramp") }
        // The card's new performer took a token while it imported; discarded, it leaves no trace.
        #expect(harness.kinds(includingTokens: true) == [], "no events for a discarded shadow: \(harness.kinds(includingTokens: true))")
        #expect(engine.registry.factories.count == registryBefore, "registry unchanged")
        #expect(engine.performerCount == 2, "the card's performer, prepared first, was dropped again")
        #expect(engine.isActive(runtime: "default"))
        engine.advance(by: 0.1)
        #expect(abs((engine.value(of: "x", target: "card")?[0] ?? 0) - 2.0) < 1e-9, "still v1 at 10/s")
    }

    /// A performer its old build cannot export (that build's bug, which the new build may be there to
    /// fix) stays on the old build and finishes there; the swap goes on for the others and new plans.
    @Test func aPerformerItsOldBuildCannotExportStaysThereAndTheSwapGoesOn() throws {
        let engine = harness.engine
        try engine.addPlan(["type": "Ramp"], to: "card")
        try engine.addPlan(["type": "Ramp", "unexportable": true], to: "box")
        engine.advance(by: 0.1)
        let job = try engine.swaps.beginSwap(to: try swapped(to: RampV2.descriptor), pluginID: "test.ramp", budgetNanos: .max)
        #expect(job.isFinished && job.report == .init(migrated: 1, remaining: 1), "\(job.report)")
        #expect(job.failures.count == 1 && job.failures[0].contains("could not export its state; it finishes on its old build"),
                "\(job.failures)")
        #expect(engine.registry.current(id: "test.ramp")?.plugin.version == "2.0.0")
        engine.advance(by: 0.1)
        #expect(abs((engine.value(of: "x", target: "card")?[0] ?? 0) - 11.0) < 1e-9, "card moved: 1 + 100/s × 0.1")
        try engine.addPlan(["type": "Ramp"], to: "next")
        engine.advance(by: 0.1)
        #expect(abs((engine.value(of: "x", target: "next")?[0] ?? 0) - 10.0) < 1e-9, "new plans use the new build")
    }

    /// A swap under many performers moves them in slices between ticks: the first slice with the swap,
    /// the rest by `continueSwap`; a plan for a performer still waiting moves it first.
    @Test func aSwapInSlicesMovesEveryPerformerBetweenTicks() throws {
        let engine = harness.engine
        for target in ["a", "b", "c", "d"] { try engine.addPlan(["type": "Ramp"], to: target) }
        engine.advance(by: 0.1)
        let job = try engine.swaps.beginSwap(to: try swapped(to: RampV2.descriptor), pluginID: "test.ramp", budgetNanos: 0)
        #expect(job.report.migrated == 1 && !job.isFinished, "a budget of 0 moves one performer, the first")
        engine.advance(by: 0.1)
        #expect(abs((engine.value(of: "x", target: "a")?[0] ?? 0) - 11.0) < 1e-9, "a moved: 1 + 100/s × 0.1")
        #expect(abs((engine.value(of: "x", target: "d")?[0] ?? 0) - 2.0) < 1e-9, "d waits on v1: 1 + 10/s × 0.1")

        // A plan for d reaches the one performer d has, which moves to v2 first.
        try engine.addPlan(["type": "Ramp"], to: "d")
        #expect(engine.performerCount == 4)
        #expect(job.report.migrated == 2)

        #expect(!engine.swaps.continueSwap(job, budgetNanos: 0), "one more: b")
        #expect(engine.swaps.continueSwap(job, budgetNanos: .max), "then the rest")
        #expect(job.report == .init(migrated: 4, remaining: 0) && job.failures.isEmpty)
        engine.advance(by: 0.1)
        for (target, expected) in [("a", 21.0), ("b", 12.0), ("c", 12.0), ("d", 12.0)] {
            #expect(abs((engine.value(of: "x", target: target)?[0] ?? 0) - expected) < 1e-9, "\(target) runs on v2")
        }
        #expect(!harness.kinds().contains("runtime.idle"), "the runtime never looked idle")
    }

    /// After the first slice, a performer whose state the new build refuses stays on the old build.
    @Test func aRefusedStateInALaterSliceStaysOnTheOldBuild() throws {
        let engine = harness.engine
        try engine.addPlan(["type": "Ramp"], to: "a")
        try engine.addPlan(["type": "Ramp", "poison": true], to: "b")
        let job = try engine.swaps.beginSwap(to: try swapped(to: RampV2.descriptor), pluginID: "test.ramp", budgetNanos: 0)
        #expect(engine.swaps.continueSwap(job, budgetNanos: .max))
        #expect(job.report == .init(migrated: 1, remaining: 1) && job.failures.count == 1)
        #expect(engine.performerCount == 2)
    }

    @Test func generationsAreCapped() throws {
        var builder = PluginRegistryBuilder(extending: harness.engine.registry)
        for _ in 1..<PluginRegistryBuilder.maximumGenerations {
            _ = try builder.replace(with: try DescriptorCheck.check(RampV2.descriptor, file: "<v2>").get(), hash: "").get()
        }
        let refused = builder.replace(with: try DescriptorCheck.check(RampV2.descriptor, file: "<v2>").get(), hash: "")
        guard case .failure(let error) = refused else { Issue.record("a generation past the cap was accepted"); return }
        #expect(error.reason.contains("restart required"))
    }
}

extension RampV1 {
    static var descriptor: UnsafeRawPointer { PluginEntry.descriptor(for: RampV1.self) }
}

extension RampV2 {
    static var descriptor: UnsafeRawPointer { PluginEntry.descriptor(for: RampV2.self) }
}

extension RampV3 {
    static var descriptor: UnsafeRawPointer { PluginEntry.descriptor(for: RampV3.self) }
}

extension PinPlugin {
    static var descriptor: UnsafeRawPointer { PluginEntry.descriptor(for: PinPlugin.self) }
}
