import MotionPluginAPI
import MotionWire

/// Hot swap (docs/plugins.md): a new build of a plugin becomes current, and running performers move to it.
/// Hot swap, a room of the engine (docs/architecture.md): made when needed (`Engine.swaps`), its state the
/// engine's (`SpreadWork.swapJobs`).
package struct HotSwaps {
    unowned let engine: Engine

    package struct SwapReport: Sendable, Equatable {
        /// Performers now running on the new build.
        package var migrated = 0
        /// Performers left to finish on an older build (no `motion.migrate/1` on one side).
        package var remaining = 0
    }

    /// A swap whose performers move over several calls (`beginSwap`, then `continueSwap`), so that a
    /// swap under many running animations never holds the engine thread past a frame.
    package final class SwapJob {
        package let pluginID: String
        /// The new build's generation.
        let generation: Int
        /// Performers of older builds, oldest first; those before `next` have been handled.
        let queue: [UInt64]
        var next = 0
        let oldTables: [Int: UnsafePointer<motion_migrate>?]
        let newTable: UnsafePointer<motion_migrate>?
        package internal(set) var report = SwapReport()
        /// Why performers that had to stay on their old build could not move (after the first slice).
        package internal(set) var failures: [String] = []
        /// Performers that cannot move (no migration on one side), counted once in `remaining`.
        var countedAsRemaining: Set<UInt64> = []
        package var isFinished: Bool { next >= queue.count }
        /// What moving one performer has cost so far (a running average): a slice stops before the move
        /// that would pass its deadline, not after it.
        var nanosPerMove: UInt64 = 0

        /// Records one move that took from `start` to `end`; true when another fits before `deadline`.
        func recordMove(from start: UInt64, to end: UInt64, deadline: (partialValue: UInt64, overflow: Bool)) -> Bool {
            let took = end &- start
            nanosPerMove = nanosPerMove == 0 ? took : (nanosPerMove * 7 + took) / 8
            return deadline.overflow || end &+ nanosPerMove < deadline.partialValue
        }

        init(pluginID: String, generation: Int, queue: [UInt64], oldTables: [Int: UnsafePointer<motion_migrate>?],
             newTable: UnsafePointer<motion_migrate>?) {
            self.pluginID = pluginID
            self.generation = generation
            self.queue = queue
            self.oldTables = oldTables
            self.newTable = newTable
        }
    }

    /// Adopts `extended` (built with `PluginRegistryBuilder.replace`), whose newest generation of
    /// `pluginID` is the new build, and moves every performer of an older generation of that plugin to
    /// the new build's factory for its plan type. Runs between ticks, so no frame sees half a swap.
    ///
    /// All or nothing for the new build: if it refuses a performer's state, the ones prepared so far are
    /// dropped, `registry` stays as it was and the error names the performer. A performer that its old
    /// build cannot export (that build's fault, which the new one may be there to fix) stays on the old
    /// build and finishes there, counted in `remaining`.
    package func swap(to extended: PluginRegistry, pluginID: String) throws(EngineError) -> SwapReport {
        try beginSwap(to: extended, pluginID: pluginID, budgetNanos: .max).report
    }

    /// `swap(to:pluginID:)` for as many performers as fit in `budgetNanos` of this thread's time (at least
    /// one): new plans use the new build from now on, and these performers move all or nothing, as one
    /// swap. If performers remain, `continueSwap` moves the rest, call by call, between ticks; until then
    /// they run on their old build, and a plan for one of them moves it first.
    package func beginSwap(to extended: PluginRegistry, pluginID: String, budgetNanos: UInt64) throws(EngineError) -> SwapJob {
        // A swap of the same plugin still under way finishes first: its performers are older still.
        for job in engine.spread.swapJobs where job.pluginID == pluginID { _ = continueSwap(job, budgetNanos: .max) }
        let previous = engine.registry
        guard let newest = extended.current(id: pluginID) else {
            throw EngineError(.internalError, "swap: \(pluginID) is not in the new registry")
        }
        engine.registry = extended
        // The factories of this plugin's older builds, as a table by index: one array read per performer,
        // not a string comparison (the swap's setup held the engine thread ~3 ms under 10,000 performers).
        var isOlder = [Bool](repeating: false, count: extended.factories.count)
        for (index, factory) in extended.factories.enumerated()
        where factory.pluginID == pluginID && factory.generation < newest.generation {
            isOlder[index] = true
        }
        var queue: [UInt64] = []
        for record in engine.performers.values where record.factoryIndex < isOlder.count && isOlder[record.factoryIndex] {
            queue.append(record.id)
        }
        queue.sort()
        let job = SwapJob(
            pluginID: pluginID, generation: newest.generation, queue: queue,
            oldTables: Dictionary(uniqueKeysWithValues: extended.plugins.filter { $0.plugin.id == pluginID }
                .map { ($0.generation, Self.migrateTable($0.plugin)) }),
            newTable: Self.migrateTable(newest.plugin))
        // Prepared performers are committed together after the loop, at about what preparing them cost:
        // preparing gets half the budget.
        let deadline = WorkClock.now().addingReportingOverflow(budgetNanos == .max ? .max : budgetNanos / 2)
        var prepared: [(old: PerformerRecord, new: PerformerRecord)] = []
        while !job.isFinished {
            let id = job.queue[job.next]
            job.next += 1
            guard let move = migration(of: id, in: job) else { continue }
            let start = WorkClock.now()
            if let state = exportState(of: move.old, from: move.oldTable, in: job) {
                do throws(EngineError) {
                    prepared.append((move.old, try importState(state, of: move.old, to: move.newIndex, into: move.newTable)))
                } catch {
                    for (_, shadow) in prepared { discard(shadow) }
                    engine.registry = previous
                    throw error
                }
            }
            if !job.recordMove(from: start, to: WorkClock.now(), deadline: deadline) { break }
        }
        for (old, new) in prepared { commitMigration(from: old, to: new) }
        job.report.migrated = prepared.count
        engine.curves.register(extended.plugins)
        if !job.isFinished { engine.spread.swapJobs.append(job) }
        return job
    }

    /// Moves more performers of `job`, one at a time, as many as fit in `budgetNanos` at what a move has
    /// cost so far (at least one). One whose
    /// state cannot move stays on its old build and finishes there (counted in `remaining`, its reason in
    /// `failures`). Returns true when the job is finished.
    package func continueSwap(_ job: SwapJob, budgetNanos: UInt64) -> Bool {
        let deadline = WorkClock.now().addingReportingOverflow(budgetNanos)
        while !job.isFinished {
            let id = job.queue[job.next]
            job.next += 1
            let start = WorkClock.now()
            move(id, in: job)
            if !job.recordMove(from: start, to: WorkClock.now(), deadline: deadline) { break }
        }
        if job.isFinished { engine.spread.swapJobs.removeAll { $0 === job } }
        return job.isFinished
    }

    /// Before a plan for `planType` reaches `target`: its performer of an older build that a swap has
    /// not reached yet moves now, so the plan finds it (one performer per target and plan type).
    func moveWaitingPerformer(of planType: String, on target: TargetScope) {
        for job in engine.spread.swapJobs {
            for performer in target.performers.values where performer.planType == planType && performer.pluginID == job.pluginID {
                move(performer.id, in: job)
            }
        }
    }

    private func move(_ id: UInt64, in job: SwapJob) {
        // One that could not move stays on its old build: not asked to export again at each plan for it.
        guard !job.countedAsRemaining.contains(id), let move = migration(of: id, in: job), let state = exportState(of: move.old, from: move.oldTable, in: job) else { return }
        do throws(EngineError) {
            let new = try importState(state, of: move.old, to: move.newIndex, into: move.newTable)
            commitMigration(from: move.old, to: new)
            job.report.migrated += 1
        } catch {
            job.report.remaining += 1
            job.failures.append(error.message)
        }
    }

    /// Where performer `id` moves in `job`, if it still exists on an older build and can move; nil
    /// otherwise (one that cannot migrate is counted in `remaining` once).
    private func migration(of id: UInt64, in job: SwapJob) -> (old: PerformerRecord, newIndex: Int,
                                                                oldTable: UnsafePointer<motion_migrate>,
                                                                newTable: UnsafePointer<motion_migrate>)? {
        guard let old = engine.performers[id], !old.runtime.isClosing, old.pluginID == job.pluginID,
            engine.registry.factories[old.factoryIndex].generation < job.generation
        else { return nil }
        guard let newIndex = engine.registry.factory(forPlanType: old.planType),
            engine.registry.factories[newIndex].pluginID == job.pluginID, newIndex != old.factoryIndex,
            old.target.performers[newIndex] == nil,
            let oldTable = job.oldTables[engine.registry.factories[old.factoryIndex].generation] ?? nil, let newTable = job.newTable
        else {
            if !job.countedAsRemaining.contains(id) {
                job.countedAsRemaining.insert(id)
                job.report.remaining += 1
            }
            return nil
        }
        return (old, newIndex, oldTable, newTable)
    }

    static func migrateTable(_ plugin: PluginDescriptor) -> UnsafePointer<motion_migrate>? {
        guard let extensions = plugin.pointer.pointee.get_extension,
            let table = extensions(MOTION_MIGRATE_EXTENSION)
        else { return nil }
        let migrate = table.assumingMemoryBound(to: motion_migrate.self)
        guard migrate.pointee.struct_size >= UInt32(MemoryLayout<motion_migrate>.size) else { return nil }
        return migrate
    }

    /// The largest hot-swap state a performer may export.
    static let maximumStateBytes = 16 << 20

    /// The old instance's state, NUL-terminated, or nil when its build cannot give it: the performer then
    /// stays on that build and finishes there (counted in `remaining` once, the reason in `failures`).
    private func exportState(of old: PerformerRecord, from oldTable: UnsafePointer<motion_migrate>,
                             in job: SwapJob) -> [CChar]? {
        do throws(EngineError) {
            return try exportState(of: old, from: oldTable)
        } catch {
            if job.countedAsRemaining.insert(old.id).inserted { job.report.remaining += 1 }
            job.failures.append(error.message + "; it finishes on its old build")
            return nil
        }
    }

    func exportState(of old: PerformerRecord, from oldTable: UnsafePointer<motion_migrate>) throws(EngineError) -> [CChar] {
        guard let oldInstance = old.instance else {
            throw EngineError(.internalError, "performer \(old.id) has no instance")
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        func export() -> Int {
            engine.calling(old.label, "export_state") {
                oldTable.pointee.export_state(old.factory, oldInstance, &buffer, buffer.count)
            }
        }
        var length = export()
        if length > buffer.count {
            // A state is a performer's few numbers; a plugin that asks for more is not believed (it would
            // have the host allocate whatever it says, a terabyte included).
            guard length <= Self.maximumStateBytes else {
                throw EngineError(.invalidPlan, "performer \(old.id) (\(old.planType)): a state of \(length) bytes; at most \(Self.maximumStateBytes)")
            }
            buffer = [CChar](repeating: 0, count: length)
            length = export()
        }
        guard length > 0, length <= buffer.count else {
            throw EngineError(.invalidPlan, "performer \(old.id) (\(old.planType) on \(old.target.name)) could not export its state")
        }
        buffer.removeSubrange(length...)
        buffer.append(0)
        return buffer
    }

    /// Imports `state` (NUL-terminated) into a new instance of the new factory, under a new performer
    /// record. Nothing is visible until `commitMigration`.
    private func importState(_ buffer: [CChar], of old: PerformerRecord, to newIndex: Int,
                             into newTable: UnsafePointer<motion_migrate>) throws(EngineError) -> PerformerRecord {
        let length = buffer.count - 1
        let factory = engine.registry.factories[newIndex]
        let record = PerformerRecord(id: engine.ledger.nextPerformerID, factoryIndex: newIndex, factory: factory,
                                     runtime: old.runtime, target: old.target)
        engine.ledger.nextPerformerID += 1
        record.isShadow = true
        engine.performers[record.id] = record
        guard let instance = engine.calling(factory.label, "create", {
            factory.descriptor.table.pointee.create(factory.descriptor.pointer, old.runtime.isDryRun ? engine.host.dryRunPointer : engine.host.pointer,
                                                    record.id, old.target.name)
        }) else {
            engine.performers[record.id] = nil
            throw EngineError(.invalidPlan, "the new \(old.planType) build could not create a performer for \(old.target.name)")
        }
        record.instance = instance
        var message = [CChar](repeating: 0, count: 1024)
        let status = engine.calling(factory.label, "import_state") {
            newTable.pointee.import_state(factory.descriptor.pointer, instance, buffer, length, &message, message.count)
        }
        guard status == MOTION_OK else {
            discard(record)
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw EngineError(.invalidPlan, "performer \(old.id) (\(old.planType) on \(old.target.name)): the new build refused its state: \(text)")
        }
        return record
    }

    /// The new record takes the old one's place (target slot, names, tokens); the old instance is
    /// destroyed without a trace of idleness in between.
    private func commitMigration(from old: PerformerRecord, to new: PerformerRecord) {
        let target = old.target
        if target.performers[old.factoryIndex] === old { target.performers[old.factoryIndex] = nil }
        target.performers[new.factoryIndex] = new
        for (name, record) in target.named where record === old { target.named[name] = new }
        for handle in target.properties.values where Int(handle) < engine.animators.count && engine.animators[Int(handle)] === old {
            engine.animators[Int(handle)] = new
        }
        let oldHeld = old.tokens.count
        engine.moveCharges(from: old, to: new)
        releaseSilently(old)
        new.isShadow = false
        for token in new.tokens.sorted() {
            engine.trace(TraceEvent(kind: "token.activated", runtime: new.runtime.name, target: target.name,
                             fields: ["performer": .number(Double(new.id)), "token": .number(Double(token))]))
        }
        if oldHeld == 0, !new.tokens.isEmpty, new.runtime.activeTokens == new.tokens.count {
            engine.trace(TraceEvent(kind: "runtime.active", runtime: new.runtime.name))
        }
        engine.trace(TraceEvent(kind: "performer.migrated", runtime: old.runtime.name, target: target.name, fields: [
            "performer": .number(Double(new.id)), "from": .number(Double(old.id)), "planType": .string(new.planType),
            "plugin": .string(new.pluginID), "generation": .number(Double(engine.registry.factories[new.factoryIndex].generation)),
        ]))
    }

    /// Forgets a prepared record: its instance, its tokens (silently: they were never visible).
    func discard(_ record: PerformerRecord) {
        releaseSilently(record)
    }

    /// Drops a record and its instance, releasing its tokens without a `token.terminated` each; the
    /// runtime reports idle only if these were its last tokens.
    private func releaseSilently(_ record: PerformerRecord) {
        let held = record.tokens.count
        engine.stopAdvancing(record)
        record.runtime.activeTokens -= held
        record.tokens.removeAll()
        engine.performers[record.id] = nil
        engine.destroyInstance(record)
        engine.releaseCharges(of: record)
        if held > 0 && record.runtime.activeTokens == 0 && !record.isShadow {
            engine.trace(TraceEvent(kind: "runtime.idle", runtime: record.runtime.name))
        }
    }
}
