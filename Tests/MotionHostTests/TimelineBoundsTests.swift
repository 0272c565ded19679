@testable import MotionEngine
import MotionWire
import Testing

/// The timeline keeps what replays need, bounded in bytes and entries (issue #16: a 900 KB plan per
/// entry, 1,000 entries kept, was +225 MB a runtime).
@Suite("Timeline bounds")
struct TimelineBoundsTests {
    @Test func aTimelineKeepsAtMost256KiBAndTheNewestEntries() {
        var timeline = Timeline(createdAt: 0)
        let large: JSONValue = ["type": "Tween", "property": "x", "to": [1], "note": .string(String(repeating: "n", count: 60_000))]
        for index in 0..<100 {
            timeline.record(TimelineEntry(time: Double(index), target: "t\(index)", change: .add(plan: large, name: nil)))
        }
        #expect(timeline.bytes <= Timeline.maximumBytes, "\(timeline.bytes)")
        #expect(timeline.entries.count == 4 && timeline.entries.last?.target == "t99", "the newest kept: \(timeline.entries.map(\.target))")
        for index in 0..<3_000 {
            timeline.record(TimelineEntry(time: Double(index), target: "s", change: .remove(name: "n")))
        }
        #expect(timeline.entries.count == Timeline.maximumEntries, "at most 1,000 entries")
        var one = Timeline(createdAt: 0)
        let huge: JSONValue = ["type": "Tween", "note": .string(String(repeating: "n", count: 400_000))]
        one.record(TimelineEntry(time: 0, target: "t", change: .add(plan: huge, name: nil)))
        #expect(one.entries.count == 1, "the newest entry stays whatever its size (a replay needs it)")
    }
}
