import MotionWire

/// Plugin lifecycle on the engine thread: installing probed files, hot swap, rejections.
extension PluginInstalls {
    package var loadedPlugins: [LoadedPlugin] {
        engine.registry.current.map { LoadedPlugin(id: $0.plugin.id, file: $0.plugin.file, hash: $0.hash) }
    }

    /// Makes `descriptor` (loaded from a private copy of `file` that passed the probe) a new plugin, or the
    /// next generation of the plugin loaded from `file`: running performers migrate at this tick boundary.
    /// On any failure the registry is unchanged and the file is listed as rejected. The daemon loads the
    /// image (`MotionHost`'s `install(entry:file:hash:)`); the engine only registers what it is given.
    package func install(_ descriptor: PluginDescriptor, file: String, hash: String) -> InstallOutcome {
        let started = WorkClock.now()
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
        let job: HotSwaps.SwapJob
        let loaded = WorkClock.now()
        defer {
            logger.debug("swap", metadata: ["load_ms": "\(Double(loaded - started) / 1e6)",
                                            "swap_ms": "\(Double(WorkClock.now() - loaded) / 1e6)"])
        }
        do throws(EngineError) {
            // The slice includes what loading took on this thread already.
            let spent = WorkClock.now() &- started, slice = swapSliceNanos
            job = try engine.swaps.beginSwap(to: builder.freeze(), pluginID: descriptor.id,
                                       budgetNanos: slice > spent ? slice - spent : 0)
        } catch {
            return reject(file: file, reason: "swap abandoned, \(descriptor.id) \(current.plugin.version) keeps running: \(error.message)")
        }
        let swap = PendingSwap(job: job, fromVersion: current.plugin.version, toVersion: descriptor.version, generation: generation)
        guard job.isFinished else {
            pendingSwaps[file] = swap
            return .migrating(id: descriptor.id)
        }
        return finish(swap)
    }

    /// Engine-thread time a swap takes per call: performers beyond it move in later calls, between ticks.
    /// A slice delays the next tick by up to its length, and a frame interval stretches by that delay:
    /// so a slice gets what half an interval leaves after the ticks' own work (their recent p99), at most
    /// a quarter interval and at least 0.25 ms. (Under 10,000 springs at 120 Hz, fixed 2 ms slices and a
    /// 3 ms set-up gave intervals of 16 ms, twice the nominal.)
    var swapSliceNanos: UInt64 {
        let interval = 1e9 / max(settings.rate, 1)
        let spare = interval / 2 - Double(context.statistics.recentWorkNanos(percentile: 0.99))
        return UInt64(max(250_000, min(interval / 4, spare)))
    }

    struct PendingSwap {
        var job: HotSwaps.SwapJob
        var fromVersion: String
        var toVersion: String
        var generation: Int
    }

    /// Moves more performers of the swap `install` began for `file`; `swapped` once all have moved.
    package func continueInstall(file: String) -> InstallOutcome {
        guard let swap = pendingSwaps[file] else { return .rejected(reason: "no swap of \(file) is under way") }
        guard engine.swaps.continueSwap(swap.job, budgetNanos: swapSliceNanos) else { return .migrating(id: swap.job.pluginID) }
        pendingSwaps[file] = nil
        return finish(swap)
    }

    func finish(_ swap: PendingSwap) -> InstallOutcome {
        let id = swap.job.pluginID, report = swap.job.report
        for failure in swap.job.failures {
            logger.warning("a performer stays on its old build", metadata: ["plugin": "\(id)", "reason": "\(failure)"])
        }
        engine.trace(TraceEvent(kind: "plugin.swapped", fields: [
            "id": .string(id), "plugin": .string(id),
            "fromVersion": .string(swap.fromVersion), "toVersion": .string(swap.toVersion),
            "generation": .number(Double(swap.generation)), "migrated": .number(Double(report.migrated)),
            "remaining": .number(Double(report.remaining)),
        ]))
        logger.notice("plugin swapped", metadata: [
            "plugin": "\(id)", "from": "\(swap.fromVersion)", "to": "\(swap.toVersion)",
            "generation": "\(swap.generation)", "migrated": "\(report.migrated)", "remaining": "\(report.remaining)",
        ])
        return .swapped(id: id, fromVersion: swap.fromVersion, toVersion: swap.toVersion, generation: swap.generation,
                        migrated: report.migrated, remaining: report.remaining, stayed: swap.job.failures)
    }

    /// Forgets the rejections of files that a full rescan no longer found in any plugin directory: a file
    /// removed is not "rejected" any more.
    package func forgetRejections(ofFilesNotIn present: Set<String>) {
        forgetRejections(of: engine.registry.rejected.map(\.file).filter { !present.contains($0) })
    }

    /// `files` are no longer listed as rejected (those that are not, nothing).
    package func forgetRejections(of files: [String]) {
        let listed = files.filter(isRejected)
        guard !listed.isEmpty else { return }
        var builder = PluginRegistryBuilder(extending: engine.registry)
        for file in listed { builder.forgetRejection(of: file) }
        engine.extendRegistry(builder.freeze())
    }

    /// Lists `file` as rejected (plugins.list, a `plugin.rejected` trace event, the log).
    @discardableResult
    package func reject(file: String, reason: String) -> InstallOutcome {
        var builder = PluginRegistryBuilder(extending: engine.registry)
        builder.forgetRejection(of: file)
        builder.reject(PluginLoadError(file: file, reason: reason))
        engine.extendRegistry(builder.freeze())
        logger.warning("plugin refused", metadata: ["file": "\(file)", "reason": "\(reason)"])
        return .rejected(reason: reason)
    }
}
