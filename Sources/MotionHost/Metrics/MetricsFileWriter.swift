import Foundation
import Logging
import MotionEngine
import ServiceLifecycle

/// `--metrics-file PATH` (docs/operations.md#metrics): the `metrics` text for node_exporter's textfile
/// collector, replaced atomically (written beside it, then renamed over it), at most every 10 s and
/// only when the engine ran something since the last look (`EngineLoop.activity`): an idle daemon
/// neither wakes its engine nor rewrites the file.
struct MetricsFileWriter: Service {
    let path: String
    let loop: EngineLoop
    let logger: Logger
    /// 10 s; tests shorten it (`MOTIOND_METRICS_FILE_INTERVAL_MS`).
    static let interval = Duration.milliseconds(
        ProcessInfo.processInfo.environment["MOTIOND_METRICS_FILE_INTERVAL_MS"].flatMap(Int.init) ?? 10_000)

    func run() async throws {
        var seen: UInt64? = nil, written = ""
        while !Task.isCancelledOrShuttingDown {
            let activity = loop.activity.load(ordering: .relaxed)
            if activity != seen {
                seen = activity
                // The activity as of this render, read on the engine thread with it: its own command then
                // counts one more (not a reason to look again); anything after it, a tick ending the last
                // animation say, is.
                let loop = self.loop
                let (text, asOf) = await loop.perform { context in
                    (context.hooks.metricsText?(context, nil) ?? "", loop.activity.load(ordering: .relaxed))
                }
                seen = asOf &+ 1
                if text != written {
                    do {
                        try write(text)
                        written = text
                    } catch {
                        logger.warning("the metrics file could not be written", metadata: ["path": "\(path)", "error": "\(ErrorSentence.describe(error))"])
                    }
                }
            }
            // A stop does not wait for the interval to pass.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
        }
    }

    /// Readable by all (0644) whatever the daemon's umask (the unit's is 0077): the collector runs as a
    /// user of its own. It holds every uid's series, as `motionctl metrics` does for an admin.
    func write(_ text: String) throws {
        let temporary = path + ".tmp"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard chmod(temporary, 0o644) == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}

extension Task where Success == Never, Failure == Never {
    static var isCancelledOrShuttingDown: Bool { isCancelled || isShuttingDownGracefully }
}
