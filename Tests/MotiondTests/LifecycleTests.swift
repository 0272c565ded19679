import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

@Suite("Daemon lifecycle")
struct LifecycleTests {
    @Test func sigtermClosesSubscribersWithAFinalEventExitsZeroAndRemovesTheSocket() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"]])
        let status = await daemon.stop(signal: SIGTERM)
        #expect(status == 0)
        let last = try await events.waitFor { $0["event"] == "error" }.last
        #expect(last?["error"]?["code"] == "server.shutting_down")
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
    }

    @Test func theSocketIsNotWorldAccessible() async throws {
        let daemon = try await DaemonProcess()
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socket)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
        #expect(await daemon.stop() == 0)
    }

    @Test func aSecondDaemonDoesNotStealALiveSocket() async throws {
        let first = try await DaemonProcess()
        let second = try await DaemonProcess(socket: first.socket, waitForSocket: false)
        let status = await second.process.exitStatus()
        #expect(status != 0)
        #expect(second.log.contains("another server is listening"))
        let client = try await first.client()
        #expect(try await Self.clients(settlingAt: 1, client) == 1)
        await client.close()
    }

    /// `status.clients`, asked again for up to 2 s until it is `expected`: connections that ended just
    /// before (the start-up check's own, a refused second daemon's) may not have been seen closing yet on
    /// a loaded machine.
    static func clients(settlingAt expected: Int, _ client: MotionClient) async throws -> Int? {
        var clients = try await client.call("status")["clients"]?.intValue
        for _ in 0..<40 where clients != expected {
            try await Task.sleep(for: .milliseconds(50))  // polls status.clients
            clients = try await client.call("status")["clients"]?.intValue
        }
        return clients
    }

    @Test func aStaleSocketFileIsReplaced() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let path = directory.appendingPathComponent("stale.sock").path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = withUnixAddress(path) { bind(descriptor, $0, $1) }
        close(descriptor)
        #expect(FileManager.default.fileExists(atPath: path))
        let daemon = try await DaemonProcess(socket: path)
        let client = try await daemon.client()
        #expect(try await Self.clients(settlingAt: 1, client) == 1)
        await client.close()
    }

    @Test func anEphemeralRuntimeEndsWithItsConnection() async throws {
        let daemon = try await DaemonProcess()
        let owner = try await daemon.client()
        _ = try await owner.call("runtime.create", ["name": "scratch", "ephemeral": true])
        _ = try await owner.call("runtime.create", ["name": "kept"])
        let observer = try await daemon.client()
        #expect(try await observer.call("status")["runtimes"] == 3)
        await owner.close()
        var runtimes: JSONValue? = nil
        for _ in 0..<100 {
            runtimes = try await observer.call("status")["runtimes"]
            if runtimes == 2 { break }
            try await Task.sleep(for: .milliseconds(20))  // polls until the ephemeral runtime has ended
        }
        #expect(runtimes == 2)
        #expect(try await observer.call("runtime.state", ["runtime": "kept"])["ephemeral"] == false)
        await observer.close()
    }
}
