import MotionEngine
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The whole daemon: loads plugins on the engine thread, then runs the engine, the socket server and
/// the systemd integration as a service group that stops in reverse order on SIGTERM or SIGINT.
package struct MotionDaemon: Sendable {
    package let configuration: DaemonConfiguration
    package let logger: Logger
    package let logLevel: LogLevelSetting

    package init(configuration: DaemonConfiguration, logger: Logger, logLevel: LogLevelSetting) {
        self.configuration = configuration
        self.logger = logger
        self.logLevel = logLevel
    }

    package func run() async throws {
        // First of all: SIGHUP's default action would kill the daemon.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        MallocTuning.disableFastBins()
        let environment = ProcessInfo.processInfo.environment
        let notifier = SystemdNotifier(environment: environment)
        let watchdog = WatchdogSettings(environment: environment)
        let inherited = try SocketActivation.inheritedListener(environment: environment)
        if let stateDirectory = configuration.stateDirectory {
            if let warning = try Self.prepareStateDirectory(stateDirectory) { logger.warning("\(warning)") }
            Self.reportFreeSpace(of: stateDirectory, logger: logger)
        }
        Self.raiseDescriptorLimit(to: configuration.maximumConnections + 256, logger: logger)

        let metrics = DaemonMetrics()
        let loop = EngineLoop(rate: configuration.rate, workObserver: { uid, nanos in metrics.recordWork(uid: uid, nanos: nanos) }) {
            work, lateness, overrun in metrics.recordTick(work: work, lateness: lateness, overrun: overrun)
        }
        loop.inputBytesQuota.store(configuration.quotas.inputBytes, ordering: .relaxed)
        loop.outputBytesQuota.store(configuration.quotas.outputBytes, ordering: .relaxed)
        loop.setEnginePercent(configuration.quotas.enginePercent)
        let searchPath = configuration.pluginSearchPath(environment: environment)
        // Speed and reduce motion as an admin last set them live win over the file's (`LiveSettings`).
        let live = configuration.stateDirectory.map { LiveSettings(stateDirectory: $0) }
        let configuration = live?.applied(to: self.configuration, logger: logger) ?? self.configuration
        let logger = self.logger
        // Themes (docs/themes.md): the system theme an admin set live, else the config's, else `motiond`.
        let themeStore = try configuration.stateDirectory.map { try ThemeStore(stateDirectory: $0) }
        let savedThemes: (system: Theme?, overlays: [UInt32: Theme]) = themeStore?.load(logger: logger) ?? (nil, [:])
        let configuredTheme = try configuration.theme.map { name in
            do { return try ThemeStore.theme(named: name) } catch {
                throw ConfigFile.Invalid(description: "theme: \(error)")
            }
        }
        _ = await loop.start {
            let host = HostServices(logger: logger)
            let engine = Engine(registry: PluginRegistryBuilder().freeze(), host: host, vocabulary: .shipped)
            // A plugin call that takes a frame interval alone makes every client miss a frame: reported.
            engine.slowCallLimit = UInt64(1e9 / configuration.rate)
            engine.threadUsage = ThreadUsage.now
            let context = EngineContext(engine: engine, settings: configuration.engineSettings, logger: logger)
            context.ticks.schedulingClass = ThreadScheduling.current()
            // One uid's many subscribers cannot take the frame from the others (SubscriptionHub).
            context.hub.uidFrameBudgetNanos = UInt64(1e9 / configuration.rate / 4)
            context.hub.frameIntervalNanos = UInt64(1e9 / configuration.rate)
            return (context, ())
        }
        // A plugin that crashed the last run stays out until its content changes (needs a state directory).
        // Without one the crash handler is installed all the same, recording nothing: it keeps a crash's
        // backtracer from inheriting the clients' sockets (docs/threat_model.md).
        let quarantine = configuration.stateDirectory.map {
            CrashQuarantine.start(stateDirectory: $0, hangSeconds: configuration.hangSeconds, logger: logger)
        }
        if quarantine == nil { CrashQuarantine.installWithoutRecord(hangSeconds: configuration.hangSeconds, logger: logger) }
        // Every plugin file is probed in a child process first; then loaded, in search-path order.
        let manager = PluginManager(
            loop: loop, searchPath: searchPath, probeExecutable: "/proc/self/exe",
            imageDirectory: try PluginManager.makeImageDirectory(stateDirectory: configuration.stateDirectory),
            logger: logger, quarantined: quarantine?.refusals ?? [:])
        _ = await manager.reload()
        let restoration = Restoration()
        let registry = await loop.perform { context in
            // The reply is sent from the engine thread, like every other.
            context.hooks.reloadPlugins = { id, reply in
                Task {
                    let result = await manager.reload(id: id).json
                    loop.submit { reply($0, result) }
                }
            }
            // Durable saves run in order on a queue of their own; the engine thread never waits on a disk.
            let saves = DispatchQueue(label: "motiond.saves")
            context.hooks.offload = { work in saves.async(execute: work) }
            context.hooks.onEngineThread = { body in loop.submit(body) }
            context.hooks.onEngineThreadFor = { uid, first, body in loop.submit(uid: uid, first: first, body) }
            context.hooks.memoryFreed = { MallocTuning.returnFreedMemorySoon() }
            context.hooks.metricsText = { context, uid in metrics.text(context, uid: uid) }
            if let live {
                context.hooks.settingsSet = { speed, reduceMotion, kept in
                    saves.async {
                        do { try live.save(speed: speed, reduceMotion: reduceMotion) } catch {
                            logger.error("the live settings could not be kept; a restart will apply the config file's",
                                         metadata: ["path": "\(live.path)", "error": "\(error)"])
                        }
                        loop.submit(kept)
                    }
                }
            }
            context.themes.restore(system: savedThemes.system ?? configuredTheme,
                                   origin: savedThemes.system != nil ? "theme.set" : configuration.theme ?? "shipped",
                                   overlays: savedThemes.overlays, configured: configuredTheme,
                                   configuredOrigin: configuration.theme ?? "shipped")
            if let themeStore {
                context.hooks.themeSet = { uid, theme, kept in
                    saves.async {
                        do { try themeStore.save(uid: uid, theme: theme) } catch {
                            logger.error("a theme could not be kept; a restart will not have it", metadata: ["error": "\(error)"])
                        }
                        loop.submit(kept)
                    }
                }
            }
            Self.restoreRouters(into: context, configuration: configuration, logger: logger)
            Self.restoreRuntimes(into: context, configuration: configuration, logger: logger, notifier: notifier,
                                 quarantined: quarantine?.entries.map(\.file) ?? [], restoration: restoration)
            return context.engine.registry
        }
        report(registry, searchPath: searchPath.map(\.path))
        logger.debug("systemd", metadata: [
            "notify": "\(notifier.isEnabled)", "watchdog": "\(watchdog.map { "\($0.interval)" } ?? "off")",
            "socketActivated": "\(inherited != nil)",
        ])

        let (listening, listeningContinuation) = AsyncStream.makeStream(of: String.self)
        let systemd = SystemdService(
            notifier: notifier, watchdog: watchdog, loop: loop, listening: listening, restoration: restoration, hangups: hangups,
            reload: Reloader(current: configuration, loop: loop, manager: manager, logger: logger, logLevel: logLevel,
                             live: live).reload,
            logger: logger)
        let server = SocketServer(configuration: configuration, loop: loop, logger: logger, inheritedListener: inherited) {
            listeningContinuation.yield($0)
        }
        let watcher = PluginDirectoryWatcher(directories: searchPath.map(\.path), manager: manager, logger: logger)
        var services: [any Service] = [EngineService(loop: loop, logger: logger), server, systemd, watcher]
        // After the replay (a long one at realtime would only trip RLIMIT_RTTIME), before clients come.
        if configuration.realtime { services.append(RealtimeWatch(loop: loop, logger: logger, restoration: restoration)) }
        if let path = configuration.metricsFile { services.append(MetricsFileWriter(path: path, loop: loop, logger: logger)) }
        let group = ServiceGroup(
            // Stopped last-first: the stop deadline hears of a stop before anything begins closing.
            services: services + [StopDeadline(logger: logger)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
        logger.info("stopped")
    }

    /// Every connection is a descriptor: lift the soft limit (1024 by default) towards the connection cap,
    /// within the hard limit, so the cap and not EMFILE is what refuses a connection.
    static func raiseDescriptorLimit(to wanted: Int, logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        let target = min(rlim_t(wanted), limit.rlim_max)
        limit.rlim_cur = target
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 || target < rlim_t(wanted) {
            logger.warning("the descriptor limit is below the connection cap", metadata: [
                "limit": "\(target)", "maxConnections": "\(wanted - 256)"])
        }
    }

    /// Free space of the state directory's filesystem, logged at start; below 16 MiB a warning (the
    /// journal and routers then soon answer `state.write_failed`, and plugin images load from memory).
    static func reportFreeSpace(of path: String, logger: Logger) {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return }
        let free = UInt64(status.f_bavail) * UInt64(status.f_frsize)
        let metadata: Logger.Metadata = ["stateDir": "\(path)", "freeBytes": "\(free)"]
        if free < 16 << 20 {
            logger.warning("the state directory's filesystem is almost full: journaled changes and router saves will be refused when it is", metadata: metadata)
        } else {
            logger.info("state directory", metadata: metadata)
        }
    }

    /// The state directory must exist and be writable before anything is acknowledged that would be
    /// stored there; a misconfigured one stops the daemon at start, not at the first write.
    static func prepareStateDirectory(_ path: String) throws -> String? {
        struct Unusable: Error, CustomStringConvertible {
            let description: String
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw Unusable(description: "--state-dir \(path): cannot create it (\(ErrorSentence.describe(error)))")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw Unusable(description: "--state-dir \(path): not writable by this user")
        }
        return try StateDirectoryLock.take(in: path)
    }

    /// Journaled runtimes come back as they would be now (docs/operations.md#animations-survive-a-restart):
    /// the journal is read here, and replayed in slices on the engine thread once the socket listens
    /// (`hello` and `status`, which says `restoring`, are answered meanwhile; other requests wait for it).
    /// `restoration` hears when it is done: systemd's READY waits for that. Under systemd the start is given
    /// more time as the replay goes, from its own pace: a uid's whole `journalBytes` after a long stop may
    /// take longer than the unit's `TimeoutStartSec`, which would kill every start of it.
    private static func restoreRuntimes(into context: EngineContext, configuration: DaemonConfiguration, logger: Logger,
                                        notifier: SystemdNotifier, quarantined: [String], restoration: Restoration) {
        guard let directory = configuration.stateDirectory else { return restoration.finish() }
        do {
            let start = WorkClock.now()
            let journal = try JournalFile(stateDirectory: directory)
            if journal.size > 0 {
                // Reading the file first: 30 s and 1 µs a byte (a 28 MB journal reads in under a second).
                _ = notifier.notify("EXTEND_TIMEOUT_USEC=\(30_000_000 + UInt64(journal.size))")
            }
            // Then, every 4,096 records, twice what the rest takes at the pace so far, and 10 s (each
            // EXTEND_TIMEOUT_USEC counts from when it is sent): what the replay really costs on this machine.
            var replayStarted: UInt64?
            let progress = { (done: Int, total: Int) in
                let now = WorkClock.now()
                guard let began = replayStarted else { return replayStarted = now }
                let perRecord = Double(now - began) / 1e3 / Double(max(done - 4096, 1))
                _ = notifier.notify("EXTEND_TIMEOUT_USEC=\(10_000_000 + UInt64(2 * perRecord * Double(total - done)))")
            }
            let finished = { (outcome: JournalReplay.Outcome) in
                // Each kind of problem once, with how many records had it (a quarantined plugin's 10,000 plans
                // logged 10,000 identical lines), and the quarantined files that explain a missing plan type.
                var counts: [String: Int] = [:]
                for problem in outcome.problems { counts[problem, default: 0] += 1 }
                for (problem, count) in counts.sorted(by: { $0.key < $1.key }) {
                    var metadata: Logger.Metadata = ["problem": "\(problem)", "records": "\(count)"]
                    if problem.contains("is not registered"), !quarantined.isEmpty {
                        metadata["quarantined"] = "\(quarantined.joined(separator: ","))"
                    }
                    logger.error("journal replay problem", metadata: metadata)
                }
                if outcome.records > 0 {
                    logger.info("runtimes replayed from the journal", metadata: [
                        "runtimes": "\(outcome.runtimes)", "records": "\(outcome.records)", "animations": "\(context.engine.activeTokenCount)",
                        "milliseconds": "\(Double(WorkClock.now() - start) / 1e6)",
                    ])
                }
                restoration.finish()
            }
            _ = context.journal.beginRestore(from: journal, progress: progress, finished: finished)
        } catch {
            logger.error("runtime journal unusable; runtimes are not journaled", metadata: ["error": "\(error)"])
            restoration.finish()
        }
    }

    /// Routers acknowledged before the last stop (or crash) come back before the socket listens.
    private static func restoreRouters(into context: EngineContext, configuration: DaemonConfiguration, logger: Logger) {
        guard let directory = configuration.stateDirectory else { return }
        do {
            let (restored, problems) = context.routers.restore(from: try RouterStore(stateDirectory: directory))
            for problem in problems { logger.error("router restored with a problem, or not restored", metadata: ["problem": "\(problem)"]) }
            if !restored.isEmpty { logger.info("routers restored", metadata: ["schemes": "\(restored.joined(separator: ","))"]) }
        } catch {
            logger.error("router state directory unusable; routers stay in memory", metadata: ["error": "\(error)"])
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
        if registry.plugins.isEmpty {
            logger.warning("no plugins loaded", metadata: ["searched": "\(searchPath.joined(separator: ":"))"])
        }
    }
}

/// Keeps the engine thread alive for the life of the group; stops it last.
struct EngineService: Service {
    let loop: EngineLoop
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        // Each step of a stop is logged: a stop that outlasts `StopDeadline` (seen only under heavy load)
        // shows where it waited.
        logger.info("stopping the engine thread")
        await loop.stop()
        logger.info("engine thread stopped")
    }
}

/// docs/operations.md: a stop (SIGTERM, SIGINT) ends the process within `seconds` whatever it is doing:
/// closing thousands of connections, a teardown, a plugin that does not return. Everything acknowledged
/// is already durable; what is not finished by then is not waited for (1,024 connections × 64
/// subscriptions being torn down ignored SIGTERM for more than 20 s). The clock runs on a thread of its
/// own, so nothing the daemon's other threads wait on can hold it. The service group stops its services
/// one after another, last first (a server waiting for a stuck engine thread held the others' turn), so
/// this one is listed last.
struct StopDeadline: Service {
    static let seconds: UInt32 = 10
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        Thread.detachNewThread { [logger] in
            sleep(Self.seconds)
            logger.error("stopping took longer than \(Self.seconds) s; exiting without waiting further")
            _exit(EXIT_FAILURE)
        }
    }
}

/// SIGHUP: re-read the config file (keeping the old settings if it is broken), apply what can change
/// while running, and load plugin files that appeared or changed since (hot swap).
final class Reloader: Sendable {
    private let current: Mutex<DaemonConfiguration>
    private let loop: EngineLoop
    private let manager: PluginManager
    private let logger: Logger
    private let logLevel: LogLevelSetting
    private let live: LiveSettings?

    init(current: DaemonConfiguration, loop: EngineLoop, manager: PluginManager, logger: Logger, logLevel: LogLevelSetting,
         live: LiveSettings?) {
        self.live = live
        self.current = Mutex(current)
        self.loop = loop
        self.manager = manager
        self.logger = logger
        self.logLevel = logLevel
    }

    @Sendable func reload() async {
        var next = current.withLock { $0 }
        if let path = next.configFile {
            do {
                let (reloaded, needRestart) = next.reloaded(from: try ConfigFile.load(path: path))
                next = reloaded
                if !needRestart.isEmpty {
                    logger.warning("changed settings take effect after a restart", metadata: ["settings": "\(needRestart.joined(separator: ","))"])
                }
            } catch {
                logger.error("config reload failed; keeping the running configuration", metadata: ["error": "\(error)"])
            }
        }
        if let live { next = live.applied(to: next, logger: logger) }
        logLevel.set(next.logLevel)
        let searchPath = next.pluginSearchPath(environment: ProcessInfo.processInfo.environment)
        let settled = next
        await loop.perform { $0.settings = settled.engineSettings }
        loop.inputBytesQuota.store(settled.quotas.inputBytes, ordering: .relaxed)
        loop.outputBytesQuota.store(settled.quotas.outputBytes, ordering: .relaxed)
        loop.setEnginePercent(settled.quotas.enginePercent)
        await manager.setSearchPath(searchPath)
        let report = await manager.reload()
        current.withLock { $0 = settled }
        logger.info("reloaded", metadata: [
            "pluginsAdded": "\(report.loadedIDs.joined(separator: ","))", "pluginFilesChanged": "\(report.outcomes.count)",
        ])
    }
}
