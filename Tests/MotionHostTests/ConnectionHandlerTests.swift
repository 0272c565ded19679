import Dispatch
import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import NIOCore
import NIOEmbedded
import NIOExtras
import Synchronization
import Testing

/// The connection handler in NIO's thread-safe testing channel, with a real engine thread behind it: the
/// line limit, half-close and request backpressure without a socket (the live tests cover the socket).
@Suite("Connection handler (NIOAsyncTestingChannel)")
struct ConnectionHandlerTests {
    static let limit = 256

    /// An engine thread with the fake plugin, and a channel whose pipeline is the server's.
    static func connection(helloTimeout: TimeAmount = .seconds(5), lineTimeout: TimeAmount = .seconds(10),
                           limiter: ConnectionLimiter = ConnectionLimiter(.init(total: 8, perUser: 8)),
                           inputBytes: Int? = nil) async throws -> (NIOAsyncTestingChannel, EngineLoop) {
        let loop = EngineLoop(rate: 120)
        _ = await loop.start {
            let harness = try! EngineHarness()
            return (EngineContext(engine: harness.engine, settings: EngineSettings(maximumLineLength: limit), logger: Logger(label: "test")), ())
        }
        if let inputBytes { loop.inputBytesQuota.store(inputBytes, ordering: .relaxed) }
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try SocketServer.addConnectionHandlers(
                to: channel.pipeline.syncOperations, loop: loop, maximumLineLength: limit,
                policy: AccessPolicy(adminGroup: nil, groupsOfUser: { _, _ in [] }), limiter: limiter,
                helloTimeout: helloTimeout, lineTimeout: lineTimeout)
        }
        try await channel.connect(to: SocketAddress(unixDomainSocketPath: "/motiond-test")).get()
        return (channel, loop)
    }

    static func send(_ channel: NIOAsyncTestingChannel, _ text: String) async throws {
        try await channel.writeInbound(ByteBuffer(string: text))
    }

    /// The lines written to the client so far, waiting up to `timeout` for at least `count` of them.
    /// Waits for `count` lines at most `timeout`: long by default (a failure's bound, not a speed: the in-process
    /// suite beside a CPU-bound process once kept a hello's reply past 5 s).
    static func lines(_ channel: NIOAsyncTestingChannel, atLeast count: Int, timeout: Duration = .seconds(30)) async throws -> [JSONValue] {
        var lines: [JSONValue] = []
        let deadline = ContinuousClock.now + timeout
        while lines.count < count, ContinuousClock.now < deadline {
            await channel.testingEventLoop.run()
            while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
                for line in String(buffer: buffer).split(separator: "\n") { lines.append(try JSONValue.parse(String(line))) }
            }
            if lines.count < count { try await Task.sleep(for: .milliseconds(2)) }  // polls: replies come from the real engine thread
        }
        return lines
    }

    static func waitUntilClosed(_ channel: NIOAsyncTestingChannel, timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while channel.isActive, ContinuousClock.now < deadline {
            await channel.testingEventLoop.run()
            try await Task.sleep(for: .milliseconds(2))  // polls: the close may wait for the real engine thread's answers
        }
        return !channel.isActive
    }

    @Test func aConnectionThatNeverSaysHelloIsClosedAfterFiveSeconds() async throws {
        let (silent, loop) = try await Self.connection()
        let (greeted, other) = try await Self.connection()
        try await Self.send(greeted, #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n")
        _ = try await Self.lines(greeted, atLeast: 1)
        await silent.testingEventLoop.advanceTime(by: .milliseconds(4_900))
        #expect(silent.isActive, "not before 5 s")
        await silent.testingEventLoop.advanceTime(by: .milliseconds(200))
        await greeted.testingEventLoop.advanceTime(by: .seconds(6))
        let lines = try await Self.lines(silent, atLeast: 1)
        #expect(lines.first?["error"]?["code"] == "protocol.hello_timeout", "\(lines)")
        #expect(try await Self.waitUntilClosed(silent))
        #expect(greeted.isActive, "a client that said hello stays")
        await loop.stop()
        await other.stop()
    }

    @Test func aRefusedHelloDoesNotKeepTheConnection() async throws {
        let (channel, loop) = try await Self.connection()
        try await Self.send(channel, #"{"id":1,"method":"hello","params":{"protocol":2}}"# + "\n")
        #expect(try await Self.lines(channel, atLeast: 1).first?["error"]?["code"] == "protocol.unsupported_version")
        await channel.testingEventLoop.advanceTime(by: .seconds(6))
        let lines = try await Self.lines(channel, atLeast: 1)
        #expect(lines.first?["error"]?["code"] == "protocol.hello_timeout", "\(lines)")
        #expect(try await Self.waitUntilClosed(channel))
        await loop.stop()
    }

    @Test func adminsGetInPastTheCaps() {
        let limiter = ConnectionLimiter(.init(total: 2, perUser: 1))
        func refusal(_ uid: UInt32, isAdmin: Bool = false) -> String? {
            if case .refused(let code, _) = limiter.admit(uid: uid, isAdmin: isAdmin) { return code.rawValue }
            return nil
        }
        #expect(refusal(1000) == nil)
        #expect(refusal(1000) == "quota.exceeded", "per-user cap: the uid's quota")
        #expect(refusal(1001) == nil)
        #expect(refusal(1002) == "server.connection_limit", "total cap")
        #expect(refusal(1003, isAdmin: true) == nil, "an admin still gets in")
        #expect(refusal(1003, isAdmin: true) == "quota.exceeded", "admins keep their own per-user cap")
    }

    @Test func theConnectionsOfOneUidShareOneLedger() {
        let limiter = ConnectionLimiter(.init(total: 8, perUser: 8))
        guard case .admitted(let first) = limiter.admit(uid: 1000), case .admitted(let second) = limiter.admit(uid: 1000),
              case .admitted(let other) = limiter.admit(uid: 1001) else { Issue.record("refused"); return }
        #expect(first === second && first !== other)
        limiter.release(uid: 1000)
        limiter.release(uid: 1000)
        guard case .admitted(let again) = limiter.admit(uid: 1000) else { Issue.record("refused"); return }
        #expect(again !== first, "a uid with no connection left starts a fresh ledger")
    }

    /// Issue #45: a line must arrive whole within its deadline of its first byte, however slowly it trickles.
    @Test func aLineUnfinishedPastItsDeadlineClosesTheConnection() async throws {
        let (channel, loop) = try await Self.connection(lineTimeout: .seconds(10))
        try await Self.send(channel, #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n")
        #expect(try await Self.lines(channel, atLeast: 1).first?["result"]?["protocol"] == 1)
        try await Self.send(channel, #"{"id":2,"method":"st"#)
        for _ in 0..<3 {
            await channel.testingEventLoop.advanceTime(by: .seconds(3))
            try await Self.send(channel, "a")
        }
        #expect(channel.isActive, "9 s into the line: still open")
        await channel.testingEventLoop.advanceTime(by: .seconds(2))
        let lines = try await Self.lines(channel, atLeast: 1)
        #expect(lines.first?["error"]?["code"] == "protocol.line_timeout" && lines.first?["event"] == "error", "a closing event: \(lines)")
        #expect(try await Self.waitUntilClosed(channel))
        await loop.stop()
    }

    @Test func wholeLinesKeepTheConnectionOpenAndTheClockStartsWithEachLine() async throws {
        let (channel, loop) = try await Self.connection(lineTimeout: .seconds(10))
        try await Self.send(channel, #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n" + #"{"id":2,"#)
        await channel.testingEventLoop.advanceTime(by: .seconds(8))
        try await Self.send(channel, #""method":"sync"}"# + "\n" + #"{"id":3,"#)
        await channel.testingEventLoop.advanceTime(by: .seconds(8))
        try await Self.send(channel, #""method":"sync"}"# + "\n")
        await channel.testingEventLoop.advanceTime(by: .seconds(30))
        let lines = try await Self.lines(channel, atLeast: 3)
        #expect(lines.map { $0["id"] } == [1, 2, 3], "\(lines)")
        #expect(channel.isActive)
        await loop.stop()
    }

    /// Issue #45: unfinished lines are counted against the uid's `inputBytes`, across its connections.
    @Test func unfinishedLinesPastTheInputQuotaAreRefused() async throws {
        let (channel, loop) = try await Self.connection(inputBytes: 100)
        try await Self.send(channel, #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n")
        #expect(try await Self.lines(channel, atLeast: 1).first?["result"]?["protocol"] == 1)
        try await Self.send(channel, String(repeating: "x", count: 60))
        #expect(channel.isActive)
        try await Self.send(channel, String(repeating: "x", count: 60))
        let lines = try await Self.lines(channel, atLeast: 1)
        #expect(lines.first?["error"]?["code"] == "quota.exceeded", "\(lines)")
        #expect(lines.first?["error"]?["message"]?.stringValue?.contains("inputBytes") == true, "\(lines)")
        #expect(try await Self.waitUntilClosed(channel))
        await loop.stop()
    }

    @Test func aLineOverTheLimitIsRefusedAndOnlyThatConnectionCloses() async throws {
        let (channel, loop) = try await Self.connection()
        try await Self.send(channel, #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n")
        #expect(try await Self.lines(channel, atLeast: 1).first?["result"]?["protocol"] == 1)
        try await Self.send(channel, String(repeating: "x", count: Self.limit + 10))
        let refusal = try await Self.lines(channel, atLeast: 1)
        #expect(refusal.first?["error"]?["code"] == "protocol.too_large", "\(refusal)")
        #expect(try await Self.waitUntilClosed(channel))
        await loop.stop()
    }

    @Test func afterHalfCloseEveryRequestIsAnsweredThenTheConnectionCloses() async throws {
        let (channel, loop) = try await Self.connection()
        // The last line has no "\n": it counts once the input ends.
        try await Self.send(channel, #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n" + #"{"id":2,"method":"status"}"#)
        try await channel.testingEventLoop.executeInContext {
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        let replies = try await Self.lines(channel, atLeast: 2)
        #expect(replies.map { $0["id"] } == [1, 2], "\(replies)")
        #expect(replies.last?["result"]?["version"] != nil)
        #expect(try await Self.waitUntilClosed(channel), "closed once nothing more is owed")
        await loop.stop()
    }

    @Test func aClientThatOutrunsTheEngineIsNotReadUntilItCatchesUp() async throws {
        let (channel, loop) = try await Self.connection()
        try await Self.send(channel, #"{"id":0,"method":"hello","params":{"protocol":1}}"# + "\n")
        #expect(try await Self.lines(channel, atLeast: 1, timeout: .seconds(60)).first?["id"] == 0, "the hello's answer first")
        // Hold the engine thread: requests queue up behind it.
        let gate = Gate()
        loop.submit { _ in gate.wait() }
        for id in 1...(ConnectionHandler.maximumPendingRequests + 10) {
            try await Self.send(channel, #"{"id":\#(id),"method":"sync"}"# + "\n")
        }
        func autoRead() -> Bool? {
            channel.options.last { $0.option is ChannelOptions.Types.AutoReadOption }?.value as? Bool
        }
        await channel.testingEventLoop.run()
        #expect(autoRead() == false, "reading paused while the engine is behind")
        gate.open()
        let replies = try await Self.lines(channel, atLeast: ConnectionHandler.maximumPendingRequests + 10)
        #expect(replies.count == ConnectionHandler.maximumPendingRequests + 10, "every queued request is answered")
        await channel.testingEventLoop.advanceTime(by: .milliseconds(10))
        #expect(autoRead() == true, "reading resumes once the engine has caught up")
        await loop.stop()
    }

    /// Requests that wait behind a connection's sliced work (or the journal's replay at start) are not
    /// answered yet: they count as in flight, so a client that pipelines behind a long dry run is not
    /// read past the bound either (before, each was handed over at once and waited in memory unbounded).
    @Test func requestsWaitingBehindSlicedWorkPauseReadingToo() async throws {
        let (channel, loop) = try await Self.connection()
        try await Self.send(channel, #"{"id":0,"method":"hello","params":{"protocol":1}}"# + "\n")
        // Its answer first (on a loaded machine it came after 5 s, and was then taken for an early answer).
        let hello = try await Self.lines(channel, atLeast: 1, timeout: .seconds(60))
        #expect(hello.first?["id"] == 0, "\(hello)")
        let held = HeldWork()
        await loop.perform { context in
            // Its slices come back through the loop, as in the daemon (without the hook they run at once).
            context.hooks.onEngineThreadFor = { uid, first, body in loop.submit(uid: uid, first: first, body) }
            guard let session = context.sessions.values.first else { return }
            context.dryRuns.perform(held, for: session, replyingTo: 999)
        }
        func autoRead() -> Bool? {
            channel.options.last { $0.option is ChannelOptions.Types.AutoReadOption }?.value as? Bool
        }
        let count = ConnectionHandler.maximumPendingRequests + 10
        for id in 1...count {
            try await Self.send(channel, #"{"id":\#(id),"method":"sync"}"# + "\n")
        }
        await channel.testingEventLoop.run()
        #expect(autoRead() == false, "reading paused while requests wait behind the work")
        #expect(try await Self.lines(channel, atLeast: 1, timeout: .milliseconds(50)).isEmpty, "nothing answered before the work")
        held.release()
        let replies = try await Self.lines(channel, atLeast: count + 1)
        #expect(replies.first?["id"] == 999 && replies.count == count + 1, "the work's answer, then every waiting request in order")
        #expect(replies.dropFirst().map { $0["id"]?.doubleValue ?? 0 } == (1...count).map(Double.init))
        await channel.testingEventLoop.advanceTime(by: .milliseconds(10))
        #expect(autoRead() == true, "reading resumes once they are answered")
        await loop.stop()
    }
}

/// Sliced work that goes on until released from another thread.
final class HeldWork: SlicedWork, Sendable {
    private let released = Atomic<Bool>(false)
    func release() { released.store(true, ordering: .relaxed) }
    func work(in context: EngineContext, until deadline: UInt64) throws(EngineError) -> Bool { released.load(ordering: .relaxed) }
    func finish(in context: EngineContext) throws(EngineError) -> SlicedAnswer { .result(["held": true]) }
    func end(in context: EngineContext) {}
}

/// Blocks one thread until opened from another.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func wait() { semaphore.wait() }
    func open() { semaphore.signal() }
}
