import Foundation
import Logging
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// Watches the plugin directories with inotify and reloads the files that changed (SPEC §6).
///
/// Only completed writes (`IN_CLOSE_WRITE`) and renames into the directory (`IN_MOVED_TO`, what an
/// installer's write-temp-then-rename produces) count; a file still being written is never acted on, and
/// the manager re-hashes before doing anything. Events are gathered for a short quiet period so that a
/// burst (several plugins installed at once) becomes one reload.
struct PluginDirectoryWatcher: Service {
    let directories: [String]
    let manager: PluginManager
    let logger: Logger
    var pollInterval: Duration = .milliseconds(100)
    var quietPeriod: Duration = .milliseconds(250)

    func run() async throws {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            logger.warning("plugin directories are not watched: inotify_init1 failed", metadata: ["errno": "\(errno)"])
            return
        }
        defer { close(descriptor) }
        var watched: [Int32: String] = [:]
        for directory in Set(directories) {
            let watch = inotify_add_watch(descriptor, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO))
            if watch >= 0 { watched[watch] = directory }
        }
        guard !watched.isEmpty else { return }
        let directoriesByWatch = watched
        logger.debug("watching plugin directories", metadata: ["directories": "\(watched.values.sorted().joined(separator: ":"))"])
        try? await cancelWhenGracefulShutdown {
            var pending: Set<String> = []
            while !Task.isCancelled {
                try await Task.sleep(for: pending.isEmpty ? pollInterval : quietPeriod)
                let changed = Self.drain(descriptor, directoriesByWatch)
                if !changed.isEmpty {
                    pending.formUnion(changed)
                    continue  // wait until the directory is quiet
                }
                guard !pending.isEmpty else { continue }
                let files = pending
                pending = []
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
