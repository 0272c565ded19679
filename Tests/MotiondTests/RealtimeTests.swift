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
    /// Whether this process may raise RLIMIT_RTPRIO's hard limit to 20 (CAP_SYS_RESOURCE, bit 24 of
    /// CapEff), or it is 20 already.
    static let canRaiseRTPRIO: Bool = {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(14 /* RLIMIT_RTPRIO */), &limit) == 0, limit.rlim_max >= 20 { return true }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
        let mask = line.flatMap { UInt64($0.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        return mask & (1 << 24) != 0
    }()

    /// Each thread of `pid` and its policy (`/proc/PID/task/TID/stat`, field 41: 0 other, 1 fifo, 2 rr).
    static func policies(_ pid: Int32) -> [Int32: Int] {
        threads(pid).mapValues(\.policy)
    }

    /// Each thread of `pid`: its name, policy and realtime priority (`stat` fields 41 and 40).
    static func threads(_ pid: Int32) -> [Int32: (name: String, policy: Int, priority: Int)] {
        var result: [Int32: (name: String, policy: Int, priority: Int)] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(name)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 38, let policy = Int(fields[38]), let priority = Int(fields[37]) {
                result[tid] = (String(stat[stat.index(after: open)..<close]), policy, priority)
            }
        }
        return result
    }

    @Test(.enabled(if: getuid() == 0, "needs root (CAP_SYS_NICE) to be granted realtime"))
    func theEngineThreadAndTheFrameWritersRunAtRealtimeAndOnlyThey() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        var scheduling = ""
        for _ in 0..<100 where !scheduling.hasPrefix("SCHED_FIFO") {
            scheduling = try await client.call("status")["engineScheduling"]?.stringValue ?? ""
            if !scheduling.hasPrefix("SCHED_FIFO") { try await Task.sleep(for: .milliseconds(50)) }  // polls: asked once serving
        }
        #expect(scheduling == "SCHED_FIFO priority 20", "\(scheduling)")
        // The socket threads, which write the frames, are asked for right after (one by one): below the
        // engine thread. The log says so once every one was asked.
        for _ in 0..<200 where !daemon.log.contains("frame writers at realtime priority") {
            try await Task.sleep(for: .milliseconds(50))  // polls the log: asked once serving
        }
        let threads = Self.threads(daemon.process.processIdentifier).values
        let realtime = threads.filter { $0.policy == 1 }
        #expect(realtime.filter { $0.name == "motiond-engine" }.map(\.priority) == [20], "\(threads)")
        let sockets = threads.filter { $0.name.hasPrefix("NIO-") }
        #expect(!sockets.isEmpty && sockets.allSatisfy { $0.policy == 1 && $0.priority == 19 }, "every socket thread at SCHED_FIFO 19: \(threads)")
        #expect(realtime.count == sockets.count + 1, "no other thread at realtime: \(threads)")
        #expect(daemon.log.contains("engine thread at realtime priority") && daemon.log.contains("frame writers at realtime priority"), "\(daemon.log)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    /// As the shipped unit runs it: another uid with `RLIMIT_RTPRIO` 20 and no `CAP_SYS_NICE`. Realtime is
    /// granted; after connections close (`malloc_trim` a second later, at realtime for its duration) no
    /// thread but the engine's and the socket threads' is left at realtime (without the capability the
    /// kernel refuses to clear SCHED_RESET_ON_FORK, and a pool thread once stayed at SCHED_FIFO).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit") && canRaiseRTPRIO,
                   "needs root with CAP_SYS_RESOURCE (to raise RLIMIT_RTPRIO), setpriv and prlimit to run motiond as another uid"))
    func withTheRlimitOnlyTheFrameThreadsStayAtRealtime() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket, command: [
            "/usr/bin/prlimit", "--rtprio=20:20", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            DaemonProcess.motiond, "--socket", socket,
        ], environment: [:])
        try ThemeDaemonTests.openToOthers(daemon)
        for _ in 0..<200 where !daemon.log.contains("frame writers at realtime priority") {
            try await Task.sleep(for: .milliseconds(50))  // polls the log: asked once serving
        }
        #expect(daemon.log.contains("frame writers at realtime priority"), "\(daemon.log)")
        for _ in 0..<3 {
            let client = try await daemon.client()
            _ = try await client.call("status")
            await client.close()
        }
        try await Task.sleep(for: .seconds(2))  // malloc_trim runs 1 s after the last close (MallocTuning)
        let threads = Self.threads(daemon.process.processIdentifier).values
        let realtime = threads.filter { $0.policy == 1 }
        let expected = threads.filter { $0.name == "motiond-engine" || $0.name.hasPrefix("NIO-") }
        #expect(realtime.count == expected.count && realtime.allSatisfy { $0.name == "motiond-engine" || $0.name.hasPrefix("NIO-") },
                "only the engine and socket threads at realtime: \(threads)")
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
            dropped = daemon.log.contains("ran 500 ms without blocking") && !Self.policies(daemon.process.processIdentifier).values.contains(1)
            if !dropped { try await Task.sleep(for: .milliseconds(50)) }  // polls the log and /proc
        }
        #expect(dropped, "every realtime thread back at SCHED_OTHER: \(Self.threads(daemon.process.processIdentifier)) \(daemon.log.suffix(800))")
        await client.close()
        _ = await daemon.stop(signal: SIGKILL)
    }
}
