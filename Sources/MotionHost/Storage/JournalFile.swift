import Foundation
import MotionEngine
import MotionWire
import Synchronization

/// The runtime journal on disk: `<state-dir>/journal.jsonl`, one record per line (docs/operations.md#animations-survive-a-restart).
///
/// An append is written and `fdatasync`ed before it returns; a write that fails part-way (a full disk) is
/// cut back to where it started, so the file never holds half a record. Compaction writes a new file,
/// syncs it, renames it over the old one and syncs the directory: `kill -9` leaves one or the other.
/// Used from the daemon's save queue, and once from the engine thread at a graceful stop (write-offs a
/// full disk kept out): writes take a lock.
final class JournalFile: JournalStorage, @unchecked Sendable {
    // @unchecked: `descriptor` changes only inside `append` and `rewrite`, which hold `writing`.
    let path: String
    private let writing = Mutex<Void>(())
    private let directory: String
    private var descriptor: Int32 = -1
    private let bytes = Atomic<Int>(0)

    init(stateDirectory: String) throws {
        directory = stateDirectory
        path = stateDirectory + "/journal.jsonl"
        try open()
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    var size: Int { bytes.load(ordering: .relaxed) }

    private func open() throws {
        if descriptor >= 0 { close(descriptor) }
        descriptor = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw RouterStore.Failure("open \(path)", errno) }
        var status = stat()
        fstat(descriptor, &status)
        bytes.store(Int(status.st_size), ordering: .relaxed)
    }

    func append(_ lines: [UInt8]) throws(EngineError) {
        try writing.withLock { _ throws(EngineError) in try appendHoldingLock(lines) }
    }

    private func appendHoldingLock(_ lines: [UInt8]) throws(EngineError) {
        let start = size
        var written = 0
        do {
            guard descriptor >= 0 else { throw RouterStore.Failure("journal not open", 0) }
            while written < lines.count {
                let result = lines.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, lines.count - written) }
                if result < 0 {
                    if errno == EINTR { continue }
                    throw RouterStore.Failure("write \(path)", errno)
                }
                written += result
            }
            guard fdatasync(descriptor) == 0 else { throw RouterStore.Failure("fdatasync \(path)", errno) }
            bytes.store(start + written, ordering: .relaxed)
        } catch {
            if written > 0 { _ = ftruncate(descriptor, off_t(start)) }
            throw EngineError(.stateWriteFailed, "the runtime journal could not be written: \(error)")
        }
    }

    func rewrite(_ lines: [UInt8]) throws(EngineError) {
        try writing.withLock { _ throws(EngineError) in try rewriteHoldingLock(lines) }
    }

    private func rewriteHoldingLock(_ lines: [UInt8]) throws(EngineError) {
        let temporary = path + ".tmp"
        do {
            try RouterStore.writeDurably(lines, to: temporary)
            guard rename(temporary, path) == 0 else { throw RouterStore.Failure("rename to \(path)", errno) }
            // Appends go to the new file from here on, even if syncing the directory fails below.
            try open()
            try RouterStore.syncDirectory(directory)
        } catch {
            unlink(temporary)
            throw EngineError(.stateWriteFailed, "the runtime journal could not be compacted: \(error)")
        }
    }

    func load() -> (records: [JSONValue], problems: [String]) {
        let (records, problems) = loadLines()
        return (records.map(\.json), problems)
    }

    /// Read in two halves at once (the replay's other core is idle then): parsing was a tenth of a
    /// 150,000-record start.
    func loadLines() -> (records: [(json: JSONValue, line: [UInt8])], problems: [String]) {
        guard let data = FileManager.default.contents(atPath: path) else { return ([], []) }
        let bytes = [UInt8](data)
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let halves = lines.count < 4096 ? 1 : 2, half = (lines.count + 1) / 2
        var parts = [[(number: Int, json: JSONValue?, line: ArraySlice<UInt8>, error: String?)]](repeating: [], count: halves)
        parts.withUnsafeMutableBufferPointer { parts in
            nonisolated(unsafe) let parts = parts
            DispatchQueue.concurrentPerform(iterations: halves) { part in
                let range = halves == 1 ? lines.indices : (part == 0 ? 0..<half : half..<lines.count)
                var parsed: [(number: Int, json: JSONValue?, line: ArraySlice<UInt8>, error: String?)] = []
                parsed.reserveCapacity(range.count)
                for number in range where !lines[number].isEmpty {
                    do { parsed.append((number, try JSONValue.parse(lines[number]), lines[number], nil)) } catch {
                        parsed.append((number, nil, lines[number], "\(error)"))
                    }
                }
                parts[part] = parsed
            }
        }
        var records: [(json: JSONValue, line: [UInt8])] = [], problems: [String] = []
        records.reserveCapacity(lines.count)
        for part in parts {
            for (number, json, line, error) in part {
                if let json { records.append((json, Array(line) + [UInt8(ascii: "\n")])) } else {
                    problems.append("\(path):\(number + 1): \(error ?? "")")
                }
            }
        }
        return (records, problems)
    }
}
