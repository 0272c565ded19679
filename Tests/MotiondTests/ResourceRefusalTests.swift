import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// A system that refuses what a request needs (docs/protocol.md, errors): the request gets
/// `server.resources_exhausted` with the system's reason, nothing else changes, and the same request
/// succeeds once the system has it again. The refusal is real: the daemon's own descriptor limit lowered
/// with `prlimit(1)` so that `memfd_create` fails with EMFILE.
@Suite("Resource refusals")
struct ResourceRefusalTests {
    static func setDescriptorLimit(of pid: Int32, soft: String) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = ["--pid", String(pid), "--nofile=\(soft):"]
        try process.runAlone()
        let status = await process.exitStatus()
        if status != 0 { throw Failure("prlimit --nofile=\(soft): exit \(status)") }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs util-linux's prlimit"))
    func aRegionTheSystemRefusesIsAnErrorWithItsReasonAndNothingElse() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let pid = daemon.process.processIdentifier
        let original = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("Max open files") }?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.map(String.init)
        let soft = try #require(original, "the daemon's descriptor limit from /proc/\(pid)/limits")
        let subscribe: JSONValue = ["streams": ["frames"], "transport": "shm", "slots": 64]

        // No descriptor can be made: the region's memfd is refused.
        try await Self.setDescriptorLimit(of: pid, soft: "0")
        var refusal: MotionClientError?
        do { _ = try await client.call("subscribe", subscribe) } catch let error as MotionClientError { refusal = error }
        try await Self.setDescriptorLimit(of: pid, soft: soft)
        #expect(refusal?.code == "server.resources_exhausted", "\(String(describing: refusal))")
        #expect(refusal?.description.contains("Too many open files") == true, "the system's reason: \(String(describing: refusal))")

        // Nothing else changed, and with descriptors again the same request is answered.
        let status = try await client.call("status")
        #expect(status["subscriptions"] == 0, "\(status)")
        let reply = try await client.call("subscribe", subscribe)
        #expect(reply["transport"] == "shm" && reply["slots"] == 64, "\(reply)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }
}
