import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md under the real `systemd-socket-activate`, with a datagram socket standing in for systemd.
@Suite("systemd integration", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs systemd-socket-activate (scripts/setup installs systemd) and python3"))
struct SystemdTests {
    /// motiond exec'd by systemd-socket-activate on the first connection, as systemd itself would start it.
    /// Through a parent that waits for it and passes on SIGHUP and SIGTERM: systemd-socket-activate
    /// closes every descriptor but the sockets before it execs, the end of the socket pair by which
    /// Foundation learns of a child's exit among them, and Foundation then waits for that child's exit on
    /// the one thread that reaps every child of the test process, so no other child was reaped for as
    /// long as this daemon lived (other tests' stopped daemons and compilers stayed zombies for seconds).
    /// python3, not sh: the test process blocks those signals, children inherit the mask, and a shell
    /// cannot unblock it.
    private static let waitingParent = """
        import os, signal, sys
        child = os.fork()
        if child == 0:
            os.execvp(sys.argv[1], sys.argv[1:])
        for number in (signal.SIGHUP, signal.SIGTERM):
            signal.signal(number, lambda number, frame: os.kill(child, number))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP, signal.SIGTERM})
        _, status = os.waitpid(child, 0)
        sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
        """

    private func activated(arguments: [String] = [], watchdogMicroseconds: Int = 200_000)
        async throws -> (DaemonProcess, NotifyListener)
    {
        let directory = try DaemonProcess.temporaryDirectory()
        let notify = try NotifyListener(directory: directory)
        let socket = directory.appendingPathComponent("activated.sock").path
        let daemon = try await DaemonProcess(
            directory: directory, socket: socket,
            command: ["/usr/bin/python3", "-c", Self.waitingParent, "systemd-socket-activate", "-l", socket, "-E", "NOTIFY_SOCKET", "-E", "WATCHDOG_USEC",
                      "-E", "JOURNAL_STREAM", "-E", "MOTIOND_JOURNAL_SOCKET", DaemonProcess.motiond] + arguments,
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": String(watchdogMicroseconds),
                          "JOURNAL_STREAM": "8:12345",
                          // stderr lines, also where journald runs (JournalFieldsTests covers the native protocol)
                          "MOTIOND_JOURNAL_SOCKET": directory.appendingPathComponent("no-journal.sock").path])
        return (daemon, notify)
    }

    @Test func servesTheInheritedSocketAndSpeaksTheNotifyProtocol() async throws {
        let (daemon, notify) = try await activated()
        let client = try await daemon.client()
        #expect(try await client.call("status")["rate"] == 120)

        let ready = try await notify.waitFor { $0.hasPrefix("READY=1") }
        #expect(notify.messages[ready].range(of: #"STATUS=ready: \d+ plugins"#, options: .regularExpression) != nil)
        // Pings every 100 ms (half of WATCHDOG_USEC): four come, however loaded the machine (waited for).
        var pings = 0
        for _ in 0..<300 where pings < 4 {
            pings = notify.messages.filter { $0 == "WATCHDOG=1" }.count
            if pings < 4 { try await Task.sleep(for: .milliseconds(20)) }  // polls what the listener received
        }
        #expect(pings >= 4, "pings every 100 ms (half of WATCHDOG_USEC) expected, got \(pings)")

        kill(daemon.process.processIdentifier, SIGHUP)
        let reloading = try await notify.waitFor(after: ready + 1) { $0.hasPrefix("RELOADING=1") }
        let stamp = notify.messages[reloading].split(separator: "\n").first { $0.hasPrefix("MONOTONIC_USEC=") }
        #expect(stamp.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) } != nil)
        _ = try await notify.waitFor(after: reloading + 1) { $0.hasPrefix("READY=1") }
        #expect(try await client.call("status")["clients"] == 1)

        let status = await daemon.stop(signal: SIGTERM)
        #expect(status == 0)
        #expect(notify.messages.contains { $0.hasPrefix("STOPPING=1") })
        #expect(FileManager.default.fileExists(atPath: daemon.socket), "an inherited socket is never unlinked")

        let lines = daemon.log.split(separator: "\n").filter { !$0.hasPrefix("Listening on") && !$0.hasPrefix("Communication attempt") && !$0.hasPrefix("Execing") }
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.range(of: #"^<[0-7]>"#, options: .regularExpression) != nil }, "\(lines)")
    }

    @Test func aHungFrameLoopStopsTheWatchdogPings() async throws {
        let plugins = try CCompiler.temporaryDirectory()
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/hang.c"], name: "libhang.so", in: plugins)
        // The hang watch off: this is what the service manager and a stop see of a stuck engine thread
        // (CrashQuarantineTests covers the hang watch, which would end this process after 5 s).
        let config = plugins.appendingPathComponent("motiond.json")
        try Data(#"{"hangSeconds": 0}"#.utf8).write(to: config)
        let (daemon, notify) = try await activated(arguments: ["--plugins", plugins.path, "--config", config.path])
        let client = try await daemon.client()
        _ = try await notify.waitFor { $0.hasPrefix("READY=1") }
        _ = try await notify.waitFor { $0 == "WATCHDOG=1" }
        _ = try await client.call("plan.add", ["target": "t", "plan": ["type": "Hang"]])
        // Real time on purpose: the watchdog is the OS's view of the engine thread, and what is asserted
        // is that no ping arrives over 800 ms of it (a condition cannot wait for an absence).
        // Once the daemon says it withholds the ping, the hang has begun and no ping is on its way.
        for _ in 0..<200 where !daemon.log.contains("withholding the watchdog ping") {
            try await Task.sleep(for: .milliseconds(50))  // polls the log
        }
        #expect(daemon.log.contains("withholding the watchdog ping"), "\(daemon.log)")
        let before = notify.messages.filter { $0 == "WATCHDOG=1" }.count
        try await Task.sleep(for: .milliseconds(800))  // the negative needs its window: 8 ping periods
        let after = notify.messages.filter { $0 == "WATCHDOG=1" }.count
        #expect(after == before, "no pings while the engine thread is stuck")
        // Issue #45: SIGTERM is honoured within 10 s though the engine thread never returns from the plugin.
        let asked = Date()
        let status = await daemon.stop(signal: SIGTERM, timeout: 30)
        let took = Date().timeIntervalSince(asked)
        #expect(status == 1 && daemon.process.terminationReason == .exit, "it exited by itself, status 1: \(String(describing: status))")
        #expect(took < 14, "within the stop deadline (10 s, a loaded machine's slack): \(took) s")
        #expect(daemon.log.contains("stopping took longer than 10 s"), "\(daemon.log.suffix(600))")
    }

    /// A journal to replay asks systemd for more time to start (`EXTEND_TIMEOUT_USEC`) before reading it,
    /// then, as the replay goes, for what the rest takes at its pace so far: a long replay is not killed by
    /// `TimeoutStartSec` at every start (docs/operations.md#animations-survive-a-restart).
    @Test func aJournalToReplayExtendsTheStartTimeout() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "kept"])
        // 9,216 journal records (a staggered plan.add journals one per target): two rounds of progress.
        for round in 0..<36 {
            let targets = (0..<256).map { JSONValue.string("t\(round)-\($0)") }
            _ = try await client.call("plan.add", ["runtime": "kept", "targets": .array(targets), "stagger": 0,
                                                   "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 600]])
        }
        await client.close()
        _ = await first.stop()
        let (second, notify) = try await activated(arguments: ["--state-dir", state.path])
        let ready = try await notify.waitFor(timeout: 60) { $0.hasPrefix("READY=1") }
        let extensions = notify.messages.prefix(ready).compactMap { message in
            message.hasPrefix("EXTEND_TIMEOUT_USEC=") ? UInt64(message.dropFirst("EXTEND_TIMEOUT_USEC=".count)) : nil
        }
        #expect(extensions.count == 2, "one before reading, one from the pace of the first 8,192 records: \(notify.messages.prefix(6))")
        #expect(extensions.first.map { $0 >= 30_000_000 } == true, "\(extensions)")
        #expect(extensions.dropFirst().allSatisfy { $0 >= 10_000_000 && $0 < 600_000_000 }, "the rest at the pace so far: \(extensions)")
        let status = try await (try await second.client()).call("status")
        #expect(status["animations"] == 9216, "\(status)")
        _ = await second.stop()
    }

    @Test func sighupLoadsAPluginAddedToTheDirectory() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        let directory = try DaemonProcess.temporaryDirectory()
        let notify = try NotifyListener(directory: directory)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
        _ = notify
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"]])
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"] == [])
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libSpringPlugin.so"),
                                         to: plugins.appendingPathComponent("libSpringPlugin.so"))
        kill(daemon.process.processIdentifier, SIGHUP)
        // The new file is probed first, in a child at nice 10 (docs/operations.md, "plugin probes run at
        // nice 10"): beside a CPU-bound process and a whole suite, that took over 10 s once.
        let loaded = try await events.waitFor(timeout: 60, isTrace("plugin.loaded")).last
        #expect(loaded?["plugin"] == "org.motiond.spring")
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"] == ["Spring"])
        _ = try await client.call("plan.add", ["target": "t", "plan": ["type": "Spring", "property": "x", "to": [1]]])
        await client.close()
        #expect(await daemon.stop() == 0)
    }
}
