import Foundation
import Logging
@testable import MotionHost
import Testing

/// The native journal protocol's datagram form (docs/operations.md#the-journal): what journald parses.
@Suite("Journal entries")
struct JournalEntryTests {
    @Test func aValueWithANewlineIsWrittenWithItsLength() {
        var entry = JournalEntry()
        entry.add("MESSAGE", "one line")
        entry.add("CLIENT", "two\nlines")
        let expected: [UInt8] = Array("MESSAGE=one line\nCLIENT\n".utf8) + [9, 0, 0, 0, 0, 0, 0, 0] + Array("two\nlines\n".utf8)
        #expect(entry.bytes == expected)
    }

    @Test(arguments: [("uid", "CLIENT_UID"), ("plugin", "PLUGIN"), ("stateDir", "STATE_DIR"), ("file", "FILE"),
                      ("message", "MOTIOND_MESSAGE"), ("codeLine", "MOTIOND_CODE_LINE"), ("9lives", "MOTIOND_9LIVES"),
                      ("a-b", "A_B")])
    func metadataKeysBecomeFieldNames(key: String, name: String) {
        #expect(JournalEntry.fieldName(forMetadataKey: key) == name)
    }

    @Test func everyMessageIDIs128BitsOfHexAndUnique() {
        let ids = Array(JournalMessageIDs.byMessage.values)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }
}

/// docs/threat_model.md: every field journald receives is escaped as MESSAGE is, so a client-chosen string
/// in a log entry's metadata (a name with U+202E, a newline) cannot reorder or forge what a reader shows.
@Suite("Journal fields escaped")
struct JournalFieldEscapeTests {
    @Test func metadataFieldsAreEscapedLikeTheMessage() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(listener); unlink(path) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        let handler = try #require(JournalLogHandler(label: "test", level: LogLevelSetting(.info),
                                                     environment: ["JOURNAL_STREAM": "1:1", "MOTIOND_JOURNAL_SOCKET": path]))
        let logger = Logger(label: "test") { _ in handler }
        logger.warning("a connection refused at a quota", metadata: ["client": "evil\u{202E}txt.exe\nMESSAGE=forged"])
        var buffer = [UInt8](repeating: 0, count: 65536)
        let received = recv(listener, &buffer, buffer.count, 0)
        try #require(received > 0)
        let datagram = String(decoding: buffer.prefix(received), as: UTF8.self)
        let field = datagram.split(separator: "\n").first { $0.hasPrefix("CLIENT=") }.map(String.init)
        #expect(field == "CLIENT=evil\\u{202e}txt.exe\\nMESSAGE=forged", "\(datagram)")
        #expect(!datagram.unicodeScalars.contains("\u{202E}"), "\(datagram)")
    }
}
