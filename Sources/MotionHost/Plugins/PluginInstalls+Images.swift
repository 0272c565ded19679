import MotionEngine

extension PluginInstalls {
    /// Installs the plugin of an image already mapped (`PluginLoader.open`, off this thread) from `file`:
    /// calls its entry and `init` (`install(_:file:hash:)`), or lists the file as rejected with the reason.
    package func install(entry: PluginLoader.PluginEntry, file: String, hash: String) -> InstallOutcome {
        let started = WorkClock.now()
        defer {
            context.logger.debug("plugin install held the engine thread", metadata: [
                "file": "\(file)", "ms": "\(Double(WorkClock.now() - started) / 1e6)"])
        }
        switch PluginLoader.load(entry: entry, label: file, host: context.engine.host, hash: hash) {
        case .failure(let error): return reject(file: file, reason: error.reason)
        case .success(let descriptor): return install(descriptor, file: file, hash: hash)
        }
    }
}
