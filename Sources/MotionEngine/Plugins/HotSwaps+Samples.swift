import MotionPluginAPI

/// What a new build will be given if it is swapped in: states its running performers export now. The
/// probe (a child process) imports them into the new build first, so a build that crashes or hangs on a
/// real state is refused before the daemon maps it (a crash in `import_state` during the swap itself
/// would take motiond down, and the quarantine could only refuse the new build afterwards).
extension HotSwaps {
    package struct MigrationSample: Sendable {
        package var planType: String
        /// The state's JSON text, as `export_state` wrote it.
        package var state: [UInt8]
    }

    /// Up to `limit` states of performers running on the current build of the plugin loaded from `file`
    /// (one per plan type first, then more), at most `maximumBytes` of them and what `budgetNanos` of this
    /// thread allow (it is the engine thread: one pass over the performers, no sort); none when the build
    /// cannot export.
    package func migrationSamples(ofPluginFile file: String, limit: Int, maximumBytes: Int = 1 << 20,
                                 budgetNanos: UInt64 = 1_000_000) -> [MigrationSample] {
        guard let entry = engine.registry.current.first(where: { $0.plugin.file == file }), let table = Self.migrateTable(entry.plugin)
        else { return [] }
        var isCurrent = [Bool](repeating: false, count: engine.registry.factories.count)
        for (index, factory) in engine.registry.factories.enumerated()
        where factory.pluginID == entry.plugin.id && factory.generation == entry.generation {
            isCurrent[index] = true
        }
        var firstOfEachType: [PerformerRecord] = [], others: [PerformerRecord] = []
        var seenTypes: Set<Int> = []
        for performer in engine.performers.values where isCurrent[performer.factoryIndex] && !performer.runtime.isClosing {
            if seenTypes.insert(performer.factoryIndex).inserted {
                firstOfEachType.append(performer)
            } else if others.count < limit {
                others.append(performer)
            }
        }
        let deadline = WorkClock.now() &+ budgetNanos
        var samples: [MigrationSample] = [], bytes = 0
        for performer in firstOfEachType + others where samples.count < limit && WorkClock.now() < deadline {
            guard let state = try? exportState(of: performer, from: table), bytes + state.count <= maximumBytes else { continue }
            bytes += state.count
            samples.append(MigrationSample(planType: performer.planType, state: state.dropLast().map { UInt8(bitPattern: $0) }))
        }
        return samples
    }

    /// The probe's side (a child process that loaded the new build alone): imports `state` into a new
    /// performer of `planType` as a swap does — a real performer record in a runtime and target of its
    /// own, so that the host's services (`intern_property`, `token_generate`, writes) answer as they do in
    /// the daemon — advances it one tick if it took the state, and discards it. False when the build
    /// declines the state (the swap would leave that performer on its old build) or has no migration; a
    /// crash or a hang ends the child, which is the point.
    package func probeImport(planType: String, state: [UInt8], stage: (StaticString) -> Void = { _ in }) -> Bool {
        guard let index = engine.registry.factory(forPlanType: planType),
              let entry = engine.registry.current(id: engine.registry.factories[index].pluginID), let table = Self.migrateTable(entry.plugin)
        else { return false }
        let runtime = "motiond.probe"
        if engine.runtimes[runtime] == nil { try? engine.createRuntime(runtime) }
        guard let scope = engine.runtimes[runtime] else { return false }
        let factory = engine.registry.factories[index], target = scope.target("probe")
        let record = PerformerRecord(id: engine.ledger.nextPerformerID, factoryIndex: index, factory: factory, runtime: scope, target: target)
        engine.ledger.nextPerformerID += 1
        engine.performers[record.id] = record
        guard let instance = engine.calling(factory.label, "create", {
            factory.descriptor.table.pointee.create(factory.descriptor.pointer, engine.host.pointer, record.id, target.name)
        }) else {
            engine.performers[record.id] = nil
            return false
        }
        record.instance = instance
        let text = state.map { CChar(bitPattern: $0) } + [0]
        var message = [CChar](repeating: 0, count: 1024)
        stage("import_state")
        let status = engine.calling(factory.label, "import_state") {
            table.pointee.import_state(factory.descriptor.pointer, instance, text, state.count, &message, message.count)
        }
        if status == MOTION_OK, !record.tokens.isEmpty, let advance = record.table.pointee.advance {
            engine.cycle.phase = .frame
            stage("advance")
            engine.calling(factory.label, "advance") { advance(instance, 1.0 / 120) }
            engine.finishFrame()
        }
        discard(record)
        return status == MOTION_OK
    }
}
