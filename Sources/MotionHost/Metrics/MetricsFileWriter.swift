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

    /// Written beside the file (never through a link there), then renamed over it, with the mode the file
    /// had if it is the daemon's own: it holds every uid's series, which the daemon shows only to an admin,
    /// so it is 0600 until an operator makes it readable by the collector's group once (docs/operations.md#metrics:
    /// `install -m 0640`, in a setgid directory of that group), and then keeps that, whatever the umask.
    func write(_ text: String) throws {
        let temporary = path + ".tmp"
        var existing = stat()
        let kept = lstat(path, &existing) == 0 && existing.st_mode & S_IFMT == S_IFREG && existing.st_uid == geteuid() ? existing : nil
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure(errno) }
        var bytes = Array(text.utf8)[...]
        var failed: Int32 = 0
        while !bytes.isEmpty, failed == 0 {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes = bytes.dropFirst(count) } else if count == 0 { failed = EIO } else if errno != EINTR { failed = errno }
        }
        if failed == 0, let kept, fchmod(descriptor, kept.st_mode & 0o777) != 0 { failed = errno }
        close(descriptor)
        guard failed == 0, rename(temporary, path) == 0 else {
            let error = failed != 0 ? failed : errno
            unlink(temporary)
            throw Self.failure(error)
        }
    }

    static func failure(_ code: Int32) -> any Error {
        NSError(domain: NSPOSIXErrorDomain, code: Int(code))
    }
}

extension Task where Success == Never, Failure == Never {
    static var isCancelledOrShuttingDown: Bool { isCancelled || isShuttingDownGracefully }
}
