import Foundation
import Logging

/// Log lines on stderr: with `<N>` syslog priority prefixes when stderr is the journal (`JOURNAL_STREAM`
/// names this stderr; one inherited from a shell in a terminal does not), otherwise with a readable timestamp.
package struct StderrLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    private let label: String
    private let forJournal: Bool
    private let setting: LogLevelSetting

    package init(label: String, level: LogLevelSetting, environment: [String: String]) {
        self.label = label
        self.setting = level
        // As `JournalLogHandler` decides (MOTIOND_JOURNAL_SOCKET: a journal named as asked, in tests).
        self.forJournal = environment["JOURNAL_STREAM"].map {
            !$0.isEmpty && (environment["MOTIOND_JOURNAL_SOCKET"] != nil || JournalLogHandler.isStderr($0))
        } ?? false
    }

    /// Follows the shared setting; setting it on one logger changes it for the daemon.
    package var logLevel: Logger.Level {
        get { setting.level }
        set { setting.set(newValue) }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        // Control characters are escaped: a client-chosen name with "\n<0>" in it must not start a line of
        // its own (with a journald priority of its choosing).
        let text = Self.escaped(fields.isEmpty ? "\(event.message)" : "\(event.message) \(fields)")
        let line: String
        if forJournal {
            line = "<\(Self.priority(event.level))>\(text)\n"
        } else {
            line = "\(Self.timestamp()) \(event.level) \(label): \(text)\n"
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The text with control characters (C0, DEL, C1 such as U+0085 NEL), line and paragraph separators
    /// (U+2028, U+2029) and bidirectional controls (U+202A–U+202E, U+2066–U+2069) written as `\n`,
    /// `\u{2028}` and so on: a client-chosen name cannot start a line of its own in any log reader, nor
    /// reorder what a reader shows after it.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var broken = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &broken)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(broken.tm_year) + 1900, Int(broken.tm_mon) + 1,
                      Int(broken.tm_mday), Int(broken.tm_hour), Int(broken.tm_min), Int(broken.tm_sec),
                      now.tv_nsec / 1_000_000)
    }
}
