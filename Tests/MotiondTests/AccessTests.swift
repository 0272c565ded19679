import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

@Suite("Access")
struct AccessTests {
    /// Runs a Python `script` (argv[1]: the socket) as `nobody` through setpriv; its output lines.
    static func runAsNobody(_ script: String, _ socket: String, _ arguments: [String] = []) async throws -> [Substring] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, socket] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.runAlone()
        _ = await process.exitStatus()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
    }

    /// motiond started by uid 65534 in /tmp with `arguments`: its exit status and what it wrote to stderr.
    static func motiondAsNobody(_ arguments: [String], environment: [String: String]? = nil) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", DaemonProcess.motiond] + arguments
        if let environment { process.environment = environment }
        process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.runAlone()
        let status = await process.exitStatus()
        return (status, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// A user pointing motiond at another user's live socket (0660, root's): refused in a sentence that says
    /// why, not NIO's `bind(…) (errno: 98)`; the other daemon goes on answering.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func aUserCannotTakeAnotherUsersSocket() async throws {
        let daemon = try await DaemonProcess()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        let (status, text) = try await Self.motiondAsNobody(["--socket", daemon.socket])
        #expect(status != 0)
        #expect(text.contains("\(daemon.socket): a socket this user may not connect to") && !text.contains("errno"), "\(text)")
        let root = try await daemon.client()
        #expect(try await root.call("status")["clients"] != nil, "root's daemon still answers")
        await root.close()
    }

    /// A user starting motiond by hand without XDG_RUNTIME_DIR: the socket's folder (/run/motiond) is
    /// root's, and the daemon says so in a sentence with what to do, not a Foundation domain dump.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && !FileManager.default.fileExists(atPath: "/run/motiond"), "needs root and setpriv, and no /run/motiond"))
    func aUserWithoutARuntimeDirectoryIsToldWhatToDo() async throws {
        var environment = ProcessInfo.processInfo.environment
        for key in ["XDG_RUNTIME_DIR", "RUNTIME_DIRECTORY", "MOTIOND_SOCKET", "STATE_DIRECTORY"] { environment[key] = nil }
        let (status, text) = try await Self.motiondAsNobody([], environment: environment)
        #expect(status == 1)
        #expect(text.contains("motiond: /run/motiond: Permission denied (as a user, run it with XDG_RUNTIME_DIR set, or --socket PATH in a folder you own)"),
                "\(text)")
        #expect(!text.contains("NSCocoaErrorDomain"))
    }

    /// A socket in a folder the user may not write, a socket path past the kernel's 107 bytes, a config
    /// path that is a folder: each said as a sentence, never NIO's function signature or error case.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func socketAndConfigProblemsAreSentences() async throws {
        let folder = try DaemonProcess.temporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        let (status, text) = try await Self.motiondAsNobody(["--socket", folder.appendingPathComponent("x.sock").path])
        #expect(status != 0 && text.contains("\(folder.path)/x.sock: cannot listen there (Permission denied)") && !text.contains("errno"), "\(text)")
        let long = folder.path + "/" + String(repeating: "s", count: 120)
        let (longStatus, longText) = try await Self.motiondAsNobody(["--socket", long])
        #expect(longStatus != 0 && longText.contains("a Unix socket's path is at most 107") && !longText.contains("TooLong"), "\(longText)")
        let client = try await MotionctlTests.motionctl(["status", "--socket", long])
        #expect(client.status != 0 && client.errors.contains("a Unix socket's path is at most 107") && !client.errors.contains("TooLong"), "\(client.errors)")
        let (configStatus, configText) = try await Self.motiondAsNobody(["--config", folder.path])
        #expect(configStatus != 0 && configText.contains("\(folder.path): cannot read the config file (a folder, not a file)"), "\(configText)")
    }

    @Test func rootConnectsAsAdmin() async throws {
        let daemon = try await DaemonProcess()
        let client = try await MotionClient.connect(path: daemon.socket)
        #expect(try await client.hello()["role"] == (getuid() == 0 ? "admin" : "client"))
        await client.close()
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aUserOutsideTheSocketsGroupCannotConnect() async throws {
        let daemon = try await DaemonProcess()
        // The socket is 0660 root:root here; `nobody` is neither its owner nor in its group.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                             "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1]); print('connected')\nexcept PermissionError: print('denied')",
                             daemon.socket]
        let output = Pipe()
        process.standardOutput = output
        try process.runAlone()
        _ = await process.exitStatus()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "denied")
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aClientMayNotReloadPlugins() async throws {
        let daemon = try await DaemonProcess()
        // Let `nobody` reach the socket (only for this test), so it connects with the client role.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            for i, (m, p) in enumerate([("hello", {"protocol": 1}), ("plugins.reload", {}), ("plugins.list", {})]):
                f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush()
                r = json.loads(f.readline())
                print(r.get("result", {}).get("role") or r.get("error", {}).get("code") or "ok")
            """
        let lines = try await Self.runAsNobody(script, daemon.socket)
        #expect(lines == ["client", "access.denied", "ok"], "a client is refused, and its connection stays usable")
    }

    /// The socket is never reachable by others while it is being set up, whatever the umask: a `nobody`
    /// client spinning on the path while motiond starts under umask 000 never gets in (it did in 8 of 8
    /// starts when the socket was bound in place and chmod'ed afterwards).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func theSocketIsNeverOpenToOthersWhileItIsSetUp() async throws {
        for _ in 0..<3 {
            let directory = try DaemonProcess.temporaryDirectory()
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            let socket = directory.appendingPathComponent("motiond.sock").path
            let spinner = Process()
            spinner.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            spinner.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", """
                import socket, sys, time
                end = time.time() + float(sys.argv[2])
                print("spinning", flush=True)
                while time.time() < end:
                    s = socket.socket(socket.AF_UNIX)
                    try:
                        s.connect(sys.argv[1]); print("connected"); break
                    except OSError:
                        pass
                    finally:
                        s.close()
                else:
                    print("never")
                """, socket, "4"]
            let output = Pipe()
            spinner.standardOutput = output
            try spinner.runAlone()
            // The spinner must be polling the path before motiond creates its socket there: it says so.
            let said = output.read(until: "\n")
            #expect(said.hasPrefix("spinning\n"), "\(said)")
            let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                                 command: ["/bin/sh", "-c", "umask 000; exec \(DaemonProcess.motiond) --socket \(socket)"],
                                                 environment: [:])
            _ = await spinner.exitStatus()
            let text = said.dropFirst("spinning\n".count) + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "never")
            var info = stat()
            #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o660, "the socket ends up 0660")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".motiond-bind") }
            #expect(leftovers.isEmpty, "no private directory left behind")
            _ = daemon
        }
    }

    /// Started under umask 000, what motiond creates is never writable by others: the directories of its
    /// socket and state (another uid replaced the socket and the journal when they were 0777), its files.
    @Test func whatItCreatesUnderUmask000IsNotWritableByOthers() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let socket = directory.appendingPathComponent("run/motiond/motiond.sock").path
        let state = directory.appendingPathComponent("lib/motiond").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                             command: ["/bin/sh", "-c", "umask 000; exec \(DaemonProcess.motiond) --socket \(socket) --state-dir \(state)"],
                                             environment: [:])
        let client = try await daemon.client()
        _ = try await client.call("runtime.create", ["name": "kept"])
        _ = try await client.call("router.configure", ["scheme": "tv", "routes": ["home": ["kind": "stack"]]])
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0o7777
        }
        for path in [directory.appendingPathComponent("run").path, (socket as NSString).deletingLastPathComponent,
                     directory.appendingPathComponent("lib").path, state, state + "/routers", state + "/journal.jsonl"] {
            #expect(mode(path) & 0o022 == 0, "\(path): \(String(mode(path), radix: 8))")
        }
        #expect(mode(state) == 0o700, "the state directory is the daemon's alone: \(String(mode(state), radix: 8))")
        #expect(mode(state + "/journal.jsonl") == 0o600)
        #expect(mode(socket) == 0o660)
        await client.close()
        _ = await daemon.stop()
    }

    @Test func anUnknownAdminGroupStopsTheDaemon() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"adminGroup": "no-such-group-motiond"}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path], waitForSocket: false)
        let status = await daemon.process.exitStatus()
        #expect(status != 0)
        #expect(daemon.log.contains("adminGroup: there is no group named \"no-such-group-motiond\""))
    }

    /// docs/protocol.md#ownership-and-quotas with a real second uid: `nobody` cannot read, change, subscribe to or scrub root's runtimes
    /// and routers (they are `runtime.not_found` / `router.not_found`, as if they did not exist); its own
    /// `default` is its own; a quota from the config file is enforced with `quota.exceeded`.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aSecondUidCannotReachTheFirstsMotionAndHasQuotas() async throws {
        let config = try DaemonProcess.temporaryDirectory().appendingPathComponent("motiond.json")
        try Data(#"{"quotas": {"runtimes": 3}}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
        let root = try await daemon.client()
        _ = try await root.call("runtime.create", ["name": "work"])
        _ = try await root.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [100], "duration": 30]])
        _ = try await root.call("router.configure", ["scheme": "tv", "routes": ["home": ["kind": "stack"]]])
        let script = """
            import json, socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            n = 0
            def call(m, p):
                global n; n += 1
                f.write(json.dumps({"id": n, "method": m, "params": p}) + "\\n"); f.flush()
                while True:
                    r = json.loads(f.readline())
                    if r.get("id") == n: return r
                    if r.get("event") == "frame" and any(u["runtime"] != "default" for u in r["updates"]): print("leak", r)
            def code(m, p):
                r = call(m, p); return r.get("error", {}).get("code", "ok")
            def counts(*keys):
                st = call("status", {})["result"]; return " ".join(str(st[k]) for k in keys)
            call("hello", {"protocol": 1})
            print(counts("clients", "runtimes", "animations", "performers", "subscriptions"))
            print(code("subscribe", {"streams": ["frames", "trace"]}))
            print(code("runtime.state", {"runtime": "0/default"}), code("runtime.state", {"runtime": "0/work"}))
            print(code("plan.add", {"runtime": "0/default", "target": "card", "plan": {"type": "Tween", "property": "x", "to": [5]}}))
            print(code("runtime.destroy", {"name": "0/work"}), code("timeline.attach", {"runtime": "0/default"}))
            print(code("subscribe", {"streams": ["frames"], "runtime": "0/work"}))
            print(code("route.state", {"scheme": "tv"}), code("route.go", {"scheme": "tv", "to": "tv://home"}))
            print(len(call("runtime.state", {})["result"]["targets"]))
            print(code("runtime.create", {"name": "a"}), code("runtime.create", {"name": "b"}), code("runtime.create", {"name": "c"}))
            print(counts("runtimes", "subscriptions", "clients"))
            # Real time on purpose: 0.3 s of root's frames pass this subscriber (`call` prints any it may not see).
            time.sleep(0.3); call("sync", {})
            """
        let lines = try await Self.runAsNobody(script, daemon.socket)
        // `status` counts its own uid's: root's connection, runtimes, plan and performer are not disclosed,
        // not even as totals (first line: its connection and its own default runtime); then its own three
        // runtimes, its default one and two (last).
        #expect(lines == ["1 1 0 0 0", "ok", "runtime.not_found runtime.not_found", "runtime.not_found", "runtime.not_found runtime.not_found",
                          "runtime.not_found", "router.not_found router.not_found", "0", "ok ok quota.exceeded",
                          "3 1 1"],
                "\(lines)")
        #expect(try await root.call("runtime.state")["targets"]?["card"] != nil, "root's motion is untouched")
        #expect(try await root.call("status")["usage"]?["uids"]?.arrayValue?.contains { $0["uid"] == 65534 && $0["runtimes"] == 3 } == true)
        await root.close()
    }

    /// A second uid opens shared-memory subscriptions on 8 connections until refused (65,536 such regions
    /// of one uid once took motiond to `vm.max_map_count` and crashed it): past its `shmRegions` every
    /// refusal is `quota.exceeded` naming it, motiond stays up, and another uid's frames go on.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aSecondUidsSharedMemorySubscriptionsStopAtItsQuota() async throws {
        let daemon = try await DaemonProcess()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
        let victim = try await daemon.client()
        let events = EventCollector(victim)
        _ = try await victim.call("subscribe", ["streams": ["frames"], "targets": ["card"]])
        _ = try await victim.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [100], "duration": 60]])
        let script = """
            import collections, json, socket, sys
            codes = collections.Counter()
            held = []
            for c in range(8):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw"); held.append(s)
                f.write(json.dumps({"id": 0, "method": "hello", "params": {"protocol": 1}}) + "\\n"); f.flush(); f.readline()
                for i in range(1, 65):
                    f.write(json.dumps({"id": i, "method": "subscribe", "params": {"streams": ["frames"], "transport": "shm", "slots": 1}}) + "\\n")
                f.flush()
                answered = 0
                while answered < 64:
                    r = json.loads(f.readline())
                    if "id" not in r: continue
                    answered += 1
                    e = r.get("error")
                    codes["ok" if e is None else e["code"] + " " + e["message"].split(":")[0]] += 1
            for key in sorted(codes): print(key, codes[key])
            """
        let lines = try await Self.runAsNobody(script, daemon.socket)
        #expect(lines == ["ok 64", "quota.exceeded quota shmRegions 448"], "\(lines)")
        #expect(daemon.process.isRunning, "motiond is up")
        // The victim's tween goes on: a frame comes after the attack ended.
        await events.clear()
        let frames = try await events.waitFor { $0["event"] == "frame" }
        #expect(frames.last?["updates"]?.arrayValue?.first?["target"] == "card", "\(frames)")
        await victim.close()
    }
}
