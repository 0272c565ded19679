@testable import MotionHost
import MotionWire
import Synchronization
import Testing

/// A client output whose backlog the test controls, recording every line.
final class RecordingOutput: ClientOutput {
    private let state = Mutex<(lines: [JSONValue], backlog: Int, closed: Bool)>(([], 0, false))
    var backlog: Int { state.withLock { $0.backlog } }
    var lines: [JSONValue] { state.withLock { $0.lines } }
    var isClosed: Bool { state.withLock { $0.closed } }
    func setBacklog(_ bytes: Int) { state.withLock { $0.backlog = bytes } }
    func send(_ line: [UInt8]) {
        let message = try! JSONValue.parse(line.dropLast())
        state.withLock { $0.lines.append(message) }
    }
    func close() { state.withLock { $0.closed = true } }
}

@Suite("Subscription hub")
struct SubscriptionHubTests {
    let store = PropertyStore()
    let hub = SubscriptionHub()
    let output = RecordingOutput()
    let session: Session

    init() {
        session = Session(id: 1, output: output)
    }

    private func subscribe(frames: Bool = true, trace: Bool = false, runtime: String? = nil, targets: Set<String>? = nil) {
        hub.add(Subscription(id: 1, session: session, frames: frames, trace: trace, runtime: runtime, targets: targets, maximumRate: nil))
    }

    private func write(_ target: String, _ value: Double, runtime: String = "default") -> UInt32 {
        let handle = store.intern(.init(runtime: runtime, target: target, property: "x"))
        let values = [value]
        store.write(handle, value: values, velocity: nil, count: 1)
        return handle
    }

    private func tick(_ time: Double) {
        hub.publishFrame(dirty: store.dirty, store: store, time: time)
        store.clearDirty()
    }

    @Test func framesCarryOnlyMatchingTargets() {
        subscribe(targets: ["a"])
        _ = write("a", 1)
        _ = write("b", 2)
        tick(1)
        let updates = output.lines.first?["updates"]?.arrayValue ?? []
        #expect(updates.count == 1)
        #expect(updates.first?["target"] == "a")
    }

    @Test func aSlowReaderGetsTheLatestValueAndADroppedCount() {
        subscribe()
        _ = write("a", 1)
        tick(1)
        output.setBacklog(hub.limits.frameHighWater + 1)
        _ = write("a", 2)
        tick(2)
        _ = write("a", 3)
        tick(3)
        #expect(output.lines.count == 1)
        output.setBacklog(0)
        _ = write("a", 4)
        tick(4)
        #expect(output.lines.count == 2)
        let frame = output.lines[1]
        #expect(frame["dropped"] == 2)
        #expect(frame["updates"]?.arrayValue?.first?["value"] == [4])
        #expect(frame["seq"] == 2)
    }

    @Test func lostTraceEventsAreAnnouncedByAGap() {
        subscribe(frames: false, trace: true)
        output.setBacklog(hub.limits.traceHighWater + 1)
        for _ in 0..<5 { hub.publish(TraceEvent(kind: "plan.added", runtime: "default", target: "a"), time: 1) }
        #expect(output.lines.isEmpty)
        output.setBacklog(0)
        #expect(hub.checkBacklogs(time: 2).isEmpty)
        #expect(output.lines.first?["event"] == "gap")
        #expect(output.lines.first?["lost"] == 5)
    }

    @Test func aReaderThatStaysBehindIsReportedForDisconnection() {
        subscribe()
        output.setBacklog(hub.limits.frameHighWater + 1)
        #expect(hub.checkBacklogs(time: 1).isEmpty)
        #expect(hub.checkBacklogs(time: 1 + hub.limits.slowConsumerSeconds + 0.1).map(\.id) == [1])
    }
}

@Suite("Frame schedule")
struct FrameScheduleTests {
    @Test func deadlinesAreAbsolute() {
        var schedule = FrameSchedule(rate: 100, start: 1_000)
        #expect(schedule.isDue(at: 1_000))
        let (dt, lateness) = schedule.begin(at: 1_500)
        #expect(dt == 500e-9 && lateness == 500)
        var overran = schedule.finish(at: 2_000)
        #expect(!overran)
        #expect(schedule.nextDeadline == 1_000 + 10_000_000)
        _ = schedule.begin(at: 10_001_500)
        overran = schedule.finish(at: 10_002_000)
        #expect(!overran)
        #expect(schedule.nextDeadline == 1_000 + 20_000_000)
    }

    @Test func aTickThatRunsPastTheNextDeadlineSkipsItAndCountsAnOverrun() {
        var schedule = FrameSchedule(rate: 100, start: 0)
        _ = schedule.begin(at: 0)
        let overran = schedule.finish(at: 25_000_000)
        #expect(overran)
        #expect(schedule.nextDeadline == 30_000_000)
    }

    @Test func statisticsReportPercentiles() {
        var statistics = TickStatistics(window: 100)
        for index in 1...100 { statistics.record(workNanos: UInt64(index) * 1_000_000, latenessNanos: 0, overrun: index == 100) }
        let summary = statistics.summary
        #expect(summary.p50Milliseconds == 50)
        #expect(summary.p99Milliseconds == 99)
        #expect(summary.overruns == 1)
    }
}
