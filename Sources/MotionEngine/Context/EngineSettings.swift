/// What the engine thread needs to know of the daemon's configuration; the daemon derives it from its
/// command line and config file (and replaces it when a reload changes one of these).
package struct EngineSettings: Sendable, Equatable {
    /// Frames per second of the shared clock.
    package var rate: Double
    /// Longest request line, advertised in `hello`.
    package var maximumLineLength: Int
    package var maximumSubscriptionsPerConnection: Int
    /// What each uid may hold (docs/protocol.md#ownership-and-quotas).
    package var quotas = Quotas()
    /// Shared-memory regions of all uids together: each is a mapping of the daemon's, and mappings past
    /// `vm.max_map_count` fail wherever the next one is needed (an allocation: a crash). The daemon sets
    /// it from `vm.max_map_count` at start (an eighth of it, at most 16,384).
    package var maximumSharedRegions = 4_096
    /// Global animation speed (docs/vocabulary.md): every tick advances animations by dt × speed (0.5: half speed);
    /// at 0 every plan added completes at once.
    package var speed = 1.0
    /// Reduce motion (docs/vocabulary.md): every plan added that is not `"essential": true` completes at once.
    package var reduceMotion = false
    /// The speeds this build accepts besides 0.
    package static let speeds = 0.01...100.0

    package static func isValid(speed: Double) -> Bool { speed == 0 || speeds.contains(speed) }

    /// Which plans complete at once under these settings.
    package var instantMotion: InstantMotion { speed == 0 ? .all : reduceMotion ? .reduceMotion : .off }

    /// What a tick advances animations by: at speed 0 the animations that were running when it was set
    /// carry on at speed 1 (new plans complete at once), so nothing freezes half-way.
    package var tickScale: Double { speed == 0 ? 1 : speed }

    package init(rate: Double = 120, maximumLineLength: Int = 1 << 20, maximumSubscriptionsPerConnection: Int = 64) {
        self.rate = rate
        self.maximumLineLength = maximumLineLength
        self.maximumSubscriptionsPerConnection = maximumSubscriptionsPerConnection
    }
}
