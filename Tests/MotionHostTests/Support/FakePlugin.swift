import Foundation
import MotionPluginKit
import Synchronization

/// Calls that fake performers receive, per target. Tests use unique target names, so parallel tests
/// never see each other's calls.
enum CallLog {
    private static let calls = Mutex<[String: [String]]>([:])

    static func record(_ target: String, _ call: String) {
        calls.withLock { $0[target, default: []].append(call) }
    }

    static func calls(for target: String) -> [String] {
        calls.withLock { $0[target] ?? [] }
    }
}

/// The performers of Material Motion's own runtime tests, rebuilt on the plugin kit.
enum FakePlugin: MotionPlugin {
    static let id = "test.fake"
    static let version = "1.0.0"
    static var performers: [any Performer.Type] {
        [ChangeBoolean.self, InstantlyInactive.self, ForeverActive.self, Emit.self, DoubleTerminate.self, Spawner.self,
         Frames.self]
    }

    /// The descriptor exactly as a dlopen'd plugin would hand it over.
    static var descriptor: UnsafeRawPointer { PluginEntry.descriptor(for: FakePlugin.self) }
}

/// `{"type":"ChangeBoolean","value":true}`: writes property `boolean` as [1] or [0].
final class ChangeBoolean: Performer {
    struct Plan: Decodable { var value: Bool }
    static let planType = "ChangeBoolean"
    let context: PerformerContext
    let target: String

    init(context: PerformerContext, target: String) {
        self.context = context
        self.target = target
        CallLog.record(target, "init(ChangeBoolean)")
    }

    func add(_ plan: Plan) throws {
        CallLog.record(target, "addPlan(ChangeBoolean \(plan.value))")
        guard let property = context.property("boolean") else { throw PlanError("boolean: not interned") }
        context.write(property, value: SIMD4(plan.value ? 1 : 0, 0, 0, 0), velocity: .zero, count: 1)
    }

    func add(_ plan: Plan, named name: String) throws {
        CallLog.record(target, "addPlan(ChangeBoolean \(plan.value), named: \(name))")
    }

    func removePlan(named name: String) {
        CallLog.record(target, "removePlan(named: \(name))")
    }
}

/// Takes a token and releases it at once.
final class InstantlyInactive: Performer {
    struct Plan: Decodable {}
    static let planType = "InstantlyInactive"
    static let isContinuous = true
    let context: PerformerContext
    let target: String

    init(context: PerformerContext, target: String) {
        self.context = context
        self.target = target
        CallLog.record(target, "init(InstantlyInactive)")
    }

    func add(_ plan: Plan) throws {
        CallLog.record(target, "addPlan(InstantlyInactive)")
        context.terminate(context.generateToken())
    }
}

/// Takes a token and never releases it; counts its advances in property `ticks`.
final class ForeverActive: Performer {
    struct Plan: Decodable {}
    static let planType = "ForeverActive"
    static let isContinuous = true
    let context: PerformerContext
    var ticks = 0.0
    var property: PropertyHandle?

    init(context: PerformerContext, target: String) {
        self.context = context
    }

    func add(_ plan: Plan) throws {
        property = context.property("ticks")
        _ = context.generateToken()
    }

    func advance(by dt: Double) {
        ticks += 1
        if let property { context.write(property, value: SIMD4(ticks, dt, 0, 0), velocity: .zero, count: 2) }
    }
}

/// `{"type":"Emit","plan":"<JSON text of another plan>"}`: emits that plan to its own target.
final class Emit: Performer {
    struct Plan: Decodable { var plan: String }
    static let planType = "Emit"
    let context: PerformerContext

    init(context: PerformerContext, target: String) {
        self.context = context
    }

    func add(_ plan: Plan) throws {
        try context.emit(planJSON: plan.plan)
    }
}

/// A buggy plugin: releases the same token twice.
final class DoubleTerminate: Performer {
    struct Plan: Decodable {}
    static let planType = "DoubleTerminate"
    static let isContinuous = true
    let context: PerformerContext

    init(context: PerformerContext, target: String) {
        self.context = context
    }

    func add(_ plan: Plan) throws {
        let token = context.generateToken()
        context.terminate(token)
        context.terminate(token)
    }
}

/// Takes one token per frame for `count` frames and never releases them: a performer whose tokens come
/// and go during frames, which the ABI allows.
final class Spawner: Performer {
    struct Plan: Decodable { var count: Int }
    static let planType = "Spawner"
    static let isContinuous = true
    let context: PerformerContext
    var remaining = 0

    init(context: PerformerContext, target: String) {
        self.context = context
    }

    func add(_ plan: Plan) throws {
        remaining = plan.count
        _ = context.generateToken()
    }

    func advance(by dt: Double) {
        guard remaining > 0 else { return }
        remaining -= 1
        _ = context.generateToken()
    }
}

/// `{"type":"Frames","frames":n,"property"?:"frames"}`: active for n frames, writing its count to
/// `property`, then done. A stand-in for an animation of known length.
final class Frames: Performer {
    struct Plan: Decodable {
        var frames: Int
        var property: String?
    }
    static let planType = "Frames"
    static let isContinuous = true
    let context: PerformerContext
    var remaining = 0
    var token: ActiveToken?

    init(context: PerformerContext, target: String) {
        self.context = context
    }

    var name = "frames"

    func add(_ plan: Plan) throws {
        remaining = plan.frames
        name = plan.property ?? "frames"
        if token == nil { token = context.generateToken() }
    }

    func advance(by dt: Double) {
        remaining -= 1
        guard let property = context.property(name) else { return }
        context.write(property, value: SIMD4(Double(remaining), 0, 0, 0), velocity: .zero, count: 1)
        if remaining <= 0, let token {
            context.terminate(token)
            self.token = nil
        }
    }
}
