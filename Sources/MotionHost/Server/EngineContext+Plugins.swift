import MotionWire

/// Plugin lifecycle on the engine thread: installing probed files, hot swap, rejections.
extension EngineContext {
    /// What happened to one file.
    public enum InstallOutcome: Sendable, Equatable {
        case loaded(id: String, version: String)
        case swapped(id: String, fromVersion: String, toVersion: String, generation: Int, migrated: Int, remaining: Int)
        case rejected(reason: String)

        var json: JSONValue {
            switch self {
            case .loaded(let id, let version): ["outcome": "loaded", "id": .string(id), "version": .string(version)]
            case .swapped(let id, let from, let to, let generation, let migrated, let remaining):
                ["outcome": "swapped", "id": .string(id), "fromVersion": .string(from), "toVersion": .string(to),
                 "generation": .number(Double(generation)), "migrated": .number(Double(migrated)),
                 "remaining": .number(Double(remaining))]
            case .rejected(let reason): ["outcome": "rejected", "reason": .string(reason)]
            }
        }
    }

    /// A loaded plugin as the manager compares it with the files on disk.
    public struct LoadedPlugin: Sendable {
        public var id: String
        public var file: String
        public var hash: String
    }

    public var loadedPlugins: [LoadedPlugin] {
        engine.registry.current.map { LoadedPlugin(id: $0.plugin.id, file: $0.plugin.file, hash: $0.hash) }
    }

    /// dlopens `image` (a private copy of `file` that passed the probe) and makes it a new plugin, or
    /// the next generation of the plugin loaded from `file`: running performers migrate at this tick
    /// boundary. On any failure the registry is unchanged and the file is listed as rejected.
    public func install(image: String, file: String, hash: String) -> InstallOutcome {
        let started = MonotonicClock.now()
        defer {
            logger.debug("plugin install held the engine thread", metadata: [
                "file": "\(file)", "ms": "\(Double(MonotonicClock.now() - started) / 1e6)"])
        }
        let descriptor: PluginDescriptor
        switch PluginLoader.load(file: image, label: file, host: engine.host) {
        case .failure(let error): return reject(file: file, reason: error.reason)
        case .success(let loaded): descriptor = loaded
        }
        var builder = PluginRegistryBuilder(extending: engine.registry)
        builder.forgetRejection(of: file)
        guard let current = engine.registry.current(id: descriptor.id) else {
            builder.add(descriptor, hash: hash)
            engine.extendRegistry(builder.freeze())
            return .loaded(id: descriptor.id, version: descriptor.version)
        }
        guard current.plugin.file == file else {
            return reject(file: file, reason: "id: \"\(descriptor.id)\" is already loaded from \(current.plugin.file)")
        }
        let generation: Int
        switch builder.replace(with: descriptor, hash: hash) {
        case .failure(let error): return reject(file: file, reason: error.reason)
        case .success(let next): generation = next
        }
        let report: Engine.SwapReport
        let loaded = MonotonicClock.now()
        defer {
            logger.debug("swap", metadata: ["load_ms": "\(Double(loaded - started) / 1e6)",
                                            "swap_ms": "\(Double(MonotonicClock.now() - loaded) / 1e6)"])
        }
        do throws(EngineError) {
            report = try engine.swap(to: builder.freeze(), pluginID: descriptor.id)
        } catch {
            return reject(file: file, reason: "swap abandoned, \(descriptor.id) \(current.plugin.version) keeps running: \(error.message)")
        }
        engine.trace(TraceEvent(kind: "plugin.swapped", fields: [
            "id": .string(descriptor.id), "plugin": .string(descriptor.id),
            "fromVersion": .string(current.plugin.version), "toVersion": .string(descriptor.version),
            "generation": .number(Double(generation)), "migrated": .number(Double(report.migrated)),
            "remaining": .number(Double(report.remaining)),
        ]))
        logger.notice("plugin swapped", metadata: [
            "plugin": "\(descriptor.id)", "from": "\(current.plugin.version)", "to": "\(descriptor.version)",
            "generation": "\(generation)", "migrated": "\(report.migrated)", "remaining": "\(report.remaining)",
        ])
        return .swapped(id: descriptor.id, fromVersion: current.plugin.version, toVersion: descriptor.version,
                        generation: generation, migrated: report.migrated, remaining: report.remaining)
    }

    /// Lists `file` as rejected (plugins.list, a `plugin.rejected` trace event, the log).
    @discardableResult
    public func reject(file: String, reason: String) -> InstallOutcome {
        var builder = PluginRegistryBuilder(extending: engine.registry)
        builder.forgetRejection(of: file)
        builder.reject(PluginLoadError(file: file, reason: reason))
        engine.extendRegistry(builder.freeze())
        logger.warning("plugin refused", metadata: ["file": "\(file)", "reason": "\(reason)"])
        return .rejected(reason: reason)
    }
}
