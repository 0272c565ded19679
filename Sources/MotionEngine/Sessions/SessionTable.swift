/// The connections the engine thread serves, by id, and whether a graceful stop has begun: from then on a
/// request not yet applied is answered `server.shutting_down` (docs/protocol.md#a-stop).
struct SessionTable {
    private var open: [UInt64: Session] = [:]
    /// A graceful stop has begun (`EngineContext.beginStopping`).
    var isStopping = false

    subscript(id: UInt64) -> Session? {
        get { open[id] }
        set { open[id] = newValue }
    }

    var values: Dictionary<UInt64, Session>.Values { open.values }
    var count: Int { open.count }

    mutating func removeValue(forKey id: UInt64) -> Session? { open.removeValue(forKey: id) }
}
