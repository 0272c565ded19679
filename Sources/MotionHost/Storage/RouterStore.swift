import Foundation
import MotionEngine
import MotionWire

/// Routers' configuration and state on disk, one file per router under `<state-dir>/routers/`, named
/// `<owner uid>.<scheme>.json` (files of version 1, `<scheme>.json`, belong to `legacyOwner`: the uid
/// the daemon runs as, whose routers they were before routers had owners).
///
/// A file is replaced atomically and durably before the change it records is acknowledged: written to a
/// temporary file, fsync'd, renamed over the old one, and the directory fsync'd, so `kill -9` (or a power
/// cut) leaves either the old file or the new one, never a torn one.
struct RouterStore: RouterStorage {

    let directory: String
    let legacyOwner: UInt32

    init(stateDirectory: String, legacyOwner: UInt32 = getuid()) throws {
        directory = stateDirectory + "/routers"
        self.legacyOwner = legacyOwner
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    func save(owner: UInt32, scheme: String, configuration: JSONValue, url: String) throws(EngineError) {
        let document: JSONValue = ["version": 2, "owner": .number(Double(owner)), "scheme": .string(scheme),
                                   "configuration": configuration, "url": .string(url)]
        var bytes = JSONWriter.bytes(document)
        bytes.append(UInt8(ascii: "\n"))
        let path = file(for: scheme, owner: owner)
        let temporary = path + ".tmp"
        do {
            try Self.writeDurably(bytes, to: temporary)
            guard rename(temporary, path) == 0 else { throw Failure("rename to \(path)", errno) }
            if owner == legacyOwner { unlink(file(for: scheme, owner: nil)) }
            try Self.syncDirectory(directory)
        } catch {
            unlink(temporary)
            throw EngineError(.stateWriteFailed, "router \(scheme):// could not be saved: \(error)")
        }
    }

    /// Every saved router; unreadable files are returned as problems, not thrown.
    func loadAll() -> (routers: [SavedRouter], problems: [String]) {
        var routers: [SavedRouter] = [], problems: [String] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = directory + "/" + name
            do {
                let document = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                let owner = document["owner"].map { $0.intValue.flatMap(UInt32.init(exactly:)) } ?? legacyOwner
                guard let owner, let scheme = document["scheme"]?.stringValue, let url = document["url"]?.stringValue,
                    let configuration = document["configuration"],
                    path == (document["owner"] == nil ? file(for: scheme, owner: nil) : file(for: scheme, owner: owner))
                else { throw Failure("missing owner, scheme, url or configuration", 0) }
                if document["owner"] == nil, routers.contains(where: { $0.owner == owner && $0.scheme == scheme }) { continue }
                routers.append(SavedRouter(owner: owner, scheme: scheme, configuration: configuration, url: url))
            } catch {
                problems.append("\(path): \(error)")
            }
        }
        return (routers, problems)
    }

    /// Removes a saved router durably (its file, and the directory entry synced).
    func remove(owner: UInt32, scheme: String) throws(EngineError) {
        do {
            for path in [file(for: scheme, owner: owner)] + (owner == legacyOwner ? [file(for: scheme, owner: nil)] : []) {
                guard unlink(path) == 0 || errno == ENOENT else { throw Failure("unlink \(path)", errno) }
            }
            try Self.syncDirectory(directory)
        } catch {
            throw EngineError(.stateWriteFailed, "router \(scheme):// could not be removed: \(error)")
        }
    }

    /// Nil owner: the version 1 name.
    private func file(for scheme: String, owner: UInt32?) -> String {
        directory + "/" + (owner.map { "\($0)." } ?? "") + scheme + ".json"
    }

    static func writeDurably(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure("open \(path)", errno) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                throw Failure("write \(path)", errno)
            }
            written += result
        }
        guard fsync(descriptor) == 0 else { throw Failure("fsync \(path)", errno) }
    }

    static func syncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure("open \(path)", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure("fsync \(path)", errno) }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ operation: String, _ code: Int32) {
            description = code == 0 ? operation : "\(operation): \(String(cString: strerror(code)))"
        }
    }
}
