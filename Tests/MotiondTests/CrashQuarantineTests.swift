import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md#a-plugin-that-crashes-the-daemon: a plugin that passes the probe and then crashes motiond is refused at the next start, until
/// its content changes, instead of crashing the daemon again and again.
@Suite("Crash quarantine")
struct CrashQuarantineTests {
    @Test func aPluginThatCrashedTheDaemonIsRefusedAtTheNextStart() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/crash_in_advance.c"], name: "libcrashy.so", in: plugins)
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path]

        let first = try await DaemonProcess(arguments: arguments)
        let client = try await first.client()
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Crashy", "property": "x"]])
        _ = await first.process.exitStatus()
        #expect(first.process.terminationReason == .uncaughtSignal, "it crashed, in the plugin's 5th advance")
        let record = (try? String(contentsOf: state.appendingPathComponent("crash.record"), encoding: .utf8)) ?? ""
        #expect(record.hasPrefix(file + "\n"), "the crash names the plugin file: \(record)")
        #expect(record.contains("\nadvance\n11\n"), "and the function and signal: \(record)")
        let crashedAt = Double(record.split(separator: "\n").last ?? "") ?? 0
        #expect(abs(crashedAt - Date().timeIntervalSince1970) < 60, "and when: \(record)")
        #expect(first.log.contains("motiond: killed by signal 11 inside a plugin's advance: \(file)"), "the log says why it died: \(first.log)")

        let second = try await DaemonProcess(arguments: arguments)
        let again = try await second.client()
        let list = try await again.call("plugins.list")
        let rejected = list["rejected"]?.arrayValue ?? []
        let reason = rejected.first { $0["file"]?.stringValue == file }?["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("crashed motiond (SIGSEGV in advance) at "), "\(list)")
        let crashTime = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: crashedAt))
        #expect(reason.contains(" at \(crashTime);"), "the crash's time, not the restart's: \(reason)")
        await #expect(throws: MotionClientError.self, "its plan type is not there") {
            _ = try await again.call("plan.add", ["target": "card", "plan": ["type": "Crashy", "property": "x"]])
        }
        #expect(try await again.call("status")["version"] != nil, "the daemon runs")
        #expect(second.log.contains("a plugin crashed motiond; it is quarantined"), "\(second.log)")

        // A new build (other content) is tried again.
        var data = try Data(contentsOf: URL(fileURLWithPath: file))
        data.append(contentsOf: Array("rebuilt".utf8))
        try data.write(to: URL(fileURLWithPath: file + ".tmp"))
        #expect(rename(file + ".tmp", file) == 0)
        let reload = try await again.call("plugins.reload")
        #expect((reload["results"]?.arrayValue ?? []).contains { $0["outcome"] == "loaded" }, "\(reload)")
        await again.close()
    }

    /// A plugin that overflows the engine thread's stack is recorded too (the handler runs on a stack of
    /// its own; without one it could not, and the journaled plan crashed every start); a SIGSEGV another
    /// process sends while a plugin runs is not that plugin's crash.
    @Test func aStackOverflowIsRecordedAndASignalFromOutsideIsNot() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/crash_in_advance.c"], name: "libdeep.so", in: plugins,
                                                     defines: ["OVERFLOW=1"])
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path, "--no-shipped-plugins"]
        let first = try await DaemonProcess(arguments: arguments)
        var client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "kept"])
        _ = try await client.call("plan.add", ["runtime": "kept", "target": "card", "plan": ["type": "Crashy", "property": "x"]])
        _ = await first.process.exitStatus()
        let record = (try? String(contentsOf: state.appendingPathComponent("crash.record"), encoding: .utf8)) ?? ""
        #expect(record.hasPrefix(file + "\n") && record.contains("\nadvance\n11\n"), "recorded: \(record)")
        let second = try await DaemonProcess(arguments: arguments)
        client = try await second.client()
        let reason = (try await client.call("plugins.list"))["rejected"]?.arrayValue?.first?["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("crashed motiond (SIGSEGV in advance)"), "it starts, and refuses the plugin: \(reason)")
        await client.close()
        _ = await second.stop()

        let slow = directory.appendingPathComponent("slow"), other = directory.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: slow, withIntermediateDirectories: true)
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/slow_advance.c"], name: "libslow.so", in: slow)
        let slowArguments = ["--plugins", slow.path, "--state-dir", other.path, "--no-shipped-plugins"]
        // Swift's backtracer, which a crash outside any plugin goes to, takes seconds: not needed here.
        let thirdDirectory = try DaemonProcess.temporaryDirectory()
        let thirdSocket = thirdDirectory.appendingPathComponent("motiond.sock").path
        let third = try await DaemonProcess(directory: thirdDirectory, socket: thirdSocket,
                                            command: [DaemonProcess.motiond, "--socket", thirdSocket] + slowArguments,
                                            environment: ["SWIFT_BACKTRACE": "enable=no"])
        client = try await third.client()
        _ = try await client.call("runtime.create", ["name": "scratch", "ephemeral": true])
        _ = try await client.call("plan.add", ["runtime": "scratch", "target": "t", "plan": ["type": "Slow", "ms": 5, "ticks": 1000]])
        // Real time: the engine thread spends most of each tick inside the slow plugin when the signal comes.
        try await Task.sleep(for: .milliseconds(300))
        kill(third.process.processIdentifier, SIGSEGV)
        _ = await third.process.exitStatus()
        let none = (try? String(contentsOf: other.appendingPathComponent("crash.record"), encoding: .utf8)) ?? ""
        #expect(none.isEmpty, "a signal from outside names no plugin: \(none)")
        let fourth = try await DaemonProcess(arguments: slowArguments)
        client = try await fourth.client()
        #expect((try await client.call("plugins.list"))["rejected"] == [], "nothing is quarantined")
        await client.close()
        _ = await fourth.stop()
    }

    /// A crash inside a timing function is the crash of the plugin that exports it, not of the shipped
    /// Tween plugin whose performer asked for the value (the Tween plugin was quarantined).
    @Test func aCrashInATimingFunctionQuarantinesItsOwnPlugin() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/crash_in_curve.c"], name: "libcrashcurve.so", in: plugins)
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path]
        let first = try await DaemonProcess(arguments: arguments)
        var client = try await first.client()
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 0.1,
                                                                          "timing": ["function": "crashOut"]]])
        _ = await first.process.exitStatus()
        let record = (try? String(contentsOf: state.appendingPathComponent("crash.record"), encoding: .utf8)) ?? ""
        #expect(record.hasPrefix(file + "\n") && record.contains("\ntiming function\n11\n"), "\(record)")
        let second = try await DaemonProcess(arguments: arguments)
        client = try await second.client()
        let list = try await client.call("plugins.list")
        let rejected = list["rejected"]?.arrayValue ?? []
        #expect(rejected.count == 1 && rejected.first?["file"]?.stringValue == file, "\(rejected)")
        #expect(rejected.first?["reason"]?.stringValue?.hasPrefix("crashed motiond (SIGSEGV in timing function) at ") == true, "\(rejected)")
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"]?.arrayValue?.contains("Tween") == true, "the Tween plugin stays")
        await client.close()
        _ = await second.stop()
    }

    /// Issue #17's acceptance, as an operator would try it: a plugin that crashes in `advance` takes the
    /// daemon down; started again on the same state directory, the plugin is refused with the crash
    /// reason, a tween in a lasting runtime created before the crash shows the value it would have had,
    /// and the router is intact.
    @Test func afterACrashThePluginIsRefusedAndMotionAndRoutersComeBack() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/crash_in_advance.c"], name: "libcrashy.so", in: plugins)
        for name in ["libTweenPlugin.so", "libSetPlugin.so"] {
            try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent(name), to: plugins.appendingPathComponent(name))
        }
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path]
        let first = try await DaemonProcess(arguments: arguments)
        let client = try await first.client()
        _ = try await client.call("router.configure", ["scheme": "bar", "routes": ["home": ["kind": "stack"], "wifi": ["kind": "stack"]]])
        _ = try await client.call("route.go", ["scheme": "bar", "to": "bar://home/wifi", "animated": false])
        _ = try await client.call("runtime.create", ["name": "bar"])
        let addedAfter = Date()
        _ = try await client.call("plan.add", ["runtime": "bar", "target": "level", "plan": [
            "type": "Tween", "property": "x", "from": [0], "to": [600], "duration": 60, "timing": "linear"]])
        let addedBefore = Date()
        // Three plans of the crashing type, journaled in one request before the tick that crashes.
        _ = try? await client.call("plan.add", ["targets": ["card1", "card2", "card3"], "plan": ["type": "Crashy", "property": "x"]])
        _ = await first.process.exitStatus()
        #expect(first.process.terminationReason == .uncaughtSignal)

        let second = try await DaemonProcess(arguments: arguments)
        let again = try await second.client()
        let readAfter = Date()
        let level = try await again.call("runtime.state", ["runtime": "bar"])["targets"]?["level"]?["properties"]?["x"]?["value"]?
            .arrayValue?.first?.doubleValue ?? -1
        let readBefore = Date()
        // 10 units a second; 250 ms of slack below for a daemon starting on a busy machine (JournalRestartTests).
        let low = 10 * (readAfter.timeIntervalSince(addedBefore) - 0.25), high = 10 * (readBefore.timeIntervalSince(addedAfter) + 0.1)
        #expect(level >= low && level <= high, "level \(level), expected \(low)…\(high)")
        let rejected = try await again.call("plugins.list")["rejected"]?.arrayValue ?? []
        #expect(rejected.contains { $0["file"]?.stringValue == file && $0["reason"]?.stringValue?.hasPrefix("crashed motiond") == true })
        #expect(try await again.call("route.state", ["scheme": "bar"])["url"] == "bar://home/wifi", "the router is intact")
        // Reported once for the three, naming the quarantined file that explains the missing type.
        let reports = second.log.split(separator: "\n").filter { $0.contains("journal replay problem") && $0.contains("Crashy") }
        #expect(reports.count == 1 && reports[0].contains("records=3") && reports[0].contains("quarantined=\(file)"),
                "the plans whose plugin is refused are reported once by the replay: \(second.log)")
        await again.close()
    }

    /// Issue #45: a crash outside any plugin goes to Swift's backtracer, a child process; it must not
    /// inherit the clients' sockets (one that did kept every connection open after motiond died, and
    /// a restart could not take the socket for minutes). Its open descriptors are read while it runs.
    @Test func aCrashOutsideAPluginLeavesNoSocketToTheBacktracer() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                             command: [DaemonProcess.motiond, "--socket", socket, "--no-shipped-plugins"],
                                             environment: ["SWIFT_BACKTRACE": "enable=yes,interactive=no"])
        var clients: [MotionClient] = []
        for _ in 0..<3 { clients.append(try await daemon.client()) }
        let pid = daemon.process.processIdentifier
        // The daemon's sockets (the listener, the clients'): none may be the backtracer's. (The backtracer
        // has sockets of its own: the pair it reads the crashed process's memory through.)
        let ownSockets = Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [])
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/" + $0) }
            .filter { $0.hasPrefix("socket:") })
        #expect(ownSockets.count >= 4, "the listener and three clients: \(ownSockets)")
        kill(pid, SIGSEGV)
        // The backtracer is the crashed daemon's child while it reads it (seconds: it symbolicates). Its
        // descriptors are read once it runs the backtracer's program: before its exec, a child still has
        // every descriptor of its parent (close-on-exec acts at the exec).
        var child: Int32?
        var seen: [String] = []
        for _ in 0..<1000 where child == nil && daemon.process.isRunning {
            let children = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in children {
                let listed = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                guard let first = listed.split(separator: " ").first, let found = Int32(first) else { continue }
                let name = (try? String(contentsOfFile: "/proc/\(found)/comm", encoding: .utf8)) ?? ""
                if name.hasPrefix("swift-backtrace") { child = found }
            }
            if let child {
                let fds = "/proc/\(child)/fd"
                seen = ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? [])
                    .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0) }
            }
            if child == nil { try await Task.sleep(for: .milliseconds(10)) }  // polls for the child's exec
        }
        try #require(child != nil, "Swift's backtracer (SWIFT_BACKTRACE=enable=yes) ran as a child of the crashed daemon")
        #expect(!seen.isEmpty, "its descriptors were read")
        #expect(ownSockets.intersection(seen).isEmpty, "no socket of the daemon's is the backtracer's: \(seen) against \(ownSockets)")
        if let child { kill(child, SIGKILL) }
        _ = await daemon.stop(signal: SIGKILL)
        for client in clients { await client.close() }
    }

    /// Issue #46: a plugin whose call never returns (after passing the probe) is contained like one that
    /// crashes: the hang watch ends the process after `hangSeconds` (5) and records the plugin, and the next
    /// start refuses it, so the replay of its journaled plan does not hang again; the rest comes back.
    @Test func aPluginThatHangsIsQuarantinedLikeOneThatCrashes() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/hang.c"], name: "libhang.so", in: plugins)
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path]
        let first = try await DaemonProcess(arguments: arguments)
        let client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "kept"])
        _ = try await client.call("plan.add", ["runtime": "kept", "target": "before", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 60]])
        _ = try await client.call("plan.add", ["runtime": "kept", "target": "card", "plan": ["type": "Hang"]])
        let status = await first.stop(signal: 0, timeout: 30)  // signal 0: only waits for it to end by itself
        #expect(status == 70 && first.process.terminationReason == .exit, "the hang watch ended it: \(String(describing: status))")
        #expect(first.log.contains("motiond: a plugin's advance has not returned for a while; ending motiond: \(file) (recorded"), "\(first.log.suffix(800))")

        let second = try await DaemonProcess(arguments: arguments)
        let again = try await second.client()
        let (reason, rejected) = try await Self.rejection(of: file, from: again)
        #expect(reason.hasPrefix("hung motiond (advance did not return) at "), "\(rejected)")
        let kept = try await again.call("runtime.state", ["runtime": "kept"])
        #expect(kept["targets"]?["before"] != nil, "the runtime's other motion came back: \(kept)")
        #expect(second.log.contains("a plugin hung motiond"), "\(second.log.suffix(800))")
        await again.close()
        await client.close()
        _ = await second.stop()
    }

    /// A plugin whose `init` hangs only outside the probe (it reads its command line) passes the probe and
    /// held every start for ever; `init` is watched like `advance`: the start ends (status 70), the next
    /// one quarantines the file and serves (docs/operations.md#a-plugin-that-hangs). The same for one whose
    /// constructor hangs (`dlopen` runs it, before any function of the ABI): the loader is watched too.
    @Test(arguments: [("init", [String]()), ("dlopen", ["HANG_IN_CONSTRUCTOR"])])
    func aPluginThatHangsInInitOrItsConstructorIsQuarantinedAtTheNextStart(function: String, defines: [String]) async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/hang_init.c"], name: "libhang\(function).so", in: plugins,
                                                     defines: defines)
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"hangSeconds": 2}"#.utf8).write(to: config)
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path, "--config", config.path]
        let first = try await DaemonProcess(arguments: arguments, waitForSocket: false)
        let status = await first.stop(signal: 0, timeout: 60)  // signal 0: only waits for it to end by itself
        #expect(status == 70 && first.process.terminationReason == .exit, "the hang watch ended the start: \(String(describing: status))")
        #expect(first.log.contains("motiond: a plugin's \(function) has not returned for a while; ending motiond: \(file) (recorded"), "\(first.log.suffix(800))")

        let second = try await DaemonProcess(arguments: arguments)
        let client = try await second.client()
        let (reason, rejected) = try await Self.rejection(of: file, from: client)
        #expect(reason.hasPrefix("hung motiond (\(function) did not return) at "), "\(rejected)")
        #expect(try await client.call("plan.add", ["target": "t", "plan": ["type": "Tween", "property": "x", "to": [1]]])["performer"] != nil)
        await client.close()
        _ = await second.stop()
    }

    /// A plugin whose constructor crashes only outside the probe: `dlopen` runs it on the loader's thread,
    /// whose mark names the file, so the crash is recorded against it like a call's and the next start
    /// refuses the file and serves (docs/operations.md#a-plugin-that-crashes-the-daemon).
    @Test func aPluginThatCrashesInItsConstructorIsQuarantinedAtTheNextStart() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/hang_init.c"], name: "libcrashconstructor.so", in: plugins,
                                                     defines: ["CRASH_IN_CONSTRUCTOR"])
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path]
        let first = try await DaemonProcess(arguments: arguments, waitForSocket: false)
        _ = await first.stop(signal: 0, timeout: 60)  // signal 0: only waits for it to end by itself
        #expect(first.process.terminationReason == .uncaughtSignal && first.process.terminationStatus == SIGSEGV,
                "\(first.process.terminationReason.rawValue) \(first.process.terminationStatus)")
        #expect(first.log.contains("motiond: killed by signal 11 inside a plugin's dlopen: \(file) (recorded"), "\(first.log.suffix(800))")

        let second = try await DaemonProcess(arguments: arguments)
        let client = try await second.client()
        let (reason, rejected) = try await Self.rejection(of: file, from: client)
        #expect(reason.hasPrefix("crashed motiond (SIGSEGV in dlopen) at "), "\(rejected)")
        #expect(try await client.call("plan.add", ["target": "t", "plan": ["type": "Tween", "property": "x", "to": [1]]])["performer"] != nil)
        await client.close()
        _ = await second.stop()
    }

    /// Issue #46: systemd's watchdog ends a hung daemon with SIGABRT; Swift's backtracer then held the
    /// process more than 15 s (and the restart with it). A SIGABRT from another process takes the default
    /// action at once: no backtracer child, the process ends by that signal.
    @Test func theWatchdogsAbortEndsTheDaemonAtOnce() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                             command: [DaemonProcess.motiond, "--socket", socket, "--no-shipped-plugins"],
                                             environment: ["SWIFT_BACKTRACE": "enable=yes,interactive=no"])
        let pid = daemon.process.processIdentifier
        let sent = Date()
        kill(pid, SIGABRT)
        var backtracer = false
        while daemon.process.isRunning && !Process.isZombie(pid) && Date().timeIntervalSince(sent) < 30 {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let listed = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                for child in listed.split(separator: " ") {
                    let name = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? ""
                    if name.hasPrefix("swift-backtrace") { backtracer = true }
                }
            }
            try await Task.sleep(for: .milliseconds(10))  // polls for the exit
        }
        let took = Date().timeIntervalSince(sent)
        _ = await daemon.stop(signal: SIGKILL)
        #expect(!backtracer, "no backtracer ran")
        #expect(daemon.process.terminationReason == .uncaughtSignal && daemon.process.terminationStatus == SIGABRT,
                "\(daemon.process.terminationReason.rawValue) \(daemon.process.terminationStatus)")
        #expect(took < 10, "ended at once, not after the backtracer: \(took) s")
    }

    /// Why motiond refuses `file` ("" if it does not), and every rejection `plugins.list` names.
    static func rejection(of file: String, from client: MotionClient) async throws -> (reason: String, rejected: [JSONValue]) {
        let rejected = (try await client.call("plugins.list"))["rejected"]?.arrayValue ?? []
        return (rejected.first { $0["file"]?.stringValue == file }?["reason"]?.stringValue ?? "", rejected)
    }
}
