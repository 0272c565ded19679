import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Everything systemd hears from motiond (docs/operations.md): READY once the socket listens, STATUS kept current,
/// RELOADING/READY around a SIGHUP reload, STOPPING when the stop begins, and WATCHDOG pings only while
/// the engine thread keeps answering.
struct SystemdService: Service {
    let notifier: SystemdNotifier
    let watchdog: WatchdogSettings?
    let loop: EngineLoop
    let listening: AsyncStream<String>
    /// READY waits for the journal's replay too (`Restoration`).
    let restoration: Restoration
    let hangups: UnixSignalsSequence
    let reload: @Sendable () async -> Void
    let logger: Logger

    /// The engine thread answers a numbered probe; a ping is only sent if the previous probe was answered.
    private final class Heartbeat: Sendable {
        let asked = Atomic<UInt64>(0)
        let answered = Atomic<UInt64>(0)
        let status = Mutex("starting")
    }

    func run() async throws {
        let heartbeat = Heartbeat()
        await cancelWhenGracefulShutdown {
            var readiness = listening.makeAsyncIterator()
            guard await readiness.next() != nil else { return }
            await restoration.wait()
            guard !Task.isCancelled else { return }  // stopped during the journal's replay
            let status = await loop.perform { $0.statusLine }
            notifier.notify("READY=1\nSTATUS=\(status)")
            logger.info("ready", metadata: ["status": "\(status)"])
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await answerHangups() }
                group.addTask { await keepAlive(heartbeat) }
                await group.waitForAll()
            }
        }
        notifier.notify("STOPPING=1\nSTATUS=stopping")
    }

    private func answerHangups() async {
        for await _ in hangups {
            notifier.reloading()
            logger.info("SIGHUP: reloading configuration and rescanning plugins")
            await reload()
            let status = await loop.perform { $0.statusLine }
            notifier.notify("READY=1\nSTATUS=\(status)")
        }
    }

    /// Pings the watchdog (each ping proves the engine thread answered) and refreshes STATUS=. Without
    /// systemd nothing runs; without a watchdog STATUS= is refreshed every 5 s: an idle daemon's engine
    /// thread is not woken every second for a status line nobody asked for (BENCHMARKS.md, idle).
    private func keepAlive(_ heartbeat: Heartbeat) async {
        guard notifier.isEnabled else { return }
        let period = watchdog.map { min($0.interval / 2, .seconds(1)) } ?? .seconds(5)
        var lastStatus = ""
        while !Task.isCancelled {
            let asked = heartbeat.asked.load(ordering: .acquiring)
            if heartbeat.answered.load(ordering: .acquiring) == asked {
                if watchdog != nil { notifier.notify("WATCHDOG=1") }
                let status = heartbeat.status.withLock { $0 }
                if status != lastStatus, asked > 0 {
                    notifier.notify("STATUS=\(status)")
                    lastStatus = status
                }
                let next = asked + 1
                heartbeat.asked.store(next, ordering: .releasing)
                loop.submit { context in
                    let line = context.statusLine
                    heartbeat.status.withLock { $0 = line }
                    heartbeat.answered.store(next, ordering: .releasing)
                }
            } else {
                logger.warning("engine thread did not answer within \(period); withholding the watchdog ping")
            }
            try? await Task.sleep(for: period)
        }
    }
}
