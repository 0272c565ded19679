import CHostSupport
import Foundation
import Logging
import MotionEngine
import MotionWire

/// docs/operations.md#a-plugin-that-crashes-the-daemon: a plugin that crashes motiond is not loaded again until its content changes.
///
/// While the engine thread calls a plugin, `PluginCallMarker` names it; if the process then dies by a
/// signal, a handler (C, async-signal-safe) writes that name to `<state-dir>/crash.record`. The next
/// start moves the record into `<state-dir>/quarantine.json`, logs it, and the plugin manager refuses
/// files with that content hash (`plugin.rejected`, "crashed motiond …").
package struct CrashQuarantine: Sendable {
    package struct Entry: Sendable, Equatable {
        package var file: String
        package var hash: String
        package var function: String
        package var signal: Int32
        package var time: String

        /// `crashed motiond (SIGSEGV in advance) at 2026-11-24T23:58:00Z; refused until its content changes`.
        /// Signal 0: the call never returned (the hang watch ended the process).
        var reason: String {
            signal == 0
                ? "hung motiond (\(function) did not return) at \(time); refused until its content changes"
                : "crashed motiond (\(Self.signalName(signal)) in \(function)) at \(time); refused until its content changes"
        }

        static func signalName(_ signal: Int32) -> String {
            switch signal {
            case SIGSEGV: "SIGSEGV"
            case SIGBUS: "SIGBUS"
            case SIGILL: "SIGILL"
            case SIGFPE: "SIGFPE"
            case SIGABRT: "SIGABRT"
            default: "signal \(signal)"
            }
        }
    }

    package private(set) var entries: [Entry] = []

    /// One plugin call that lasts `seconds` (config `hangSeconds`, 5 by default: below the unit's 10 s
    /// watchdog, far above any call's share of a frame — a batch of 250,000 springs takes ~2 ms) ends the
    /// process and is recorded like a crash (docs/operations.md#a-plugin-that-hangs).
    static func watchForHangs(seconds: Int, logger: Logger) {
        guard seconds > 0 else { return }
        if motion_hang_watch_start(UInt32(seconds)) != 0 {
            logger.warning("the hang watch did not start: a plugin that never returns is not contained")
        }
    }

    /// Reasons by content hash, for the plugin manager.
    package var refusals: [String: String] {
        Dictionary(entries.map { ($0.hash, $0.reason) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads what an earlier crash recorded, then arms the handler for this run.
    package static func start(stateDirectory: String, hangSeconds: Int = 5, logger: Logger) -> CrashQuarantine {
        var quarantine = CrashQuarantine()
        let recordPath = stateDirectory + "/crash.record", listPath = stateDirectory + "/quarantine.json"
        if let data = FileManager.default.contents(atPath: listPath), let json = try? JSONValue.parse(Array(data)) {
            quarantine.entries = (json["plugins"]?.arrayValue ?? []).compactMap(Entry.init(json:))
        }
        if let data = FileManager.default.contents(atPath: recordPath), !data.isEmpty {
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.count >= 4, let signal = Int32(lines[3]) {
                // The crash's own time (the record's fifth line, seconds since the epoch), else now.
                let crashed = lines.count >= 5 ? Double(lines[4]).map { Date(timeIntervalSince1970: $0) } : nil
                let entry = Entry(file: lines[0], hash: lines[1], function: lines[2], signal: signal,
                                  time: ISO8601DateFormatter().string(from: crashed ?? Date()))
                if !quarantine.entries.contains(where: { $0.hash == entry.hash }) { quarantine.entries.append(entry) }
                logger.critical(signal == 0 ? "a plugin hung motiond (a call that never returned); it is quarantined"
                                            : "a plugin crashed motiond; it is quarantined", metadata: [
                    "file": "\(entry.file)", "function": "\(entry.function)", "signal": "\(signal)", "sha256": "\(entry.hash)"])
                let document: JSONValue = ["plugins": .array(quarantine.entries.map(\.json))]
                try? Data(JSONWriter.bytes(document)).write(to: URL(fileURLWithPath: listPath), options: .atomic)
                _ = chmod(listPath, 0o600)
            }
        }
        let descriptor = open(recordPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if descriptor < 0 || motion_crash_handler_install(descriptor, UnsafePointer(PluginCallMarker.address.assumingMemoryBound(to: UnsafeRawPointer?.self))) != 0 {
            logger.warning("crash quarantine not armed", metadata: ["file": "\(recordPath)", "error": "\(String(cString: strerror(errno)))"])
        } else {
            watchForHangs(seconds: hangSeconds, logger: logger)
        }
        return quarantine
    }

    /// The crash handler with nowhere to record: a plugin's crash ends the process at once (no
    /// backtrace), any other goes to Swift's backtracer with every descriptor close-on-exec.
    static func installWithoutRecord(hangSeconds: Int, logger: Logger) {
        guard motion_crash_handler_install(-1, UnsafePointer(PluginCallMarker.address.assumingMemoryBound(to: UnsafeRawPointer?.self))) == 0 else { return }
        watchForHangs(seconds: hangSeconds, logger: logger)
    }
}

extension CrashQuarantine.Entry {
    init?(json: JSONValue) {
        guard let file = json["file"]?.stringValue, let hash = json["hash"]?.stringValue,
              let function = json["function"]?.stringValue, let signal = json["signal"]?.intValue,
              let time = json["time"]?.stringValue else { return nil }
        self.init(file: file, hash: hash, function: function, signal: Int32(signal), time: time)
    }

    var json: JSONValue {
        ["file": .string(file), "hash": .string(hash), "function": .string(function), "signal": .number(Double(signal)),
         "time": .string(time)]
    }
}
