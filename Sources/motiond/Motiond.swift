import ArgumentParser
import Foundation
import Logging
import MotionEngine
import MotionHost
import MotionWire

@main
struct Motiond: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motiond",
        abstract: "The motion daemon: performs plans sent over a Unix socket with dlopen'd plugins.",
        discussion: """
            Runs in the foreground. Loads the plugins shipped with it (the lib*Plugin.so files next to the \
            executable) after the --plugins directories, unless --no-shipped-plugins. MOTIOND_PLUGIN_PATH \
            adds directories (colon-separated).
            """,
        version: "motiond \(WireProtocol.softwareVersion) (protocol \(WireProtocol.version))")

    @Option(help: "Unix socket path (default: $RUNTIME_DIRECTORY, $XDG_RUNTIME_DIR or /run/motiond, + /motiond.sock).")
    var socket: String?

    @Option(help: "A plugin directory, searched before the shipped plugins; repeat for several. Earlier directories win duplicate plan types (the later claim is listed as a conflict).")
    var plugins: [String] = []

    @Flag(help: "Leave out the shipped plugins (next to the executable in a build tree, <prefix>/lib/motiond/plugins when installed): only --plugins directories are loaded.")
    var noShippedPlugins = false

    @Option(help: "Frame rate in Hz.")
    var rate: Double?

    @Option(help: "Global animation speed, 0.01 to 100 (0.5: everything at half speed; default 1); 0 makes every new animation jump to its end.")
    var speed: Double?

    @Flag(help: "Reduce motion: every animation not marked \"essential\": true completes at once.")
    var reduceMotion = false

    @Option(help: "Directory for durable state (router configuration and state); default $STATE_DIRECTORY.")
    var stateDir: String?

    @Option(name: .customLong("metrics-file"), help: "Write the Prometheus metrics to this file (atomically, at most every 10 s, only when something changed) for node_exporter's textfile collector.")
    var metricsFile: String?

    @Option(help: "JSON config file; command-line options override it.")
    var config: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    /// The child side of plugin probing: motiond runs itself with `--probe FILE` before loading a file.
    @Option(help: .hidden)
    var probe: String?

    /// With `--probe`: states of the running build's performers to import (a hot swap's probe).
    @Option(help: .hidden)
    var probeStates: String?

    @Option(parsing: .upToNextOption,
            help: "Check plugin files (each in a child process) against the plugin conformance suite, print a report, and exit: 0 when every file passes.")
    var validate: [String] = []

    /// The child side of `--validate`: runs the conformance suite against one file.
    @Option(help: .hidden)
    var validateChild: String?

    func run() async throws {
        // A bare file name is one in the current directory, as `--validate` takes it (dlopen would search the
        // library path for it instead).
        if let probe { throw ExitCode(PluginProbe.runChild(file: probe.contains("/") ? probe : "./" + probe, states: probeStates)) }
        if let validateChild { throw ExitCode(ConformanceSuite.runChild(file: validateChild)) }
        if !validate.isEmpty {
            let passed = await PluginValidator.validate(files: validate, executable: "/proc/self/exe") { Swift.print($0) }
            throw ExitCode(passed ? 0 : 1)
        }
        // Before the daemon starts its threads: started by hand under `umask 000`, every directory and file it made was
        // writable by all (another uid replaced the socket and the journal). Nothing it makes is now.
        umask(umask(0) | 0o022)
        let environment = ProcessInfo.processInfo.environment
        let file = try config.map(ConfigFile.load(path:)) ?? ConfigFile()
        let levelName = logLevel ?? file.logLevel ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("--log-level: unknown level \"\(levelName)\"")
        }
        let frameRate = rate ?? file.rate ?? 120
        guard frameRate >= 1, frameRate <= 1000 else { throw ValidationError("--rate: expected 1 to 1000 Hz") }
        let directories = plugins.isEmpty ? (file.plugins ?? []) : plugins
        var configuration = DaemonConfiguration(
            socketPath: socket ?? file.socket ?? DaemonConfiguration.defaultSocketPath(environment: environment),
            pluginDirectories: directories, loadsShippedPlugins: !noShippedPlugins && (file.shippedPlugins ?? true), rate: frameRate,
            stateDirectory: stateDir ?? file.stateDirectory ?? environment["STATE_DIRECTORY"], logLevel: level)
        configuration.configFile = config
        configuration.pluginDirectoriesFromCommandLine = !plugins.isEmpty
        configuration.shippedPluginsFromCommandLine = noShippedPlugins
        if let length = file.maximumLineLength { configuration.maximumLineLength = length }
        if let count = file.maximumSubscriptions { configuration.maximumSubscriptionsPerConnection = count }
        configuration.adminGroup = file.adminGroup
        if let count = file.maximumConnections { configuration.maximumConnections = count }
        if let count = file.maximumConnectionsPerUser { configuration.maximumConnectionsPerUser = count }
        if let seconds = file.hangSeconds { configuration.hangSeconds = seconds }
        if let realtime = file.realtime { configuration.realtime = realtime }
        configuration.theme = file.theme
        configuration.metricsFile = metricsFile
        if let quotas = file.quotas { configuration.quotas = quotas }
        let globalSpeed = speed ?? file.speed ?? 1
        guard EngineSettings.isValid(speed: globalSpeed) else { throw ValidationError("--speed: expected 0 or 0.01 to 100") }
        configuration.speed = globalSpeed
        configuration.reduceMotion = reduceMotion || (file.reduceMotion ?? false)

        let setting = LogLevelSetting(level)
        LoggingSystem.bootstrap { label in
            // Under systemd, the journal's native protocol (fields to filter on); else stderr lines.
            if let journal = JournalLogHandler(label: label, level: setting, environment: environment) { return journal }
            return StderrLogHandler(label: label, level: setting, environment: environment)
        }
        let logger = Logger(label: "motiond")
        do {
            try await MotionDaemon(configuration: configuration, logger: logger, logLevel: setting).run()
            // Stopped: everything acknowledged is durable, every connection closed, the engine thread
            // gone. The process ends here, without exit()'s handlers and destructors: under heavy load a
            // daemon that had logged "stopped" sat in exit() for over 10 s (the test suite's stress runs).
            fflush(nil)
            _exit(EXIT_SUCCESS)
        } catch let error as NSError where error.domain == NSCocoaErrorDomain || error.domain == NSPOSIXErrorDomain {
            // A sentence, not a Foundation domain dump (the socket's or state directory's folder, say).
            let hint = configuration.socketPath.hasPrefix("/run/motiond") && getuid() != 0
                ? " (as a user, run it with XDG_RUNTIME_DIR set, or --socket PATH in a folder you own)" : ""
            FileHandle.standardError.write(Data("motiond: \(ErrorSentence.describe(error))\(hint)\n".utf8))
            throw ExitCode(1)
        }
    }
}
