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
        guard let data = FileManager.default.contents(atPath: path) else { return ([], []) }
        var records: [JSONValue] = [], problems: [String] = []
        for (number, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() where !line.isEmpty {
            do {
                records.append(try JSONValue.parse(Array(line)))
            } catch {
                problems.append("\(path):\(number + 1): \(error)")
            }
        }
        return (records, problems)
    }
}
