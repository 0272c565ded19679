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
