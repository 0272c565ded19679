@testable import MotionEngine
import MotionWire
import Testing

/// The journal's bounds (docs/operations.md#animations-survive-a-restart durability without unbounded cost): a runtime keeps its creation and
/// newest records; one uid's runtimes keep at most `maximumOwnerBytes` of lines, its largest runtime
/// trimmed first; other uids are untouched.
@Suite("Journal keeper")
struct JournalKeeperTests {
    static func add(_ runtime: String, _ index: Int, bytes: Int) -> (JournalRecord, [UInt8]) {
        let record = JournalRecord.add(runtime: runtime, target: "t\(index)", plan: ["type": "Set", "pad": .string(String(repeating: "x", count: bytes))],
                                       name: nil, t: Double(index))
        return (record, record.line)
    }

    @Test func aRuntimeKeepsItsCreationAndNewestRecords() {
        var keeper = JournalKeeper()
        keeper.maximumRecords = 3
        let create = JournalRecord.create(runtime: "7/work", shared: false, t: 0)
        keeper.remember(create, line: create.line)
        for index in 1...5 {
            let (record, line) = Self.add("7/work", index, bytes: 10)
            keeper.remember(record, line: line)
        }
        let kept = keeper.all.first { $0.runtime == "7/work" }?.kept.map(\.record) ?? []
        #expect(kept.count == 4 && kept[0].isCreate && kept.last?.time == 5 && kept[1].time == 3, "\(kept.map(\.time))")
        #expect(keeper.totalBytes == keeper.all.flatMap(\.kept).reduce(0) { $0 + $1.line.count })
        keeper.remember(.destroy(runtime: "7/work", t: 6), line: [])
        #expect(keeper.all.isEmpty && keeper.totalBytes == 0 && keeper.ownerBytes.isEmpty)
    }

    /// One record at a time, no more than it takes (half a runtime went at once: ~44,700 acknowledged
    /// animations where a few records were enough).
    @Test func aUidPastItsBytesLosesItsOldestRecordsAndNoMore() {
        var keeper = JournalKeeper()
        keeper.maximumOwnerBytes = 200_000
        for index in 0..<50 {
            let (record, line) = Self.add("7/big", index, bytes: 10_000)
            keeper.remember(record, line: line)
        }
        let (small, smallLine) = Self.add("7/small", 0, bytes: 10_000)
        keeper.remember(small, line: smallLine)
        let (other, otherLine) = Self.add("8/theirs", 0, bytes: 150_000)
        keeper.remember(other, line: otherLine)
        let line = Self.add("7/big", 0, bytes: 10_000).1.count
        #expect((keeper.ownerBytes[7] ?? 0) <= 200_000, "\(keeper.ownerBytes)")
        #expect((keeper.ownerBytes[7] ?? 0) > 200_000 - line, "no more dropped than it takes: \(keeper.ownerBytes)")
        let dropped = keeper.takeDropped()
        #expect(dropped.map(\.runtime) == ["7/big"], "\(dropped)")
        let big = keeper.all.first { $0.runtime == "7/big" }?.kept ?? []
        #expect(big.first?.record.isCreate == true && big.last?.record.time == 49, "the newest stays")
        #expect(keeper.all.first { $0.runtime == "7/small" }?.kept.count == 2, "the smaller runtime is untouched")
        #expect(keeper.all.first { $0.runtime == "8/theirs" }?.kept.count == 2, "another uid is untouched")
    }
}
