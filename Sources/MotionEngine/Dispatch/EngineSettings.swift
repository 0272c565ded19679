/// What the engine thread needs to know of the daemon's configuration; the daemon derives it from its
/// command line and config file (and replaces it when a reload changes one of these).
public struct EngineSettings: Sendable, Equatable {
    /// Frames per second of the shared clock.
    public var rate: Double
    /// Longest request line, advertised in `hello`.
    public var maximumLineLength: Int
    public var maximumSubscriptionsPerConnection: Int
    /// What each uid may hold (SPEC §13).
    public var quotas = Quotas()
    /// Global animation speed (SPEC §10): every tick advances animations by dt × speed (0.5: half speed).
    public var speed = 1.0
    /// The speeds this build accepts (0, every animation jumping to its end, is not built yet).
    public static let speeds = 0.01...100.0

    public init(rate: Double = 120, maximumLineLength: Int = 1 << 20, maximumSubscriptionsPerConnection: Int = 64) {
        self.rate = rate
        self.maximumLineLength = maximumLineLength
        self.maximumSubscriptionsPerConnection = maximumSubscriptionsPerConnection
    }
}
