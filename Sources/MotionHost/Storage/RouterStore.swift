import Foundation
import MotionEngine
import MotionWire

/// Routers' configuration and state on disk, one file per scheme under `<state-dir>/routers/`.
///
/// A file is replaced atomically and durably before the change it records is acknowledged: written to a
/// temporary file, fsync'd, renamed over the old one, and the directory fsync'd, so `kill -9` (or a power
/// cut) leaves either the old file or the new one, never a torn one.
struct RouterStore: RouterStorage {

    let directory: String

    init(stateDirectory: String) throws {
        directory = stateDirectory + "/routers"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }

    func save(scheme: String, configuration: JSONValue, url: String) throws(EngineError) {
        let document: JSONValue = ["version": 1, "scheme": .string(scheme), "configuration": configuration,
                                   "url": .string(url)]
        var bytes = JSONWriter.bytes(document)
        bytes.append(UInt8(ascii: "\n"))
        let path = file(for: scheme)
        let temporary = path + ".tmp"
        do {
            try Self.writeDurably(bytes, to: temporary)
            guard rename(temporary, path) == 0 else { throw Failure("rename to \(path)", errno) }
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
                guard let scheme = document["scheme"]?.stringValue, let url = document["url"]?.stringValue,
                    let configuration = document["configuration"], file(for: scheme) == path
                else { throw Failure("missing scheme, url or configuration", 0) }
                routers.append(SavedRouter(scheme: scheme, configuration: configuration, url: url))
            } catch {
                problems.append("\(path): \(error)")
            }
        }
        return (routers, problems)
    }

    private func file(for scheme: String) -> String { directory + "/" + scheme + ".json" }

    private static func writeDurably(_ bytes: [UInt8], to path: String) throws {
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

    private static func syncDirectory(_ path: String) throws {
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
