import MotionEngine
@testable import MotionHost
import Testing

/// The engine thread's inbox: the daemon's commands first, then uids' lanes by the engine time they used.
@Suite("Command queue")
struct CommandQueueTests {
    typealias Queue = CommandQueue<String>

    /// Takes everything waiting, charging each command `cost(command)` nanoseconds; the order taken.
    static func drain(_ queue: Queue, cost: (String) -> UInt64) -> [String] {
        var order: [String] = []
        while let (command, lane, _, _) = queue.take(until: 0) {
            order.append(command)
            queue.charge(lane, nanos: cost(command))
        }
        return order
    }

    /// A command pushed `first` is its lane's next (a journal group's next slice is not queued behind
    /// the backlog of the uid whose entry comes next); lanes still take turns.
    @Test func aCommandPushedFirstIsItsLanesNext() {
        let queue = Queue()
        for index in 0..<3 { queue.push("a\(index)", lane: .uid(1000)) }
        queue.push("b0", lane: .uid(2000))
        queue.push("slice", lane: .uid(1000), first: true)
        let order = Self.drain(queue) { _ in 1_000_000 }
        #expect(order == ["slice", "b0", "a0", "a1", "a2"], "\(order)")
    }

    @Test func lanesTakeTurnsByTheTimeTheyUsed() {
        let queue = Queue()
        for index in 0..<6 { queue.push("a\(index)", lane: .uid(1000), bytes: 100) }
        queue.push("b0", lane: .uid(2000), bytes: 10)
        queue.push("b1", lane: .uid(2000), bytes: 10)
        queue.push("daemon", lane: .daemon)
        #expect(queue.bytes(of: .uid(1000)) == 600 && queue.bytes(of: .uid(2000)) == 20)
        // Uid 1000's commands cost 3 ms each, uid 2000's 1 ms: 2000 is served whenever it has used less.
        let order = Self.drain(queue) { $0.hasPrefix("a") ? 3_000_000 : 1_000_000 }
        #expect(order == ["daemon", "a0", "b0", "b1", "a1", "a2", "a3", "a4", "a5"], "\(order)")
        #expect(queue.bytes(of: .uid(1000)) == 0)
    }

    /// A lane that was idle starts from where the others are: the time it did not use is not credit.
    @Test func idleTimeIsNotCredit() {
        let queue = Queue()
        for index in 0..<4 { queue.push("a\(index)", lane: .uid(1)) }
        #expect(Self.drain(queue) { _ in 1_000_000 } == ["a0", "a1", "a2", "a3"])
        for index in 4..<7 { queue.push("a\(index)", lane: .uid(1)) }
        for index in 0..<3 { queue.push("b\(index)", lane: .uid(2)) }
        let order = Self.drain(queue) { _ in 1_000_000 }
        #expect(order == ["a4", "b0", "a5", "b1", "a6", "b2"] || order == ["b0", "a4", "b1", "a5", "b2", "a6"], "\(order)")
    }

    /// Within a lane, the order they came; a deadline with nothing waiting returns nil.
    @Test func aLaneKeepsItsOrder() {
        let queue = Queue()
        #expect(queue.take(until: 0) == nil)
        for index in 0..<50 { queue.push("\(index)", lane: .uid(nil)) }
        #expect(Self.drain(queue) { _ in 1 } == (0..<50).map { "\($0)" })
    }

    /// With many idle lanes ahead (each forgotten once the others catch up), the lane just taken keeps
    /// its charge: a uid sending one request at a time is charged like any other.
    @Test func theLaneJustTakenKeepsItsChargeAmongManyIdleOnes() {
        let queue = Queue()
        for uid in 1...300 { queue.push("idle\(uid)", lane: .uid(UInt32(uid))) }
        _ = Self.drain(queue) { _ in 1_000_000 }
        queue.push("x0", lane: .uid(5000))
        #expect(Self.drain(queue) { _ in 5_000_000 } == ["x0"])
        queue.push("x1", lane: .uid(5000))
        queue.push("b0", lane: .uid(6000))
        #expect(Self.drain(queue) { _ in 1_000_000 } == ["b0", "x1"], "x used 5 ms; b none")
    }

    /// docs/protocol.md#ownership-and-quotas: a uid past its share of engine time (`quotas.enginePercent`
    /// of every frame interval) waits for its next share while another uid's commands and the daemon's
    /// run; what one uid overdrew holds the others up for about one interval at most.
    @Test func aUIDPastItsShareOfEngineTimeWaitsWhileOthersRun() throws {
        let queue = Queue(interval: 8_333_333)
        for index in 0..<3 { queue.push("a\(index)", lane: .uid(1000)) }
        queue.push("b0", lane: .uid(2000))
        let first = try #require(queue.take(until: 0))
        #expect(first.command == "a0")
        // One command of 10 s (an unsliced plugin call): uid 1000 is past its share for 20 s at 50 %.
        queue.charge(first.lane, nanos: 10_000_000_000)
        // Uid 2000 runs within about an interval (the common share it overdrew), uid 1000 not at all.
        let second = try #require(queue.take(until: WorkClock.now() + 2_000_000_000))
        #expect(second.command == "b0" && second.lane == .uid(2000))
        queue.charge(second.lane, nanos: 1_000)
        #expect(queue.take(until: WorkClock.now() + 30_000_000) == nil, "uid 1000 waits for its share")
        #expect(queue.take(until: 0, unlessWaiting: true) == nil)
        queue.push("daemon", lane: .daemon)
        #expect(queue.take(until: 0)?.command == "daemon", "the daemon's own commands are not budgeted")
    }

    /// Within its share a lane takes commands back to back: a budget is time, not a count.
    @Test func withinItsShareALaneRunsBackToBack() {
        let queue = Queue(interval: 8_333_333)
        for index in 0..<100 { queue.push("a\(index)", lane: .uid(1000)) }
        // 100 commands of 10 µs: 1 ms, within half an interval.
        let order = Self.drain(queue) { _ in 10_000 }
        #expect(order.count == 100)
    }

    /// What a socket thread spent parsing a uid's request is taken from that uid's share: a flood of lines
    /// that cost little on the engine thread but much to read waits too.
    @Test func parsingIsPaidFromTheUIDsShare() {
        let queue = Queue(interval: 8_333_333)
        queue.push("costly", lane: .uid(1000), parsing: 10_000_000_000)
        queue.push("cheap", lane: .uid(2000), parsing: 1_000)
        #expect(queue.take(until: 0)?.command == "cheap")
        #expect(queue.take(until: 0, unlessWaiting: true) == nil, "uid 1000 waits for the share its parsing used")
    }

    /// The next slice of work under way (pushed `first`: a journal group holding every uid's journaled
    /// changes) runs though its lane is past its share; the lane's other commands still wait.
    @Test func aContinuationRunsPastTheShare() throws {
        let queue = Queue(interval: 8_333_333)
        queue.push("a0", lane: .uid(1000))
        queue.push("a1", lane: .uid(1000))
        let first = try #require(queue.take(until: 0))
        queue.charge(first.lane, nanos: 10_000_000_000)
        queue.push("slice", lane: .uid(1000), first: true)
        #expect(queue.take(until: WorkClock.now() + 2_000_000_000)?.command == "slice")
        #expect(queue.take(until: 0, unlessWaiting: true) == nil, "a1 waits for the share")
    }

    /// A control frame is paid by the lanes whose commands it carries, in proportion to their commands'
    /// time, and the next frame starts from nothing.
    @Test func aControlFrameIsPaidByTheCommandsItCarries() {
        var shares = ControlFrameShares<Queue.Lane>()
        shares.add(.uid(1000), nanos: 3_000_000)
        shares.add(.uid(2000), nanos: 1_000_000)
        shares.add(.uid(1000), nanos: 4_000_000)
        var charged: [(Queue.Lane, UInt64)] = []
        shares.settle(16_000_000) { charged.append(($0, $1)) }
        #expect(charged.count == 2)
        #expect(charged.first { $0.0 == .uid(1000) }?.1 == 14_000_000, "\(charged)")
        #expect(charged.first { $0.0 == .uid(2000) }?.1 == 2_000_000, "\(charged)")
        charged.removeAll()
        shares.settle(5_000_000) { charged.append(($0, $1)) }
        #expect(charged.isEmpty, "a frame no command ran before is nobody's: \(charged)")
    }

    /// Paid, a uid's frames count against its share of engine time: the lane that paid for a costly
    /// frame waits behind another that did not.
    @Test func aPaidControlFrameCountsAgainstTheLanesShare() {
        let queue = Queue()
        queue.push("a0", lane: .uid(1000))
        queue.push("a1", lane: .uid(1000))
        queue.push("b0", lane: .uid(2000))
        queue.push("b1", lane: .uid(2000))
        var shares = ControlFrameShares<Queue.Lane>()
        var order: [String] = []
        while let (command, lane, _, _) = queue.take(until: 0) {
            order.append(command)
            queue.charge(lane, nanos: 1_000_000)
            shares.add(lane, nanos: 1_000_000)
            // Uid 1000's first command changed what 1,000 subscriptions see: its frame costs 20 ms.
            shares.settle(command == "a0" ? 20_000_000 : 0) { queue.charge($0, nanos: $1) }
        }
        #expect(order == ["a0", "b0", "b1", "a1"], "\(order)")
    }
}
