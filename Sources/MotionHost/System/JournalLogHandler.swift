import Foundation
import Logging

/// Log entries sent to journald over its native protocol (a datagram of `FIELD=value` lines to
/// `/run/systemd/journal/socket`) when stderr is the journal (`JOURNAL_STREAM` set): each entry carries
/// `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`, a `MESSAGE_ID` for the kinds in `JournalMessageIDs`,
/// `PLUGIN` and `CLIENT_UID` from the entry's metadata and every other metadata key as a field of its own
/// (docs/operations.md#the-journal). An entry the socket does not take goes to stderr as before.
package struct JournalLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    private var fallback: StderrLogHandler
    private let journal: JournalSocket

    /// The native protocol when `environment` says stderr is the journal and its socket takes a
    /// datagram; nil otherwise. `MOTIOND_JOURNAL_SOCKET` names another socket (tests, a journald
    /// namespace's socket).
    package init?(label: String, level: LogLevelSetting, environment: [String: String]) {
        guard let stream = environment["JOURNAL_STREAM"], !stream.isEmpty else { return nil }
        // As sd-journal does: JOURNAL_STREAM must name this stderr (device:inode), or it was inherited
        // from a shell in a terminal and the lines belong there. A socket named by MOTIOND_JOURNAL_SOCKET
        // is used as asked.
        let named = environment["MOTIOND_JOURNAL_SOCKET"]
        guard named != nil || Self.isStderr(stream),
              let journal = JournalSocket.shared(path: named ?? "/run/systemd/journal/socket") else { return nil }
        self.journal = journal
        fallback = StderrLogHandler(label: label, level: level, environment: environment)
    }

    /// `JOURNAL_STREAM`'s `device:inode` is stderr's.
    static func isStderr(_ stream: String) -> Bool {
        let parts = stream.split(separator: ":")
        var info = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    package var logLevel: Logger.Level {
        get { fallback.logLevel }
        set { fallback.logLevel = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let message = "\(event.message)"
        var entry = JournalEntry()
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        entry.add("MESSAGE", StderrLogHandler.escaped(fields.isEmpty ? message : "\(message) \(fields)"))
        entry.add("PRIORITY", String(StderrLogHandler.priority(event.level)))
        entry.add("SYSLOG_IDENTIFIER", "motiond")
        if let id = JournalMessageIDs.id(for: message) { entry.add("MESSAGE_ID", id) }
        // Escaped as MESSAGE is (docs/threat_model.md: a client-chosen name with U+202E or a newline must not
        // rewrite what `journalctl -o verbose` shows).
        for (key, value) in merged { entry.add(JournalEntry.fieldName(forMetadataKey: key), StderrLogHandler.escaped("\(value)")) }
        guard journal.send(entry.bytes) else {
            fallback.log(event: event)
            return
        }
    }
}

/// One entry in the native protocol's datagram form: `NAME=value\n`, or, for a value with a newline,
/// `NAME\n`, its length as 64-bit little-endian, the value and `\n`.
struct JournalEntry {
    private(set) var bytes: [UInt8] = []

    mutating func add(_ name: String, _ value: String) {
        let utf8 = Array(value.utf8.prefix(Self.valueLimit))
        bytes += Array(name.utf8)
        if utf8.contains(UInt8(ascii: "\n")) {
            bytes.append(UInt8(ascii: "\n"))
            withUnsafeBytes(of: UInt64(utf8.count).littleEndian) { bytes += $0 }
            bytes += utf8
        } else {
            bytes.append(UInt8(ascii: "="))
            bytes += utf8
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A value's bytes at most: an entry stays one datagram (journald takes up to its socket buffer).
    static let valueLimit = 16_384

    /// Metadata keys as journal field names: `uid` is `CLIENT_UID`, `plugin` is `PLUGIN`, others in
    /// upper snake case (`stateDir` → `STATE_DIR`); a name journald gives a meaning of its own
    /// (`MESSAGE`, `PRIORITY`, `CODE_*`, …) or an invalid one is prefixed `MOTIOND_`.
    static func fieldName(forMetadataKey key: String) -> String {
        switch key {
        case "uid": return "CLIENT_UID"
        case "plugin": return "PLUGIN"
        default: break
        }
        var name = ""
        for scalar in key.unicodeScalars {
            if CharacterSet.uppercaseLetters.contains(scalar), !name.isEmpty { name += "_" }
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": name += String(scalar).uppercased()
            default: name += "_"
            }
        }
        let reserved = ["MESSAGE", "MESSAGE_ID", "PRIORITY", "SYSLOG_IDENTIFIER", "SYSLOG_FACILITY", "SYSLOG_PID",
                        "ERRNO", "TID", "UNIT", "USER_UNIT", "DOCUMENTATION", "INVOCATION_ID"]
        let valid = name.first.map { $0.isLetter } ?? false && name.count <= 48
        if !valid || reserved.contains(name) || name.hasPrefix("CODE_") || name.hasPrefix("SYSLOG_") {
            return "MOTIOND_" + name.drop { $0 == "_" }
        }
        return name
    }
}

/// The journal's datagram socket, connected once. A send that fails (journald restarting, a full
/// buffer) is reported so that the entry goes to stderr instead.
final class JournalSocket: @unchecked Sendable {
    // @unchecked: `descriptor` is set once in `init`; a datagram `send` is atomic per call.
    private let descriptor: Int32

    private static let opened = NSLock()
    nonisolated(unsafe) private static var sockets: [String: JournalSocket] = [:]

    static func shared(path: String) -> JournalSocket? {
        opened.lock()
        defer { opened.unlock() }
        if let socket = sockets[path] { return socket }
        guard let socket = JournalSocket(path: path) else { return nil }
        sockets[path] = socket
        return socket
    }

    private init?(path: String) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { close(descriptor); return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { close(descriptor); return nil }
        self.descriptor = descriptor
    }

    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } == bytes.count
    }
}
