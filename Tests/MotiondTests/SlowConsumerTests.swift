import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// SPEC §5: a client that stops reading never delays the frame clock or other clients.
@Suite("Slow consumers")
struct SlowConsumerTests {
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
        for index in 0..<300 {
            _ = try await control.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": [500, 500], "damping": 0.05, "threshold": 1e-9],
            ])
        }
        // Stuck from here on (connected after the plans, so a slow machine adding them does not use up
        // the reader's 10 s grace before the measurement).
        let stuck = try stuckReader(socket: daemon.socket)
        defer { close(stuck) }
        let watcher = try await daemon.client()
        let events = EventCollector(watcher)
        _ = try await watcher.call("subscribe", ["streams": ["frames"], "targets": ["s0"]])
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
        let daemon = try await DaemonProcess()
        let control = try await daemon.client()
        for index in 0..<300 {
            _ = try await control.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": [500, 500], "damping": 0.05, "threshold": 1e-9],
            ])
        }
        // ~40 KB a frame: the socket is full within a second, then 10 s behind decide; back at 12.5 s.
        let descriptor = try stuckReader(socket: daemon.socket)
        defer { close(descriptor) }
        try await Task.sleep(for: .seconds(12.5))
        var tail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        let start = ContinuousClock.now
        var ended = false
        while !ended, ContinuousClock.now - start < .seconds(10) {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 {
                ended = true
                break
            }
            tail += buffer.prefix(count)
            if tail.count > 1 << 20 { tail.removeFirst(tail.count - (512 << 10)) }
        }
        #expect(ended, "disconnected")
        let last = String(decoding: tail.split(separator: UInt8(ascii: "\n")).last ?? [], as: UTF8.self)
        #expect(last.contains("protocol.slow_consumer"), "the last line: \(last.prefix(200))")
        await control.close()
    }

    /// Stopping does not wait for a reader whose socket is full: its last line gets a second.
    @Test func aStuckReaderDoesNotHoldUpTheStop() async throws {
        let daemon = try await DaemonProcess()
        let control = try await daemon.client()
        for index in 0..<300 {
            _ = try await control.call("plan.add", [
                "target": .string("s\(index)"),
                "plan": ["type": "Spring", "property": "position", "to": [500, 500], "damping": 0.05, "threshold": 1e-9],
            ])
        }
        let descriptor = try stuckReader(socket: daemon.socket)
        defer { close(descriptor) }
        try await Task.sleep(for: .seconds(1.5))  // its socket is full by now
        let start = ContinuousClock.now
        let status = await daemon.stop(signal: SIGTERM)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        #expect(status == 0)
        #expect(seconds < 3.5, "stopped in \(seconds) s")
    }
}
