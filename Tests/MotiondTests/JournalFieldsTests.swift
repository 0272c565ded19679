import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md#the-journal: with `JOURNAL_STREAM` set, entries reach the journal's socket in the
/// native protocol with `MESSAGE_ID`, `PLUGIN` and `CLIENT_UID`; a datagram socket of the test's own
/// stands in for journald's.
@Suite("Journal fields")
struct JournalFieldsTests {
    /// The fields of one native-protocol datagram (`NAME=value` lines, or a name, a 64-bit length and
    /// the value).
    static func fields(_ datagram: String) -> [String: String] {
        var fields: [String: String] = [:]
        var bytes = Substring(datagram).utf8[...]
        while let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
            let line = bytes[..<newline]
            if let equals = line.firstIndex(of: UInt8(ascii: "=")) {
                fields[String(decoding: line[..<equals], as: UTF8.self)] = String(decoding: line[line.index(after: equals)...], as: UTF8.self)
                bytes = bytes[bytes.index(after: newline)...]
            } else {
                let name = String(decoding: line, as: UTF8.self)
                let start = bytes.index(after: newline)
                let length = bytes[start...].prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                let valueStart = bytes.index(start, offsetBy: 8)
                let valueEnd = bytes.index(valueStart, offsetBy: length)
                fields[name] = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
                bytes = bytes[bytes.index(after: valueEnd)...]
            }
        }
        return fields
    }

    @Test func entriesCarryTheirKindPluginAndClientUid() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let journal = try NotifyListener(directory: directory, name: "journal.sock")
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"maxConnectionsPerUser": 2}"#.utf8).write(to: config)
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                             command: [DaemonProcess.motiond, "--socket", socket, "--config", config.path],
                                             environment: ["JOURNAL_STREAM": "8:12345", "MOTIOND_JOURNAL_SOCKET": journal.path])
        func entry(_ id: String) async throws -> [String: String] {
            let index = try await journal.waitFor { Self.fields($0)["MESSAGE_ID"] == id }
            return Self.fields(journal.messages[index])
        }
        let loaded = try await entry("415b32f535c24655aa54b65cfe7dbbe6")
        #expect(loaded["PLUGIN"]?.hasPrefix("org.motiond.") == true && loaded["PRIORITY"] == "6"
                && loaded["SYSLOG_IDENTIFIER"] == "motiond" && loaded["MESSAGE"]?.hasPrefix("plugin loaded") == true, "\(loaded)")
        #expect(loaded["FILE"]?.hasSuffix(".so") == true, "other metadata as fields: \(loaded)")
        let ready = try await entry("1ab4e69aa0aa4e64871039efec65d47d")
        #expect(ready["MESSAGE"]?.hasPrefix("ready") == true)

        // Two connections are uid 0's quota here; the third is refused, and the journal says whose.
        // (DaemonProcess's start-up probe may not have closed yet under load: then the second is the one
        // refused, so none of the three expects to be served.)
        let first = try await MotionClient.connect(path: socket)
        let second = try await MotionClient.connect(path: socket)
        let third = try await MotionClient.connect(path: socket)
        let refused = try await entry("aa69c9ee367e45538bab1963f8698606")
        #expect(refused["CLIENT_UID"] == "\(getuid())" && refused["PRIORITY"] == "4", "\(refused)")
        // A flood of refusals is one entry a minute per uid (counted once the daemon has stopped).
        for _ in 0..<5 {
            let flood = try await MotionClient.connect(path: socket)
            for await _ in flood.events {}  // until the daemon closes it, after its refusal
        }

        #expect(!daemon.log.contains("plugin loaded"), "entries the journal took are not also on stderr: \(daemon.log)")
        await third.close()
        await first.close()
        await second.close()
        #expect(await daemon.stop() == 0)
        _ = try await entry("d4c152b149e04d41834b4c809348e4f5")
        #expect(journal.messages.filter { Self.fields($0)["MESSAGE_ID"] == "aa69c9ee367e45538bab1963f8698606" }.count == 1)
    }

    @Test func withoutTheJournalsSocketLinesGoToStderrWithTheirPriority() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket, command: [DaemonProcess.motiond, "--socket", socket],
                                             environment: ["JOURNAL_STREAM": "8:12345",
                                                           "MOTIOND_JOURNAL_SOCKET": directory.appendingPathComponent("absent.sock").path])
        #expect(daemon.log.contains("<6>plugin loaded"), "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }

    /// A `JOURNAL_STREAM` inherited from a shell (it names another stream than this stderr): the lines
    /// belong to the terminal, with timestamps, not journal priorities.
    @Test func anInheritedJournalStreamLeavesStderrLinesReadable() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket, command: [DaemonProcess.motiond, "--socket", socket],
                                             environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(!daemon.log.contains("<6>") && daemon.log.contains(" info motiond: plugin loaded"), "\(daemon.log)")
        #expect(await daemon.stop() == 0)
    }
}
