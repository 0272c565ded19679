import CHostSupport
import MotionEngine
import Crypto
import Foundation
import Logging
import MotionWire

/// Finds plugin files, decides which are new or changed, probes them in a child process, and has the
/// engine thread install them (a new plugin, or the next generation of a loaded one).
///
/// One reload runs at a time (an actor). Everything slow — hashing, the probe, copying — happens here,
/// off the engine thread; the engine thread only dlopens the private copy and swaps at a tick boundary.
package actor PluginManager {
    package typealias SearchPath = [(path: String, shippedOnly: Bool)]

    /// What a reload did, file by file.
    package struct Report: Sendable {
        package var outcomes: [(file: String, outcome: InstallOutcome)] = []
        package var unchanged = 0

        package var json: JSONValue {
            var results: [JSONValue] = []
            for (file, outcome) in outcomes {
                guard case .object(var members) = outcome.json else { continue }
                members["file"] = .string(file)
                results.append(.object(members))
            }
            return ["results": .array(results), "unchanged": .number(Double(unchanged))]
        }

        package var loadedIDs: [String] {
            outcomes.compactMap { if case .loaded(let id, _) = $0.outcome { id } else { nil } }
        }
    }

    private let loop: EngineLoop
    private var searchPath: SearchPath
    /// motiond itself, run as `--probe FILE`; nil loads without probing (in-process tests only).
    private let probeExecutable: String?
    private let imageDirectory: String
    private let logger: Logger
    /// Files refused by the probe (or quarantined after crashing motiond), by content hash: not probed or
    /// loaded again until the content changes.
    private var refused: [String: String] = [:]
    private var copies = 0
    /// The reload in progress: reloads run one after the other, never interleaved at their awaits.
    private var tail: Task<Report, Never>?

    package init(loop: EngineLoop, searchPath: SearchPath, probeExecutable: String?, imageDirectory: String,
                logger: Logger, quarantined: [String: String] = [:]) {
        self.loop = loop
        self.refused = quarantined
        self.searchPath = searchPath
        self.probeExecutable = probeExecutable
        self.imageDirectory = imageDirectory
        self.logger = logger
    }

    /// A private directory for the copies that get dlopened: under the state directory, or a fresh one
    /// in /tmp (private under systemd's PrivateTmp).
    package static func makeImageDirectory(stateDirectory: String?) throws -> String {
        if let stateDirectory {
            let directory = stateDirectory + "/images"
            try? FileManager.default.removeItem(atPath: directory)  // copies are unlinked once mapped
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            return directory
        }
        var template = Array("/tmp/motiond-images-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        return String(cString: made)
    }

    package func setSearchPath(_ path: SearchPath) { searchPath = path }

    /// Looks at every plugin file (or only the loaded plugin `id`, or only `files`) and installs what is
    /// new or changed. Unchanged files (same content hash) are left alone.
    package func reload(id: String? = nil, files: Set<String>? = nil) async -> Report {
        let previous = tail
        let next = Task {
            _ = await previous?.value
            return await self.reloadNow(id: id, files: files)
        }
        tail = next
        return await next.value
    }

    private func reloadNow(id: String?, files: Set<String>?) async -> Report {
        var report = Report()
        let loaded = await loop.perform { $0.plugins.loadedPlugins }
        let byFile = Dictionary(loaded.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        var candidates = searchPath.flatMap { PluginLoader.pluginFiles(in: $0.path, shippedOnly: $0.shippedOnly) }
        // A file refused before and gone since is no longer listed, whatever this reload looks at.
        let present = Set(candidates)
        await loop.perform { $0.plugins.forgetRejections(ofFilesNotIn: present) }
        if let id { candidates = candidates.filter { byFile[$0]?.id == id } }
        if let files { candidates = candidates.filter { files.contains($0) } }

        // Hash, check and probe in parallel, leaving a core to the frame loop (probes are whole processes:
        // five at once on two cores starved the engine thread and clients); install one by one, in
        // search-path order (first wins).
        let parallel = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        let files = candidates
        let prepared = await withTaskGroup(of: (Int, Result<String, Refusal>?).self) { group in
            var started = 0
            func startNext() {
                let index = started, file = files[index], known = byFile[file]?.hash
                started += 1
                group.addTask { (index, await self.prepare(file, loadedHash: known)) }
            }
            while started < min(parallel, files.count) { startNext() }
            var results = [Result<String, Refusal>?](repeating: nil, count: files.count)
            for await (index, result) in group {
                results[index] = result
                if started < files.count { startNext() }
            }
            return results
        }
        // A file whose loaded build is back (a refused one replaced it for a while) is no longer listed as
        // refused: the refusal does not say what the file holds.
        let restored = zip(candidates, prepared).filter { $0.1 == nil }.map(\.0)
        if !restored.isEmpty { await loop.perform { $0.plugins.forgetRejections(of: restored) } }
        for (file, result) in zip(candidates, prepared) {
            switch result {
            case nil: report.unchanged += 1
            case .failure(let refusal)?:
                if refusal.isRemembered, await loop.perform({ context in context.plugins.isRejected(file) }) {
                    // Refused before (by an earlier reload or the directory watcher): listed again so the
                    // answer says every file that is out, but not announced again.
                    report.outcomes.append((file, .rejected(reason: refusal.reason)))
                    continue
                }
                let reason = refusal.reason
                report.outcomes.append((file, await loop.perform { $0.plugins.reject(file: file, reason: reason) }))
            case .success(let hash)?:
                report.outcomes.append((file, await install(file, hash: hash)))
            }
        }
        return report
    }

    struct Refusal: Error {
        var reason: String
        /// Refused before for the same content: nothing new to report.
        var isRemembered = false
    }

    /// nil when the file is loaded with this content already; else its hash, or why it is refused.
    private func prepare(_ file: String, loadedHash: String?) async -> Result<String, Refusal>? {
        if let problem = PluginFileCheck.refusal(for: file) { return .failure(Refusal(reason: problem)) }
        guard let data = FileManager.default.contents(atPath: file) else {
            return .failure(Refusal(reason: "cannot read the file"))
        }
        let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        if hash == loadedHash { return nil }
        if let reason = refused[hash] { return .failure(Refusal(reason: reason, isRemembered: true)) }
        if let probeExecutable {
            // A new build of a loaded plugin: the probe imports what its running performers would hand over.
            let states = loadedHash == nil ? nil : await migrationStates(for: file)
            defer { if let states { unlink(states) } }
            if let reason = await PluginProbe.check(file: file, executable: probeExecutable, states: states) {
                refused[hash] = reason
                return .failure(Refusal(reason: reason))
            }
        }
        return .success(hash)
    }

    /// States the performers running on `file`'s current build export now (up to 16, one per plan type
    /// first), as JSON lines in a private temporary file for the probe; nil when there are none.
    private func migrationStates(for file: String) async -> String? {
        let samples = await loop.perform { $0.engine.swaps.migrationSamples(ofPluginFile: file, limit: 16) }
        guard !samples.isEmpty else { return nil }
        var lines: [UInt8] = []
        for sample in samples {
            lines += JSONWriter.bytes(["planType": .string(sample.planType), "state": .string(String(decoding: sample.state, as: UTF8.self))])
            lines.append(UInt8(ascii: "\n"))
        }
        var template = Array((FileManager.default.temporaryDirectory.path + "/motiond-states-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = lines.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == lines.count else {
            unlink(path)
            return nil
        }
        return path
    }

    /// Copies the file to a unique private path (a second dlopen of one path returns the first image),
    /// has the engine thread load it, then unlinks the copy: the mapping stays, the name goes.
    private func install(_ file: String, hash: String) async -> InstallOutcome {
        copies += 1
        let name = (file as NSString).lastPathComponent
        var image = "\(imageDirectory)/\(copies)-\(hash.prefix(12))-\(name)"
        do {
            try? FileManager.default.removeItem(atPath: image)
            try FileManager.default.copyItem(atPath: file, toPath: image)
        } catch {
            // No room (a full or small state filesystem): leave no partial copy, and load the image from
            // memory instead.
            try? FileManager.default.removeItem(atPath: image)
            guard let memory = Self.memoryImage(of: file, name: name) else {
                let reason = "cannot copy to \(imageDirectory) (\(error.localizedDescription)) nor into memory"
                return await loop.perform { $0.plugins.reject(file: file, reason: reason) }
            }
            logger.notice("plugin image loaded from memory", metadata: ["file": "\(file)", "reason": "\(error.localizedDescription)"])
            image = memory
        }
        let loaded = image
        // A copy's name goes once it is mapped; an in-memory image has no name in a directory to remove.
        defer { if !loaded.hasPrefix("/proc/self/fd/") { unlink(loaded) } }
        // Mapped here, not on the engine thread: dlopen of a Swift plugin holds a core for 2–3 ms.
        let entry: PluginLoader.PluginEntry
        // A constructor that crashes here is the plugin's (docs/operations.md#a-plugin-that-crashes-the-daemon):
        // this thread is named before the mark is set, and forgotten after it is cleared (no await between).
        let label = PluginCallMarker.label(file: file, hash: hash)
        motion_crash_handler_loading(1)
        let mapped = PluginCallMarker.loading(label) { PluginLoader.open(file: loaded, label: file) }
        motion_crash_handler_loading(0)
        switch mapped {
        case .failure(let error): return await loop.perform { $0.plugins.reject(file: file, reason: error.reason) }
        case .success(let opened): entry = opened
        }
        // Right after a tick: an install holds the engine thread for milliseconds (the new image's first
        // calls, the swap's set-up), and so does each slice of a swap.
        var outcome = await loop.performAfterTick { $0.plugins.install(entry: entry, file: file, hash: hash) }
        // A swap under many animations moves them a slice per engine command: ticks run in between.
        while case .migrating = outcome {
            outcome = await loop.performAfterTick { $0.plugins.continueInstall(file: file) }
        }
        return outcome
    }
}

extension PluginManager {
    /// The file's bytes in an anonymous in-memory file, as a path dlopen takes (/proc/self/fd/N). The
    /// descriptor stays open for the process lifetime: images are never unloaded, and a closed descriptor's
    /// number (so its path) could come back for another image, which dlopen would take for this one.
    static func memoryImage(of file: String, name: String) -> String? {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        let descriptor = motion_memory_file("motiond:" + name)
        guard descriptor >= 0 else { return nil }
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        guard written else {
            close(descriptor)
            return nil
        }
        return "/proc/self/fd/\(descriptor)"
    }
}
