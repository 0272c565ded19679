/// What a Swift plugin author implements: one performer type per plan type.
///
/// The host creates one performer per (runtime, target, plan type) and hands it every plan of that type
/// for that target, in order. All calls arrive on motiond's engine thread, never concurrently.
public protocol Performer: AnyObject {
    /// The plan's JSON shape. Decoding errors become `plan.invalid` replies naming the field.
    associatedtype Plan: Decodable

    /// The plan type name clients write in `"type"`.
    static var planType: String { get }

    /// The plans this performer accepts, checked by the host before `add` sees them. The default is the
    /// plan type's own (`DescribedPlan`), else the keys its decoding reads (`PlanSchema.keys(of:)`).
    static var planSchema: PlanSchema? { get }

    /// Continuous performers take is-active tokens and receive `advance(by:)` while they hold one.
    static var isContinuous: Bool { get }

    /// [control] Called once, before any plan. Keep `context` to reach host services.
    init(context: PerformerContext, target: String)

    /// [control] A plan arrived. Throw `PlanError` (or any error) to refuse it; leave state unchanged then.
    func add(_ plan: Plan) throws

    /// [control] A named plan arrived; the host has already removed an older plan of the same name.
    func add(_ plan: Plan, named name: String) throws

    /// [control] The plan added under `name` is removed.
    func removePlan(named name: String)

    /// [frame] Time moved on by `dt` seconds. No allocation, no blocking.
    func advance(by dt: Double)

    /// [control] A performer of another plan type on this target claimed `property` (see
    /// `PerformerContext.claim`): stop animating it, write nothing more to it, and end that animation
    /// `interrupted` (trace it, release its token).
    func yield(_ property: PropertyHandle)
}

extension Performer {
    public static var isContinuous: Bool { false }
    public static var planSchema: PlanSchema? {
        (Plan.self as? any DescribedPlan.Type)?.schema ?? PlanSchema.keys(of: Plan.self)
    }
    public func add(_ plan: Plan, named name: String) throws { try add(plan) }
    public func removePlan(named name: String) {}
    public func advance(by dt: Double) {}
    public func yield(_ property: PropertyHandle) {}
}

/// An error whose message the host passes to the client verbatim.
public struct PlanError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
