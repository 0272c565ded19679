import Foundation
import Logging
import MotionEngine
import MotionWire

/// Everything `motiond` is told at start: from the command line, the config file and the environment.
package struct DaemonConfiguration: Sendable {
    package var socketPath: String
    /// Plugin directories in precedence order (an earlier directory wins a duplicate plan type).
    package var pluginDirectories: [String]
    /// Also load the `lib*Plugin.so` files next to the executable (the default when no directory is given).
    package var loadsShippedPlugins: Bool
    package var rate: Double
    package var stateDirectory: String?
    package var maximumLineLength: Int
    package var maximumSubscriptionsPerConnection: Int
    /// Connections served at once, in total and per peer uid.
    package var maximumConnections = 2048
    package var maximumConnectionsPerUser = 1024
    /// docs/operations.md#a-plugin-that-hangs: one plugin call lasting this long ends the process and
    /// quarantines the plugin (0: no hang watch).
    package var hangSeconds = 5
    /// The engine thread asks for realtime priority (docs/operations.md#realtime-priority).
    package var realtime = true
    /// The system motion theme: a shipped theme's name or a theme file (config `theme`; docs/themes.md).
    package var theme: String?
    /// `--metrics-file`: the Prometheus text, kept up to date for node_exporter (docs/operations.md#metrics).
    package var metricsFile: String?
    /// Per-uid quotas (docs/protocol.md#ownership-and-quotas); SIGHUP applies a changed `quotas` at once.
    package var quotas = Quotas()
    /// Global animation speed (`--speed`, config `speed`; docs/vocabulary.md).
    package var speed = 1.0
    /// Reduce motion (`--reduce-motion`, config `reduceMotion`; docs/vocabulary.md).
    package var reduceMotion = false
    package var logLevel: Logger.Level
    /// Members of this group (and root) get the admin role.
    package var adminGroup: String?
    /// The `--config` file, re-read on SIGHUP.
    package var configFile: String?
    /// Plugin directories came from the command line, so a config reload does not change them.
    package var pluginDirectoriesFromCommandLine = false
    /// `--no-shipped-plugins` was given: a config file's `shippedPlugins` does not bring them back.
    package var shippedPluginsFromCommandLine = false

    package init(socketPath: String, pluginDirectories: [String] = [], loadsShippedPlugins: Bool = true,
                rate: Double = 120, stateDirectory: String? = nil, maximumLineLength: Int = 1 << 20,
                maximumSubscriptionsPerConnection: Int = 64, logLevel: Logger.Level = .info) {
        self.socketPath = socketPath
        self.pluginDirectories = pluginDirectories
        self.loadsShippedPlugins = loadsShippedPlugins
        self.rate = rate
        self.stateDirectory = stateDirectory
        self.maximumLineLength = maximumLineLength
        self.maximumSubscriptionsPerConnection = maximumSubscriptionsPerConnection
        self.logLevel = logLevel
    }

    /// What a re-read config file may change while the daemon runs (log level, plugin directories,
    /// subscription limit), and the names of the settings that changed but need a restart.
    package func reloaded(from file: ConfigFile) -> (configuration: DaemonConfiguration, needRestart: [String]) {
        var next = self
        var needRestart: [String] = []
        if let name = file.logLevel, let level = Logger.Level(rawValue: name) { next.logLevel = level }
        if !pluginDirectoriesFromCommandLine { next.pluginDirectories = file.plugins ?? [] }
        if !shippedPluginsFromCommandLine { next.loadsShippedPlugins = file.shippedPlugins ?? true }
        if let limit = file.maximumSubscriptions { next.maximumSubscriptionsPerConnection = limit }
        next.quotas = file.quotas ?? Quotas()
        if let speed = file.speed { next.speed = speed }
        if let reduceMotion = file.reduceMotion { next.reduceMotion = reduceMotion }
        if file.theme != theme { needRestart.append("theme") }
        if let rate = file.rate, rate != self.rate { needRestart.append("rate") }
        if let socket = file.socket, socket != socketPath { needRestart.append("socket") }
        if let length = file.maximumLineLength, length != maximumLineLength { needRestart.append("maxLineLength") }
        if let directory = file.stateDirectory, directory != stateDirectory { needRestart.append("stateDir") }
        if file.adminGroup != adminGroup { needRestart.append("adminGroup") }
        if let seconds = file.hangSeconds, seconds != hangSeconds { needRestart.append("hangSeconds") }
        if (file.realtime ?? true) != realtime { needRestart.append("realtime") }
        return (next, needRestart)
    }

    /// The part of the configuration the engine thread reads.
    package var engineSettings: EngineSettings {
        var settings = EngineSettings(rate: rate, maximumLineLength: maximumLineLength,
                                      maximumSubscriptionsPerConnection: maximumSubscriptionsPerConnection)
        settings.quotas = quotas
        settings.speed = speed
        settings.reduceMotion = reduceMotion
        settings.maximumSharedRegions = MapCount.sharedRegionBound
        return settings
    }

    /// docs/protocol.md default socket path; see `WireProtocol.defaultSocketPath(environment:)`.
    package static func defaultSocketPath(environment: [String: String]) -> String {
        WireProtocol.defaultSocketPath(environment: environment)
    }

    /// The directories to scan, as (path, shipped-only) pairs: explicit ones, then `MOTIOND_PLUGIN_PATH`,
    /// then, when shipped plugins are wanted, the executable's own directory (a package build) and
    /// `<executable>/../lib/motiond/plugins` (where `scripts/install` puts them: an installed motiond run
    /// by hand without `--config` finds them).
    package func pluginSearchPath(environment: [String: String]) -> [(path: String, shippedOnly: Bool)] {
        var directories = pluginDirectories.map { (path: $0, shippedOnly: false) }
        for entry in (environment["MOTIOND_PLUGIN_PATH"] ?? "").split(separator: ":") where !entry.isEmpty {
            directories.append((path: String(entry), shippedOnly: false))
        }
        if loadsShippedPlugins {
            directories.append((path: PluginLoader.executableDirectory, shippedOnly: true))
            let installed = (PluginLoader.executableDirectory as NSString).deletingLastPathComponent + "/lib/motiond/plugins"
            if FileManager.default.fileExists(atPath: installed), !pluginDirectories.contains(installed) {
                directories.append((path: installed, shippedOnly: true))
            }
        }
        return directories
    }
}
