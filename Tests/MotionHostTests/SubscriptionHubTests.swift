@testable import MotionEngine
import MotionWire
import Synchronization
import Testing

/// A client output whose backlog the test controls, recording every line.
final class RecordingOutput: ClientOutput {
    private let state = Mutex<(lines: [JSONValue], backlog: Int, closed: Bool, ownerBacklog: Int?)>(([], 0, false, nil))
    var backlog: Int { state.withLock { $0.backlog } }
    /// Its uid's connections together: its own backlog unless the test says otherwise.
    var ownerBacklog: Int { state.withLock { $0.ownerBacklog ?? $0.backlog } }
    func setOwnerBacklog(_ bytes: Int) { state.withLock { $0.ownerBacklog = bytes } }
    var lines: [JSONValue] { state.withLock { $0.lines } }
    var isClosed: Bool { state.withLock { $0.closed } }
    func setBacklog(_ bytes: Int) { state.withLock { $0.backlog = bytes } }
    func send(_ line: [UInt8]) {
        guard let message = try? JSONValue.parse(line.dropLast()) else { fatalError("not JSON: \(String(decoding: line, as: UTF8.self))") }
        // As a real connection: nothing more goes out once it is closed.
        state.withLock { if !$0.closed { $0.lines.append(message) } }
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

    /// A slow reader's pending property whose runtime was destroyed, its handle since reused by another
    /// runtime's property, is not sent to a subscriber of the first runtime.
    @Test func aReusedHandleDoesNotLeakPastTheFilterOfASlowReader() {
        subscribe(runtime: "first")
        let old = write("a", 1, runtime: "first")
        output.setBacklog(1 << 30)
        tick(1)
        #expect(output.lines.isEmpty, "held back: the reader is behind")
        store.removeAll(inRuntime: "first")
        let reused = write("secret", 2, runtime: "second")
        #expect(reused == old)
        store.clearDirty()
        output.setBacklog(0)
        _ = write("b", 3, runtime: "first")
        tick(2)
        let targets = output.lines.flatMap { $0["updates"]?.arrayValue ?? [] }.compactMap { $0["target"]?.stringValue }
        #expect(targets == ["b"])
    }

    /// Issue #45: each of a uid's readers may be under its own mark while together they pass the uid's
    /// `outputBytes`; then each with anything unsent is behind (no frames; conflated), and one with
    /// nothing unsent still gets its frames.
    @Test func aUidsReadersAreBehindTogetherPastItsOutputBytes() {
        hub.ownerBacklogLimit = 10_000
        subscribe()
        _ = write("a", 1)
        tick(1)
        #expect(output.lines.count == 1)
        output.setBacklog(100)
        output.setOwnerBacklog(20_000)
        _ = write("a", 2)
        tick(2)
        #expect(output.lines.count == 1, "behind with its uid: no frame")
        #expect(hub.checkBacklogs(time: 2).isEmpty)
        #expect(hub.checkBacklogs(time: 2 + hub.limits.slowConsumerSeconds + 0.1).map(\.id) == [session.id],
                "and cut off after the same time as one past its own mark")
        output.setBacklog(0)
        _ = write("a", 3)
        tick(3)
        #expect(output.lines.count == 2, "nothing unsent of its own: frames again, though its uid is still over")
        #expect(output.lines.last?["dropped"] == 1)
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

    /// Filtered subscribers are found through per-handle flags kept up to date as subscribers come and go
    /// and as handles are reused: each gets exactly its target's writes, whenever it subscribed.
    @Test func filteredSubscribersComingAndGoingGetExactlyTheirTargets() {
        let outputs = (0..<3).map { _ in RecordingOutput() }
        let sessions = outputs.enumerated().map { Session(id: UInt64($0.offset + 10), output: $0.element) }
        func subscription(_ index: Int, _ targets: Set<String>) -> Subscription {
            Subscription(id: 1, session: sessions[index], frames: true, trace: false, runtime: nil, targets: targets, maximumRate: nil)
        }
        func targets(_ output: RecordingOutput) -> [String] {
            (output.lines.last?["updates"]?.arrayValue ?? []).compactMap { $0["target"]?.stringValue }.sorted()
        }
        for target in ["a", "b", "c"] { _ = write(target, 1) }
        tick(1)
        let first = subscription(0, ["a"])
        hub.add(first)
        for target in ["a", "b", "c"] { _ = write(target, 2) }
        tick(2)
        #expect(targets(outputs[0]) == ["a"], "properties that existed before it subscribed")
        hub.remove(first)
        let second = subscription(1, ["b"])
        hub.add(second)
        for target in ["a", "b", "c"] { _ = write(target, 3) }
        tick(3)
        #expect(outputs[0].lines.count == 1)
        #expect(targets(outputs[1]) == ["b"])
        hub.remove(second)
        for target in ["a", "b", "c"] { _ = write(target, 4) }
        tick(4)
        #expect(outputs[1].lines.count == 1, "no filtered subscriber left")
        // From none to one again; then a handle reused for another target.
        let third = subscription(2, ["c", "d"])
        hub.add(third)
        store.remove([store.handle(for: .init(runtime: "default", target: "a", property: "x"))!])
        _ = write("d", 5)
        for target in ["b", "c"] { _ = write(target, 5) }
        tick(5)
        #expect(targets(outputs[2]) == ["c", "d"])
    }

    /// What a keeping tick is told is read: a flag per handle and the same handles as a list, equal through
    /// subscribers coming and going, new properties and a handle reused for another target.
    @Test func theReadListIsTheReadFlags() {
        func reads() -> (flagged: Set<UInt32>, listed: [UInt32])? {
            var result: (Set<UInt32>, [UInt32])?
            hub.withTickReaders(store) { unread, read, list in
                guard unread, let read, let list else { return }
                result = (Set(read.indices.filter { read[$0] != 0 }.map(UInt32.init)), Array(list))
            }
            return result
        }
        func check(_ expected: Set<String>, _ comment: Comment) {
            guard let (flagged, listed) = reads() else {
                Issue.record("no read flags: \(comment)")
                return
            }
            #expect(listed.count == Set(listed).count && Set(listed) == flagged, comment)
            #expect(Set(flagged.compactMap { store.keys[Int($0)]?.target }) == expected, comment)
        }
        for target in ["a", "b", "c"] { _ = write(target, 1) }
        let first = Subscription(id: 1, session: session, frames: true, trace: false, runtime: nil, targets: ["a", "b"], maximumRate: nil)
        hub.add(first)
        hub.updateWatch(store)
        check(["a", "b"], "one subscriber of a and b")
        let second = Subscription(id: 2, session: session, frames: true, trace: false, runtime: nil, targets: ["c", "d"], maximumRate: nil)
        hub.add(second)
        hub.updateWatch(store)
        _ = write("d", 1)
        check(["a", "b", "c", "d"], "a second, and d's property made since")
        hub.remove(first)
        hub.updateWatch(store)
        check(["c", "d"], "the first went")
        store.remove([store.handle(for: .init(runtime: "default", target: "c", property: "x"))!])
        _ = write("e", 1)
        _ = write("c", 2)
        check(["c", "d"], "c's handle reused for e, c given another")
        hub.remove(second)
        let third = Subscription(id: 3, session: session, frames: true, trace: false, runtime: nil, targets: ["e"], maximumRate: nil)
        hub.add(third)
        hub.updateWatch(store)
        check(["e"], "from none to one again (the flags cleared at once)")
    }

    /// A frame larger than the high-water mark may be on its way while the next is sent (a reader that
    /// keeps up with 6 MB frames still holds one when the next tick comes); more than that is behind.
    @Test func oneFrameOnItsWayIsNotBehind() {
        var limits = SubscriptionHub.Limits()
        limits.frameHighWater = 64
        let hub = SubscriptionHub(limits: limits)
        hub.add(Subscription(id: 1, session: session, frames: true, trace: false, runtime: nil, targets: nil, maximumRate: nil))
        func tick(_ time: Double) {
            hub.publishFrame(dirty: store.dirty, store: store, time: time)
            store.clearDirty()
        }
        for index in 0..<10 { _ = write("t\(index)", 1) }
        tick(1)
        #expect(output.lines.count == 1)
        let frameBytes = session.lastFrameBytes
        #expect(frameBytes > 64)
        output.setBacklog(frameBytes)
        for index in 0..<10 { _ = write("t\(index)", 2) }
        tick(2)
        #expect(output.lines.count == 2, "one frame unsent: the next goes")
        output.setBacklog(2 * frameBytes)
        for index in 0..<10 { _ = write("t\(index)", 3) }
        tick(3)
        #expect(output.lines.count == 2, "two frames unsent: behind, the values wait")
        output.setBacklog(0)
        tick(4)
        #expect(output.lines.count == 3)
        #expect(output.lines.last?["updates"]?.arrayValue?.first?["value"] == [3])
    }

    /// Up-to-date subscribers with one filter share one encoding of the updates; each frame keeps its
    /// own header, and a subscriber that was behind or filters differently gets its own updates.
    @Test func subscribersOfOneFilterShareTheUpdatesButNotTheHeader() {
        let outputs = (0..<4).map { _ in RecordingOutput() }
        let sessions = outputs.enumerated().map { Session(id: UInt64($0.offset + 10), output: $0.element) }
        hub.add(Subscription(id: 1, session: sessions[0], frames: true, trace: false, runtime: nil, targets: ["a", "b"], maximumRate: nil))
        hub.add(Subscription(id: 2, session: sessions[1], frames: true, trace: false, runtime: nil, targets: ["a", "b"], maximumRate: nil))
        hub.add(Subscription(id: 3, session: sessions[2], frames: true, trace: false, runtime: nil, targets: ["b"], maximumRate: nil))
        hub.add(Subscription(id: 4, session: sessions[3], frames: true, trace: false, runtime: nil, targets: ["a", "b"], maximumRate: nil))
        _ = write("a", 1)
        tick(1)
        outputs[3].setBacklog(hub.limits.frameHighWater + 1)
        _ = write("a", 2)
        _ = write("b", 3)
        _ = write("c", 4)
        tick(2)
        outputs[3].setBacklog(0)
        _ = write("b", 5)
        tick(3)
        func frames(_ index: Int) -> [(sub: Int?, seq: Int?, dropped: Int?, updates: [String])] {
            outputs[index].lines.map { frame in
                (frame["sub"]?.intValue, frame["seq"]?.intValue, frame["dropped"]?.intValue,
                 (frame["updates"]?.arrayValue ?? []).map { "\($0["target"]?.stringValue ?? "?")=\($0["value"]?.arrayValue?.first?.doubleValue ?? -1)" })
            }
        }
        #expect(frames(0).map(\.updates) == [["a=1.0"], ["a=2.0", "b=3.0"], ["b=5.0"]])
        #expect(frames(1).map(\.updates) == frames(0).map(\.updates))
        #expect(frames(0).map(\.sub) == [1, 1, 1] && frames(1).map(\.sub) == [2, 2, 2])
        #expect(frames(1).map(\.seq) == [1, 2, 3])
        #expect(frames(2).map(\.updates) == [["b=3.0"], ["b=5.0"]], "its own filter")
        #expect(frames(3).map(\.updates) == [["a=1.0"], ["a=2.0", "b=5.0"]], "behind: the latest of what it missed")
        #expect(frames(3).last?.dropped == 1)
    }

    @Test func aFrameWhosePropertiesWentAwayIsNotSentAndLeavesNoSequenceGap() {
        subscribe(runtime: "r")
        _ = write("elsewhere", 0)
        _ = write("a", 1, runtime: "r")
        tick(1)
        output.setBacklog(hub.limits.frameHighWater + 1)
        _ = write("a", 2, runtime: "r")
        tick(2)
        store.removeAll(inRuntime: "r")
        output.setBacklog(0)
        _ = write("elsewhere", 3)
        tick(3)
        #expect(output.lines.count == 1, "nothing left to send")
        _ = write("a", 4, runtime: "r")
        tick(4)
        #expect(output.lines.map { $0["seq"] } == [1, 2])
        #expect(output.lines.last?["updates"]?.arrayValue?.first?["value"] == [4])
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

    /// A subscriber whose frame waits (its `maxRate` not due) keeps the clock running until it is sent;
    /// once it left, nothing is owed. The count of waiting frames stayed up when it was the last frame
    /// subscriber, and the clock ticked at 120 Hz with nothing to do until another one came.
    @Test func noFrameIsOwedOnceTheLastSubscriberLeft() {
        let subscription = Subscription(id: 1, session: session, frames: true, trace: false, runtime: nil, targets: nil,
                                        maximumRate: 0.5)
        hub.add(subscription)
        _ = write("a", 1)
        hub.publishFrame(dirty: store.dirty, store: store, time: 1)
        store.clearDirty()
        _ = write("a", 2)
        hub.publishFrame(dirty: store.dirty, store: store, time: 1.1)
        store.clearDirty()
        #expect(hub.hasDeferredFrames, "its second frame waits for its rate")
        hub.remove(subscription)
        hub.publishFrame(dirty: store.dirty, store: store, time: 1.2)
        #expect(!hub.hasDeferredFrames)
    }
}

@Suite("Frame schedule")
struct FrameScheduleTests {
    @Test func deadlinesAreAbsolute() {
        var schedule = FrameSchedule(rate: 100, start: 1_000, previous: 1_000)
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
        var schedule = FrameSchedule(rate: 100, start: 0, previous: 0)
        _ = schedule.begin(at: 0)
        let overran = schedule.finish(at: 25_000_000)
        #expect(overran)
        #expect(schedule.nextDeadline == 30_000_000)
    }

    /// Started by the first animation (its first values went out in a control frame): the first tick is a
    /// period later with a period's dt, not microseconds later repeating those values.
    @Test func aScheduleStartedFromRestTicksFirstAPeriodLater() {
        var schedule = FrameSchedule(rate: 100, start: 1_000)
        #expect(!schedule.isDue(at: 1_000) && !schedule.isDue(at: 10_000_999))
        #expect(schedule.isDue(at: 10_001_000))
        let (dt, lateness) = schedule.begin(at: 10_001_000)
        #expect(dt == 0.01 && lateness == 0)
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
