import MotionWire

/// Where routers are kept across restarts. The engine only asks to save and to load; the daemon supplies
/// the durable implementation (files under the state directory), tests an in-memory one.
package protocol RouterStorage: Sendable {
    /// Saves one router durably, or throws `state.write_failed`.
    func save(owner: UInt32, scheme: String, configuration: JSONValue, url: String) throws(EngineError)
    /// Forgets one router durably, or throws `state.write_failed`.
    func remove(owner: UInt32, scheme: String) throws(EngineError)
    /// Every saved router; unreadable entries are returned as problems, not thrown.
    func loadAll() -> (routers: [SavedRouter], problems: [String])
}

/// One router as it was saved.
package struct SavedRouter: Sendable {
    package var owner: UInt32
    package var scheme: String
    package var configuration: JSONValue
    package var url: String

    package init(owner: UInt32, scheme: String, configuration: JSONValue, url: String) {
        self.owner = owner
        self.scheme = scheme
        self.configuration = configuration
        self.url = url
    }
}
