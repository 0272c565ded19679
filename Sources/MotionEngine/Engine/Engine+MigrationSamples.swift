import MotionPluginAPI

/// What a new build will be given if it is swapped in: states its running performers export now. The
/// probe (a child process) imports them into the new build first, so a build that crashes or hangs on a
/// real state is refused before the daemon maps it (a crash in `import_state` during the swap itself
/// would take motiond down, and the quarantine could only refuse the new build afterwards).
extension Engine {
    public struct MigrationSample: Sendable {
        public var planType: String
        /// The state's JSON text, as `export_state` wrote it.
        public var state: [UInt8]
    }

    /// Up to `limit` states of performers running on the current build of the plugin loaded from `file`
    /// (one per plan type first, then more), at most `maximumBytes` of them and what `budgetNanos` of this
    /// thread allow (it is the engine thread: one pass over the performers, no sort); none when the build
    /// cannot export.
    public func migrationSamples(ofPluginFile file: String, limit: Int, maximumBytes: Int = 1 << 20,
                                 budgetNanos: UInt64 = 1_000_000) -> [MigrationSample] {
        guard let entry = registry.current.first(where: { $0.plugin.file == file }), let table = Self.migrateTable(entry.plugin)
        else { return [] }
        var isCurrent = [Bool](repeating: false, count: registry.factories.count)
        for (index, factory) in registry.factories.enumerated()
        where factory.pluginID == entry.plugin.id && factory.generation == entry.generation {
            isCurrent[index] = true
        }
        var firstOfEachType: [PerformerRecord] = [], others: [PerformerRecord] = []
        var seenTypes: Set<Int> = []
        for performer in performers.values where isCurrent[performer.factoryIndex] {
            if seenTypes.insert(performer.factoryIndex).inserted {
                firstOfEachType.append(performer)
            } else if others.count < limit {
                others.append(performer)
            }
        }
        let deadline = MonotonicClock.now() &+ budgetNanos
        var samples: [MigrationSample] = [], bytes = 0
        for performer in firstOfEachType + others where samples.count < limit && MonotonicClock.now() < deadline {
            guard let state = try? exportState(of: performer, from: table), bytes + state.count <= maximumBytes else { continue }
            bytes += state.count
            samples.append(MigrationSample(planType: performer.planType, state: state.dropLast().map { UInt8(bitPattern: $0) }))
        }
        return samples
    }
}
