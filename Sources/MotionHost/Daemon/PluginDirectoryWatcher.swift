import Foundation
import Logging
import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches the plugin directories with inotify and reloads the files that changed (SPEC §6).
///
/// Only completed writes (`IN_CLOSE_WRITE`) and renames into the directory (`IN_MOVED_TO`, what an
/// installer's write-temp-then-rename produces) count; a file still being written is never acted on, and
/// the manager re-hashes before doing anything. Events are gathered for a short quiet period so that a
/// burst (several plugins installed at once) becomes one reload. A thread of its own blocks in `poll` on
/// the inotify descriptor: an idle daemon is never woken to look (SPEC §8, idle).
struct PluginDirectoryWatcher: Service {
    let directories: [String]
    let manager: PluginManager
    let logger: Logger
    var quietPeriod: Duration = .milliseconds(250)

    func run() async throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            logger.warning("plugin directories are not watched: inotify_init1 failed", metadata: ["errno": "\(errno)"])
            return
        }
        var watched: [Int32: String] = [:]
        for directory in Set(directories) {
            let watch = inotify_add_watch(descriptor, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO))
            if watch >= 0 { watched[watch] = directory }
        }
        guard !watched.isEmpty else {
            close(descriptor)
            return
        }
        // A pipe whose write end closing stops the watching thread.
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(descriptor)
            logger.warning("plugin directories are not watched: pipe failed", metadata: ["errno": "\(errno)"])
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let stop = ends[0], stopper = StopSignal(ends[1])
        let directoriesByWatch = watched
        logger.debug("watching plugin directories", metadata: ["directories": "\(watched.values.sorted().joined(separator: ":"))"])
        let quiet = Int32(quietPeriod.components.seconds * 1000 + quietPeriod.components.attoseconds / 1_000_000_000_000_000)
        let (bursts, continuation) = AsyncStream.makeStream(of: Set<String>.self)
        let thread = Thread {
            Self.watch(descriptor, stop: stop, quietMilliseconds: quiet, directoriesByWatch, continuation)
            close(descriptor)
            close(stop)
        }
        thread.name = "motiond-plugin-watch"
        thread.start()
        await withTaskCancellationHandler {
            await cancelWhenGracefulShutdown {
                for await files in bursts {
                    let report = await manager.reload(files: files)
                    if !report.outcomes.isEmpty {
                        logger.info("plugin files changed", metadata: ["files": "\(files.sorted().joined(separator: ","))"])
                    }
                }
            }
        } onCancel: {
            stopper.signal()
        }
        stopper.signal()
    }

    /// On the watching thread: blocks until a plugin file changes, gathers changes until the directories
    /// have been quiet for `quietMilliseconds`, hands the set over; ends when `stop` is written.
    private static func watch(_ descriptor: Int32, stop: Int32, quietMilliseconds: Int32, _ watched: [Int32: String],
                              _ continuation: AsyncStream<Set<String>>.Continuation) {
        var pending: Set<String> = []
        while true {
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, pending.isEmpty ? -1 : quietMilliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready < 0 || descriptors[1].revents != 0 { break }
            if ready == 0 {
                continuation.yield(pending)
                pending = []
                continue
            }
            pending.formUnion(drain(descriptor, watched))
        }
        continuation.finish()
    }

    /// Closes the pipe's write end once (the thread's poll sees the hang-up), from whichever comes first.
    private final class StopSignal: Sendable {
        private let end: Mutex<Int32>
        init(_ end: Int32) { self.end = Mutex(end) }
        func signal() {
            end.withLock { end in
                if end >= 0 { close(end) }
                end = -1
            }
        }
    }

    /// Paths of `.so` files named by the events waiting on the descriptor.
    private static func drain(_ descriptor: Int32, _ watched: [Int32: String]) -> Set<String> {
        var files: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return files }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (watch, nameLength) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<min(nameStart + nameLength, count)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if name.hasSuffix(".so"), let directory = watched[watch] { files.insert(directory + "/" + name) }
                offset = nameStart + nameLength
            }
        }
    }
}
