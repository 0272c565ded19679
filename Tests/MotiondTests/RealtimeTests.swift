import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md#realtime-priority: the engine thread at SCHED_FIFO where the system allows it, the
/// fallback said in `status` and the log where it does not, and RLIMIT_RTTIME putting a thread that never
/// blocks back to SCHED_OTHER.
@Suite("Realtime priority")
struct RealtimeTests {
    /// Each thread of `pid` and its policy (`/proc/PID/task/TID/stat`, field 41: 0 other, 1 fifo, 2 rr).
    static func policies(_ pid: Int32) -> [Int32: Int] {
        var result: [Int32: Int] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 38, let policy = Int(fields[38]) { result[tid] = policy }
        }
        return result
    }

    @Test(.enabled(if: getuid() == 0, "needs root (CAP_SYS_NICE) to be granted realtime"))
    func theEngineThreadRunsAtRealtimeAndOnlyIt() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        var scheduling = ""
        for _ in 0..<100 where !scheduling.hasPrefix("SCHED_FIFO") {
            scheduling = try await client.call("status")["engineScheduling"]?.stringValue ?? ""
            if !scheduling.hasPrefix("SCHED_FIFO") { try await Task.sleep(for: .milliseconds(50)) }  // polls: asked once serving
        }
        #expect(scheduling == "SCHED_FIFO priority 20", "\(scheduling)")
        let realtime = Self.policies(daemon.process.processIdentifier).filter { $0.value == 1 }
        #expect(realtime.count == 1, "one thread at SCHED_FIFO, the engine's: \(Self.policies(daemon.process.processIdentifier))")
        #expect(daemon.log.contains("engine thread at realtime priority"), "\(daemon.log)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run motiond as another uid"))
    func withoutThePermissionItSaysWhyAndRunsAtSchedOther() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket, command: [
            "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", DaemonProcess.motiond, "--socket", socket,
        ], environment: [:])
        try ThemeDaemonTests.openToOthers(daemon)
        let client = try await daemon.client()
        var scheduling = ""
        for _ in 0..<100 where !scheduling.contains("refused") {
            scheduling = try await client.call("status")["engineScheduling"]?.stringValue ?? ""
            if !scheduling.contains("refused") { try await Task.sleep(for: .milliseconds(50)) }  // polls: asked once serving
        }
        #expect(scheduling.hasPrefix("SCHED_OTHER") && scheduling.hasSuffix("(realtime refused)"), "\(scheduling)")
        #expect(daemon.log.contains("realtime priority not granted") && daemon.log.contains("RLIMIT_RTPRIO is 0"), "\(daemon.log)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0, "needs root (CAP_SYS_NICE) to be granted realtime"))
    func aPluginThatNeverBlocksIsPutBackToSchedOther() async throws {
        let plugins = try CCompiler.temporaryDirectory()
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/hang.c"], name: "libhang.so", in: plugins, defines: ["HANG_SPINS"])
        let config = plugins.appendingPathComponent("motiond.json")
        try Data(#"{"hangSeconds": 0}"#.utf8).write(to: config)  // the hang watch off: RLIMIT_RTTIME alone
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--config", config.path])
        let client = try await daemon.client()
        var scheduling = ""
        for _ in 0..<100 where !scheduling.hasPrefix("SCHED_FIFO") {
            scheduling = try await client.call("status")["engineScheduling"]?.stringValue ?? ""
            if !scheduling.hasPrefix("SCHED_FIFO") { try await Task.sleep(for: .milliseconds(50)) }  // polls: asked once serving
        }
        #expect(scheduling.hasPrefix("SCHED_FIFO"))
        _ = try await client.call("plan.add", ["target": "t", "plan": ["type": "Hang"]])
        // The engine thread spins in the plugin: within about 0.5 s of CPU it is back at SCHED_OTHER.
        var dropped = false
        for _ in 0..<200 where !dropped {
            dropped = daemon.log.contains("at realtime without blocking") && !Self.policies(daemon.process.processIdentifier).values.contains(1)
            if !dropped { try await Task.sleep(for: .milliseconds(50)) }  // polls the log and /proc
        }
        #expect(dropped, "\(Self.policies(daemon.process.processIdentifier)) \(daemon.log.suffix(800))")
        await client.close()
        _ = await daemon.stop(signal: SIGKILL)
    }
}
