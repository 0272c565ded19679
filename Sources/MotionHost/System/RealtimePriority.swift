import CHostSupport
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle

/// The engine thread and the threads that write frames (the socket event loops) at realtime priority
/// where the system allows it (docs/operations.md#realtime-priority): SCHED_FIFO at `priority` and
/// `writerPriority` (children start at SCHED_OTHER), with RLIMIT_RTTIME as the safety net — a thread that
/// runs `softMicroseconds` at realtime without blocking is put back to SCHED_OTHER by the SIGXCPU handler
/// (a runaway plugin cannot lock a core), and asked again `retrySeconds` later.
enum RealtimePriority {
    /// Above every SCHED_OTHER thread, below audio servers' (PipeWire asks rtkit for 88) and the
    /// compositors' KMS threads.
    static let priority: Int32 = 20
    /// The socket threads: below the engine thread, which hands them each frame.
    static let writerPriority: Int32 = 19
    static let softMicroseconds: UInt = 500_000
    static let hardMicroseconds: UInt = 1_000_000
    static let retrySeconds = 10

    /// On the calling thread: nil when granted, else why not, as a sentence.
    static func request(priority: Int32 = priority) -> String? {
        let error = motion_realtime_request(priority, softMicroseconds, hardMicroseconds)
        guard error != 0 else { return nil }
        if error == ENOSPC { return "more than 64 threads asked for realtime priority (the socket threads are one per core)" }
        if error == EPERM {
            let limit = motion_rlimit_rtprio()
            return "not permitted: RLIMIT_RTPRIO is \(limit) and the process has no CAP_SYS_NICE "
                + "(under systemd: LimitRTPRIO=\(priority), without RestrictRealtime=yes)"
        }
        return String(cString: strerror(error))
    }

    /// Asks for it on the engine thread, records the class `status` shows, and logs what came of it.
    static func requestForEngine(_ loop: EngineLoop, logger: Logger) async -> Bool {
        let (refused, scheduling) = await loop.perform { context -> (String?, String) in
            let refused = request()
            context.ticks.schedulingClass = ThreadScheduling.current() + (refused == nil ? "" : " (realtime refused)")
            return (refused, context.ticks.schedulingClass)
        }
        if let refused {
            logger.warning("realtime priority not granted; the engine thread stays at SCHED_OTHER", metadata: ["reason": "\(refused)"])
        } else {
            logger.info("engine thread at realtime priority", metadata: ["scheduling": "\(scheduling)"])
        }
        return refused == nil
    }

    /// Asks for it on every socket thread (they write every client's frames; each client's reading of
    /// requests there is bounded by its quotas and engine share), and logs what came of it.
    static func requestForWriters(logger: Logger) async {
        var refusals: [String] = []
        for eventLoop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            if let refused = try? await eventLoop.submit({ request(priority: writerPriority) }).get() { refusals.append(refused) }
        }
        if let refused = refusals.first {
            logger.warning("realtime priority not granted; the frame writers stay at SCHED_OTHER", metadata: ["reason": "\(refused)"])
        } else {
            logger.info("frame writers at realtime priority", metadata: ["scheduling": "SCHED_FIFO priority \(writerPriority)"])
        }
    }
}

/// Watches for the SIGXCPU handler's demotion of the realtime threads: says so, shows it in `status`, and
/// asks for realtime again `RealtimePriority.retrySeconds` later. Runs only while realtime was granted.
struct RealtimeWatch: Service {
    let loop: EngineLoop
    let logger: Logger
    /// Realtime only after the journal's replay: its slices run back to back without blocking.
    let restoration: Restoration

    func run() async throws {
        await cancelWhenGracefulShutdown { await restoration.wait() }
        guard !Task.isShuttingDownGracefully, !Task.isCancelled else { return }
        // A service that returns stops the daemon's service group: refused, it waits for the stop.
        guard await RealtimePriority.requestForEngine(loop, logger: logger) else {
            try? await gracefulShutdown()
            return
        }
        await RealtimePriority.requestForWriters(logger: logger)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                // Asleep until the handler says so (no polling: an idle daemon wakes for nothing).
                guard await Self.demotion() else { break }
                guard motion_realtime_demoted() != 0 else { continue }
                // Which thread ran too long is not known (docs/operations.md#realtime-priority): all go back.
                logger.warning("a realtime thread ran \(RealtimePriority.softMicroseconds / 1000) ms without blocking; the engine thread and the frame writers back at SCHED_OTHER for \(RealtimePriority.retrySeconds) s")
                await loop.perform { $0.ticks.schedulingClass = ThreadScheduling.current() + " (realtime dropped: RLIMIT_RTTIME)" }
                try? await Task.sleep(for: .seconds(RealtimePriority.retrySeconds))
                if Task.isCancelled { break }
                // The writers only above a realtime engine thread, never above one left at SCHED_OTHER.
                if await RealtimePriority.requestForEngine(loop, logger: logger) {
                    await RealtimePriority.requestForWriters(logger: logger)
                }
            }
        }
    }

    /// True when the SIGXCPU handler demoted the engine thread; false when the watch is cancelled. The
    /// blocking read runs on a thread of its own, not on Swift's cooperative pool.
    static func demotion() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: motion_realtime_wait() == 1) }
            }
        } onCancel: {
            motion_realtime_wake()
        }
    }
}
