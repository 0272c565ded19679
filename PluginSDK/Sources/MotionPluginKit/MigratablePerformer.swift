import MotionJSON
import MotionPluginAPI

/// A performer that can move to a new build of its plugin while it runs (hot swap, `motion.migrate/1`).
///
/// When the daemon swaps the plugin, it calls `exportState()` on the running performer of the old build
/// and `importState(_:)` on a fresh performer of the new build, for the same target, at a tick boundary.
/// `State` is encoded as JSON, so a new build can read an older build's state as long as the shape stays
/// compatible (add optional members, never rename).
public protocol MigratablePerformer: Performer {
    associatedtype State: Codable

    /// [control] Everything needed to continue exactly where this performer is.
    func exportState() -> State

    /// [control] Continue from `state`: take tokens for what still runs, write no jump. Throw to refuse;
    /// the old build then keeps running.
    func importState(_ state: State) throws
}

/// A migratable performer that encodes its state itself, in the JSON that `State`'s Codable form reads
/// and writes: a hot swap moves every running performer at one tick boundary, and the Codable path costs
/// tens of microseconds each.
public protocol FastStateCoding: MigratablePerformer {
    /// [control] The state as JSON `State` decodes from, or nil to let the kit encode `State` itself.
    func encodeState() -> [UInt8]?
    /// [control] Continues from JSON another build exported (as `importState(_:)` does). Returns false,
    /// changing nothing, when the text is not in the expected form: the kit then decodes `State` itself.
    func decodeState(_ json: UnsafeRawBufferPointer) throws -> Bool
}

final class MigratablePerformerBox<P: MigratablePerformer>: PerformerBox<P> {
    override func exportState() -> [UInt8]? {
        if let fast = performer as? any FastStateCoding, let json = fast.encodeState() { return json }
        return (try? JSONValueEncoder().encode(performer.exportState())).map(JSONWriter.bytes)
    }

    override func importState(json: UnsafeRawBufferPointer) throws {
        if let fast = performer as? any FastStateCoding, try fast.decodeState(json) { return }
        let state: P.State
        do {
            state = try JSONValueDecoder().decode(P.State.self, from: try JSONValue.parse(json))
        } catch let error as DecodingError {
            throw PlanError("state: " + PlanDecoding.describe(error))
        } catch {
            throw PlanError("state: not valid JSON")
        }
        try performer.importState(state)
    }
}

enum MigrateExtension {
    /// The table `get_extension("motion.migrate/1")` returns, shared by every Swift plugin in the image.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<motion_migrate> = {
        let table = UnsafeMutablePointer<motion_migrate>.allocate(capacity: 1)
        table.initialize(to: motion_migrate(
            struct_size: UInt32(MemoryLayout<motion_migrate>.size), reserved: 0,
            export_state: { _, instance, buffer, capacity in
                guard let instance, let json = box(instance).exportState() else { return 0 }
                if json.count <= capacity, let buffer {
                    json.withUnsafeBufferPointer { bytes in
                        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    }
                }
                return json.count
            },
            import_state: { _, instance, json, length, error, capacity in
                guard let instance, let json else { return MOTION_ERROR }
                return report(error, capacity) {
                    try box(instance).importState(json: UnsafeRawBufferPointer(start: json, count: length))
                }
            }))
        return table
    }()
}
