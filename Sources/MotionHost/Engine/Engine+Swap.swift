import MotionPluginAPI
import MotionWire

/// Hot swap (SPEC §6): a new build of a plugin becomes current, and running performers move to it.
extension Engine {
    public struct SwapReport: Sendable, Equatable {
        /// Performers now running on the new build.
        public var migrated = 0
        /// Performers left to finish on an older build (no `motion.migrate/1` on one side).
        public var remaining = 0
    }

    /// Adopts `extended` (built with `PluginRegistryBuilder.replace`), whose newest generation of
    /// `pluginID` is the new build, and moves every performer of an older generation of that plugin to
    /// the new build's factory for its plan type. Runs between ticks, so no frame sees half a swap.
    ///
    /// All or nothing: if one performer cannot export or import its state, the ones prepared so far are
    /// dropped, `registry` stays as it was and the error names the performer.
    public func swap(to extended: PluginRegistry, pluginID: String) throws(EngineError) -> SwapReport {
        let previous = registry
        guard let newest = extended.current(id: pluginID) else {
            throw EngineError(.internalError, "swap: \(pluginID) is not in the new registry")
        }
        registry = extended
        let candidates = performers.values.filter { record in
            record.pluginID == pluginID && extended.factories[record.factoryIndex].generation < newest.generation
        }.sorted { $0.id < $1.id }
        var report = SwapReport()
        var prepared: [(old: PerformerRecord, new: PerformerRecord)] = []
        let tables = (old: Dictionary(uniqueKeysWithValues: extended.plugins.filter { $0.plugin.id == pluginID }
                                        .map { ($0.generation, Self.migrateTable($0.plugin)) }),
                      new: Self.migrateTable(newest.plugin))
        for old in candidates {
            guard let newIndex = extended.factory(forPlanType: old.planType),
                extended.factories[newIndex].pluginID == pluginID, newIndex != old.factoryIndex,
                old.target.performers[newIndex] == nil,
                let oldTable = tables.old[extended.factories[old.factoryIndex].generation] ?? nil, let newTable = tables.new
            else {
                report.remaining += 1
                continue
            }
            do throws(EngineError) {
                prepared.append((old, try prepareMigration(of: old, to: newIndex, from: oldTable, into: newTable)))
            } catch {
                for (_, shadow) in prepared { discard(shadow) }
                registry = previous
                throw error
            }
        }
        for (old, new) in prepared { commitMigration(from: old, to: new) }
        report.migrated = prepared.count
        curves.register(extended.plugins)
        return report
    }

    static func migrateTable(_ plugin: PluginDescriptor) -> UnsafePointer<motion_migrate>? {
        guard let extensions = plugin.pointer.pointee.get_extension,
            let table = extensions(MOTION_MIGRATE_EXTENSION)
        else { return nil }
        let migrate = table.assumingMemoryBound(to: motion_migrate.self)
        guard migrate.pointee.struct_size >= UInt32(MemoryLayout<motion_migrate>.size) else { return nil }
        return migrate
    }

    /// Exports the old instance's state and imports it into a new instance of the new factory, under a
    /// new performer record. Nothing is visible until `commitMigration`.
    private func prepareMigration(of old: PerformerRecord, to newIndex: Int, from oldTable: UnsafePointer<motion_migrate>,
                                  into newTable: UnsafePointer<motion_migrate>) throws(EngineError) -> PerformerRecord {
        guard let oldInstance = old.instance else {
            throw EngineError(.internalError, "performer \(old.id) has no instance")
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        var length = oldTable.pointee.export_state(old.factory, oldInstance, &buffer, buffer.count)
        if length > buffer.count {
            buffer = [CChar](repeating: 0, count: length)
            length = oldTable.pointee.export_state(old.factory, oldInstance, &buffer, buffer.count)
        }
        guard length > 0, length <= buffer.count else {
            throw EngineError(.invalidPlan, "performer \(old.id) (\(old.planType) on \(old.target.name)) could not export its state")
        }
        buffer.append(0)
        let factory = registry.factories[newIndex]
        let record = PerformerRecord(id: nextPerformerID, factoryIndex: newIndex, factory: factory,
                                     runtime: old.runtime, target: old.target)
        nextPerformerID += 1
        performers[record.id] = record
        guard let instance = factory.descriptor.pointer.pointee.create(factory.descriptor.pointer, host.pointer,
                                                                        record.id, old.target.name)
        else {
            performers[record.id] = nil
            throw EngineError(.invalidPlan, "the new \(old.planType) build could not create a performer for \(old.target.name)")
        }
        record.instance = instance
        var message = [CChar](repeating: 0, count: 1024)
        let status = newTable.pointee.import_state(factory.descriptor.pointer, instance, buffer, length, &message, message.count)
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
        releaseSilently(old)
        trace(TraceEvent(kind: "performer.migrated", runtime: old.runtime.name, target: target.name, fields: [
            "performer": .number(Double(new.id)), "from": .number(Double(old.id)), "planType": .string(new.planType),
            "plugin": .string(new.pluginID), "generation": .number(Double(registry.factories[new.factoryIndex].generation)),
        ]))
    }

    /// Forgets a prepared record: its instance, its tokens (silently: they were never visible).
    private func discard(_ record: PerformerRecord) {
        releaseSilently(record)
    }

    /// Drops a record and its instance, releasing its tokens without a `token.terminated` each; the
    /// runtime reports idle only if these were its last tokens.
    private func releaseSilently(_ record: PerformerRecord) {
        let held = record.tokens.count
        stopAdvancing(record)
        record.runtime.activeTokens -= held
        record.tokens.removeAll()
        performers[record.id] = nil
        destroyInstance(record)
        if held > 0 && record.runtime.activeTokens == 0 {
            trace(TraceEvent(kind: "runtime.idle", runtime: record.runtime.name))
        }
    }
}
