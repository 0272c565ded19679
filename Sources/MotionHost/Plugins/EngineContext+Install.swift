import MotionEngine

extension EngineContext {
    /// dlopens `image` (a private copy of `file` that passed the probe) on the engine thread and installs
    /// the plugin it holds (`install(_:file:hash:)`), or lists the file as rejected with the reason.
    public func install(image: String, file: String, hash: String) -> InstallOutcome {
        let started = MonotonicClock.now()
        defer {
            logger.debug("plugin install held the engine thread", metadata: [
                "file": "\(file)", "ms": "\(Double(MonotonicClock.now() - started) / 1e6)"])
        }
        switch PluginLoader.load(file: image, label: file, host: engine.host) {
        case .failure(let error): return reject(file: file, reason: error.reason)
        case .success(let descriptor): return install(descriptor, file: file, hash: hash)
        }
    }
}
