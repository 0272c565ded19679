import MotionPluginAPI

/// Type-erased performer behind the C instance pointer.
class AnyPerformerBox {
    func add(json: UnsafeRawBufferPointer) throws {}
    func add(json: UnsafeRawBufferPointer, named name: String) throws {}
    func removePlan(named name: String) {}
    func advance(by dt: Double) {}
    func yield(_ property: PropertyHandle) {}
    /// JSON state for hot swap, or nil when the performer cannot migrate.
    func exportState() -> [UInt8]? { nil }
    func importState(json: UnsafeRawBufferPointer) throws {
        throw PlanError("this performer cannot import state (it is not a MigratablePerformer)")
    }
}

class PerformerBox<P: Performer>: AnyPerformerBox {
    let performer: P

    init(_ performer: P) {
        self.performer = performer
    }

    override func add(json: UnsafeRawBufferPointer) throws {
        try performer.add(PlanDecoding.decode(P.Plan.self, from: json))
    }

    override func add(json: UnsafeRawBufferPointer, named name: String) throws {
        try performer.add(PlanDecoding.decode(P.Plan.self, from: json), named: name)
    }

    override func removePlan(named name: String) {
        performer.removePlan(named: name)
    }

    override func advance(by dt: Double) {
        performer.advance(by: dt)
    }

    override func yield(_ property: PropertyHandle) {
        performer.yield(property)
    }
}

/// What a factory's `factory_data` points at: how to make one performer type.
final class FactoryBox {
    let make: (PerformerContext, String) -> AnyPerformerBox
    /// [frame] Advances the host's batch of instances ("motion.batch/1").
    let advanceBatch: (UnsafeBufferPointer<UnsafeMutableRawPointer?>, Double) -> Void
    /// [control, frame] Writes what the host's performers of this type kept ("motion.kept/1").
    let writeKept: (UInt) -> Void
    let writeKeptSome: (UInt, UnsafeBufferPointer<UInt32>) -> Void

    init<P: Performer>(_ type: P.Type) {
        if let migratable = type as? any MigratablePerformer.Type {
            make = Self.maker(migratable)
        } else {
            make = { context, target in PerformerBox(P(context: context, target: target)) }
        }
        if let batched = type as? any BatchPerformer.Type {
            advanceBatch = Self.batcher(batched)
            writeKept = { host in batched.writeKept(host: host) }
            writeKeptSome = { host, handles in batched.writeKept(host: host, handles: handles) }
        } else {
            advanceBatch = { instances, dt in
                for instance in instances { box(instance!).advance(by: dt) }
            }
            writeKept = { _ in }
            writeKeptSome = { _, _ in }
        }
    }

    private static func batcher<B: BatchPerformer>(_ type: B.Type) -> (UnsafeBufferPointer<UnsafeMutableRawPointer?>, Double) -> Void {
        { instances, dt in B.advance(PerformerBatch(instances: instances), by: dt) }
    }

    private static func maker<M: MigratablePerformer>(_ type: M.Type) -> (PerformerContext, String) -> AnyPerformerBox {
        { context, target in MigratablePerformerBox(M(context: context, target: target)) }
    }
}
