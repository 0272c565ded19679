import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/protocol.md: a client that stops reading never delays the frame clock or other clients.
@Suite("Slow consumers")
struct SlowConsumerTests {
    /// Reads as fast as it can until the end of the stream (or 10 s): whether it ended, and the last bytes.
    /// On a thread of its own: a blocking read on one of the few cooperative threads starved the tests
    /// beside it (and the task that stops the daemon this read waits for).
    private static func readToTheEnd(_ descriptor: Int32) async throws -> (ended: Bool, tail: [UInt8]) {
        try await onOwnThread { readToTheEndBlocking(descriptor) }
    }

    private static func readToTheEndBlocking(_ descriptor: Int32) -> (ended: Bool, tail: [UInt8]) {
        var tail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(10) {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return (true, tail) }
            tail += buffer.prefix(count)
            if tail.count > 1 << 20 { tail.removeFirst(tail.count - (512 << 10)) }
        }
        return (false, tail)
    }

    /// motiond streaming 300 moving springs, and a subscriber that has not read since it subscribed 1.5 s
    /// ago: its socket is full.
    private func daemonWithAStuckReader() async throws -> (DaemonProcess, Int32) {
        let daemon = try await DaemonProcess()
        let control = try await daemon.client()
        try await addMovingSprings(300, through: control)
        await control.close()
        let descriptor = try stuckReader(socket: daemon.socket)
        // Real time: the stuck reader's socket buffers fill with 1.5 s of frames of the real clock.
        try await Task.sleep(for: .seconds(1.5))
        return (daemon, descriptor)
    }

    /// Springs that keep moving (barely damped, never at rest): a frame of each, every tick.
    private func addMovingSprings(_ count: Int, through control: MotionClient) async throws {
        for index in 0..<count {
            _ = try await control.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": [500, 500], "damping": 0.05, "threshold": 1e-9],
            ])
        }
    }

    /// A connection that subscribes to every frame and then never reads a byte.
    private func stuckReader(socket path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let status = withUnixAddress(path) { connect(descriptor, $0, $1) }
        guard status == 0 else { throw Failure("cannot connect") }
        let lines = #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n" + #"{"id":2,"method":"subscribe","params":{"streams":["frames","trace"]}}"# + "\n"
        _ = Array(lines.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        return descriptor
    }

    @Test func aReaderThatNeverReadsDoesNotSlowAnyoneElse() async throws {
        let daemon = try await DaemonProcess()
        let control = try await daemon.client()
        try await addMovingSprings(300, through: control)
        // Stuck from here on (connected after the plans, so a slow machine adding them does not use up
        // the reader's 10 s grace before the measurement).
        let stuck = try stuckReader(socket: daemon.socket)
        defer { close(stuck) }
        let watcher = try await daemon.client()
        let events = EventCollector(watcher)
        _ = try await watcher.call("subscribe", ["streams": ["frames"], "targets": ["s0"]])
        // Real time on purpose: the watcher's frame rate is measured over 2 s of the real clock.
        try await Task.sleep(for: .seconds(2.5))
        let frames = await events.events.filter { $0["event"] == "frame" }.compactMap { $0["t"]?.doubleValue }
        let window = frames.filter { $0 >= (frames.first ?? 0) + 0.25 && $0 < (frames.first ?? 0) + 2.25 }
        // 2 s at 120 Hz is 240 frames; at least 80 % must arrive while the other reader is stuck.
        #expect(window.count >= 192, "got \(window.count) frames in 2 s")
        let status = try await control.call("status")
        #expect(status["clients"] == 3, "the stuck reader is not disconnected before its 10 s grace")
        #expect(daemon.residentMegabytes < 512, "memory stays bounded: \(daemon.residentMegabytes) MiB")
        await watcher.close()
        await control.close()
    }

    /// A reader that stopped for longer than its grace and then reads again (a process stopped in a
    /// debugger, a machine waking up) finds, after what the socket held, the error that says why it was
    /// disconnected: the connection closes once that line is written, or 5 s after the decision.
    @Test func aReaderThatComesBackIsToldWhy() async throws {
        // ~40 KB a frame: the socket is full within a second, then 10 s behind decide. It reads again as
        // soon as motiond has logged its decision (well inside the 5 s, however slow the machine): watched
        // and read on a thread of its own, not by a task whose sleep may wake late on a loaded machine
        // (the suite beside a CPU-bound process once saw the connection close before its last line).
        let (daemon, descriptor) = try await daemonWithAStuckReader()
        defer { close(descriptor) }
        let (ended, tail) = try await onOwnThread {
            let start = ContinuousClock.now
            while !daemon.log.contains("disconnecting a client that stopped reading"), ContinuousClock.now - start < .seconds(30) {
                usleep(20_000)  // polls the daemon's log for its disconnect decision
            }
            return Self.readToTheEndBlocking(descriptor)
        }
        #expect(ended, "disconnected")
        let last = String(decoding: tail.split(separator: UInt8(ascii: "\n")).last ?? [], as: UTF8.self)
        #expect(last.contains("protocol.slow_consumer"), "the last line: \(last.prefix(200))")
        withExtendedLifetime(daemon) {}  // running until the end was read
    }

    /// Stopping does not wait for a reader whose socket is full: its last line gets a second (not the 5 s
    /// of a connection closed while running). Timed from the moment another client is told of the stop
    /// to the moment the stuck one's connection ends, seen without reading it (a read would let the line
    /// out and the close come sooner).
    @Test func aStuckReaderDoesNotHoldUpTheStop() async throws {
        let (daemon, descriptor) = try await daemonWithAStuckReader()
        defer { close(descriptor) }
        let other = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(other) }
        guard withUnixAddress(daemon.socket, { connect(other, $0, $1) }) == 0 else { throw Failure("cannot connect") }
        let hello = Array((#"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n").utf8)
        _ = hello.withUnsafeBytes { write(other, $0.baseAddress, $0.count) }
        try await onOwnThread {  // its hello's reply (a blocking read: off the cooperative threads)
            var reply = [UInt8](repeating: 0, count: 4096)
            _ = reply.withUnsafeMutableBytes { read(other, $0.baseAddress, $0.count) }
        }
        let stopping = Task { await daemon.stop(signal: SIGTERM) }
        /// Polls `descriptor` for `events` on a thread of its own (20 s at most): when they came.
        @Sendable func wait(for events: Int16, on descriptor: Int32) async throws -> ContinuousClock.Instant? {
            try await onOwnThread {
                let start = ContinuousClock.now
                while ContinuousClock.now - start < .seconds(20) {
                    var ready = pollfd(fd: descriptor, events: events, revents: 0)
                    if poll(&ready, 1, 20) > 0, ready.revents & (events | Int16(POLLHUP)) != 0 { return .now }
                }
                return nil
            }
        }
        let peerClosed: Int16 = 0x2000  // POLLRDHUP (_GNU_SOURCE: not imported)
        // Both watched at once: the other client is told, and the stuck reader's connection ends.
        async let toldAt = wait(for: Int16(POLLIN), on: other)
        async let endedAt = wait(for: peerClosed, on: descriptor)
        let told = try #require(try await toldAt, "the other client is told")
        let ended = try #require(try await endedAt, "the stuck reader's connection ends")
        let seconds = (ended - told) / .seconds(1)
        #expect(seconds < 3, "it ended \(seconds) s after the other client was told")
        #expect(await stopping.value == 0)
    }

    /// A subscriber reading when motiond stops finds `server.shutting_down` last: frames the engine still
    /// makes meanwhile are not sent after it. (Filtered to one spring: its socket never fills, so the line
    /// is in it before the connection closes, however slowly this test's thread gets to read.)
    @Test func aSubscriberAtTheStopFindsWhyLast() async throws {
        let daemon = try await DaemonProcess()
        let control = try await daemon.client()
        try await addMovingSprings(300, through: control)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        guard withUnixAddress(daemon.socket, { connect(descriptor, $0, $1) }) == 0 else { throw Failure("cannot connect") }
        let lines = #"{"id":1,"method":"hello","params":{"protocol":1}}"# + "\n"
            + #"{"id":2,"method":"subscribe","params":{"streams":["frames"],"targets":["s0"]}}"# + "\n"
        _ = Array(lines.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        // Real time: a second of frames fills the unread socket before the stop meets it.
        try await Task.sleep(for: .seconds(1))
        let stopping = Task { await daemon.stop(signal: SIGTERM) }
        let (ended, tail) = try await Self.readToTheEnd(descriptor)
        #expect(ended)
        let received = tail.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        #expect(received.contains { $0.contains(#""event":"frame""#) }, "frames came before")
        let notice = received.lastIndex { $0.contains("server.shutting_down") }
        #expect(received.last?.contains("server.shutting_down") == true,
                "the notice at line \(notice.map(String.init) ?? "none") of \(received.count); the last: \(received.last?.prefix(200) ?? "")")
        #expect(await stopping.value == 0)
    }
}
