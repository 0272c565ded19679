import Foundation
import Logging
import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Watches the plugin directories with inotify and reloads the files that changed (docs/plugins.md).
///
/// Only completed writes (`IN_CLOSE_WRITE`) and renames into the directory (`IN_MOVED_TO`, what an
/// installer's write-temp-then-rename produces) count; a file still being written is never acted on, and
/// the manager re-hashes before doing anything. Events are gathered for a short quiet period so that a
/// burst (several plugins installed at once) becomes one reload.
///
/// The descriptor is waited on (a Dispatch read source, epoll underneath), not polled: an idle daemon is
/// not woken by its plugin directories.
struct PluginDirectoryWatcher: Service {
    let directories: [String]
    let manager: PluginManager
    let logger: Logger
    var quietPeriod: Duration = .milliseconds(250)

    /// Files named by events so far, and how many times events arrived (the quiet period's clock).
    private final class Changes: Sendable {
        let state = Mutex<(files: Set<String>, arrivals: Int)>(([], 0))
    }

    func run() async throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            logger.warning("plugin directories are not watched: inotify_init1 failed", metadata: ["errno": "\(errno)"])
            try? await gracefulShutdown()
            return
        }
        var watched: [Int32: String] = [:]
        for directory in Set(directories) {
            let watch = inotify_add_watch(descriptor, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO))
            if watch >= 0 { watched[watch] = directory }
        }
        // Nothing to watch: this service has nothing to do, but must not end (a service that ends stops the
        // daemon: `motiond --no-shipped-plugins` with no plugin directory exited at once).
        guard !watched.isEmpty else {
            close(descriptor)
            try? await gracefulShutdown()
            return
        }
        let directoriesByWatch = watched
        logger.debug("watching plugin directories", metadata: ["directories": "\(watched.values.sorted().joined(separator: ":"))"])

        let changes = Changes()
        let (arrivals, arrived) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "motiond.plugin-directories"))
        // Drained where it is signalled: the source fires again for as long as events are unread.
        source.setEventHandler {
            let files = Self.drain(descriptor, directoriesByWatch)
            changes.state.withLock { state in
                state.files.formUnion(files)
                state.arrivals += 1
            }
            arrived.yield()
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        defer {
            source.cancel()
            arrived.finish()
        }
        try? await cancelWhenGracefulShutdown {
            for await _ in arrivals {
                // Wait until the directories are quiet: several plugins installed at once are one reload.
                var seen = changes.state.withLock { $0.arrivals }
                while true {
                    try await Task.sleep(for: quietPeriod)
                    let now = changes.state.withLock { $0.arrivals }
                    if now == seen { break }
                    seen = now
                }
                let files = changes.state.withLock { state in
                    defer { state.files = [] }
                    return state.files
                }
                guard !files.isEmpty else { continue }
                let report = await manager.reload(files: files)
                if !report.outcomes.isEmpty {
                    logger.info("plugin files changed", metadata: ["files": "\(files.sorted().joined(separator: ","))"])
                }
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
