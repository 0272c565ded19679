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
    /// (one per plan type first, then more), oldest performers first; none when the build cannot export.
    public func migrationSamples(ofPluginFile file: String, limit: Int) -> [MigrationSample] {
        guard let entry = registry.current.first(where: { $0.plugin.file == file }), let table = Self.migrateTable(entry.plugin)
        else { return [] }
        let running = performers.values.filter { $0.pluginID == entry.plugin.id && registry.factories[$0.factoryIndex].generation == entry.generation }
            .sorted { $0.id < $1.id }
        var seenTypes: Set<String> = []
        let firstOfEachType = running.filter { seenTypes.insert($0.planType).inserted }
        var samples: [MigrationSample] = []
        var taken: Set<UInt64> = []
        for performer in firstOfEachType + running where samples.count < limit && taken.insert(performer.id).inserted {
            guard let state = try? exportState(of: performer, from: table) else { continue }
            samples.append(MigrationSample(planType: performer.planType, state: state.dropLast().map { UInt8(bitPattern: $0) }))
        }
        return samples
    }
}
