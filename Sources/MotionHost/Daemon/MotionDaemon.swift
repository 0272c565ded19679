import Foundation
import Logging
import ServiceLifecycle

/// The whole daemon: loads plugins on the engine thread, then runs the engine and the socket server as
/// a service group that stops in reverse order on SIGTERM or SIGINT.
public struct MotionDaemon: Sendable {
    public let configuration: DaemonConfiguration
    public let logger: Logger

    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        if let stateDirectory = configuration.stateDirectory { try Self.prepareStateDirectory(stateDirectory) }
        let loop = EngineLoop(rate: configuration.rate)
        let searchPath = configuration.pluginSearchPath(environment: ProcessInfo.processInfo.environment)
        let (configuration, logger) = (self.configuration, self.logger)
        let registry = await loop.start {
            let host = HostServices(logger: logger)
            let registry = PluginLoader.buildRegistry(directories: searchPath, host: host)
            let engine = Engine(registry: registry, host: host)
            return (EngineContext(engine: engine, configuration: configuration, logger: logger), registry)
        }
        report(registry, searchPath: searchPath.map(\.path))
        let group = ServiceGroup(
            services: [EngineService(loop: loop), SocketServer(configuration: configuration, loop: loop, logger: logger)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
    }

    /// The state directory must exist and be writable before anything is acknowledged that would be
    /// stored there; a misconfigured one stops the daemon at start, not at the first write.
    static func prepareStateDirectory(_ path: String) throws {
        struct Unusable: Error, CustomStringConvertible {
            let description: String
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw Unusable(description: "--state-dir \(path): cannot create it: \(error.localizedDescription)")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw Unusable(description: "--state-dir \(path): not writable by this user")
        }
    }

    private func report(_ registry: PluginRegistry, searchPath: [String]) {
        for entry in registry.plugins {
            logger.info("plugin loaded", metadata: [
                "plugin": "\(entry.plugin.id)", "version": "\(entry.plugin.version)", "file": "\(entry.plugin.file)",
                "planTypes": "\(entry.plugin.factories.map(\.planType).joined(separator: ","))",
            ])
        }
        for conflict in registry.conflicts {
            logger.warning("duplicate plan type: the first plugin keeps it", metadata: [
                "planType": "\(conflict.planType)", "kept": "\(conflict.keptPlugin) (\(conflict.keptFile))",
                "ignored": "\(conflict.ignoredPlugin) (\(conflict.ignoredFile))",
            ])
        }
        for rejected in registry.rejected {
            logger.warning("plugin rejected", metadata: ["file": "\(rejected.file)", "reason": "\(rejected.reason)"])
        }
        if registry.plugins.isEmpty {
            logger.warning("no plugins loaded", metadata: ["searched": "\(searchPath.joined(separator: ":"))"])
        }
    }
}

/// Keeps the engine thread alive for the life of the group; stops it last.
struct EngineService: Service {
    let loop: EngineLoop

    func run() async throws {
        try? await gracefulShutdown()
        await loop.stop()
    }
}
