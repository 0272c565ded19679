import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// libmotion-client (docs/clients.md) as a C programmer meets it: examples/c_client.c built against the
/// library the package builds, then installed GNU-style into a DESTDIR and built with pkg-config.
@Suite("libmotion-client")
struct ClientLibraryTests {
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Double = 60) async throws -> TestProcess.Run {
        try await TestProcess.run(executable, arguments, environment: environment, timeout: timeout)
    }

    /// Stops `first`, starts a daemon on the same socket, waits until a reconnecting client has
    /// subscribed there again (their backoff reaches 1.6 s; `resubscribes` false: the client reconnects
    /// only when it next calls, and nothing is waited for), then moves target "after" there: what a
    /// reconnected client must see.
    static func restart(_ first: DaemonProcess, at path: String, resubscribes: Bool = true) async throws -> (DaemonProcess, MotionClient) {
        _ = await first.stop()
        let second = try await DaemonProcess(socket: path)
        if resubscribes { try await second.waitForSubscriptions(atLeast: 1) }
        let client = try await second.client()
        _ = try await client.call("plan.add", ["target": "after", "plan": ["type": "Spring", "property": "x", "to": [100]]])
        return (second, client)
    }

    static var example: String { CCompiler.repository.appendingPathComponent("examples/c_client.c").path }
    static var shmExample: String { CCompiler.repository.appendingPathComponent("examples/c_shm_reader.c").path }
    /// The in-tree headers: the client's and the frame layout's (installed side by side).
    static var includes: [String] {
        ["-I", CCompiler.repository.appendingPathComponent("clients/c/include").path,
         "-I", CCompiler.repository.appendingPathComponent("Sources/MotionFrames/include").path]
    }

    /// Builds `source` against the in-tree library, warnings as errors (as a client author would), into
    /// `directory`; returns the program's path.
    static func buildAgainstLibrary(_ source: String, named name: String, in directory: URL) async throws -> String {
        let bin = DaemonProcess.buildDirectory.path
        let program = directory.appendingPathComponent(name).path
        let build = try await run("/usr/bin/cc", ["-std=c99", "-Wall", "-Wextra", "-Werror"] + includes + [source,
                                  "-L", bin, "-lmotion-client", "-Wl,-rpath,\(bin)", "-o", program])
        #expect(build.status == 0, "\(build.output)")
        return program
    }

    static func fixture(_ name: String) -> String {
        CCompiler.repository.appendingPathComponent("Tests/MotiondTests/Fixtures/\(name)").path
    }

    @Test func theCExampleDrivesASpringAndReadsTypedFrames() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let program = try await Self.buildAgainstLibrary(Self.example, named: "c_client", in: directory)
        let daemon = try await DaemonProcess()
        let ran = try await Self.run(program, [daemon.socket])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output.contains("card.position = [100, 50]"), "\(ran.output)")
        #expect(ran.output.contains("a bad plan: -1 {\"code\":\"plan.invalid\""), "an error is the error object: \(ran.output)")
        // Without a daemon: a clear message, no crash.
        let missing = try await Self.run(program, [directory.appendingPathComponent("none.sock").path])
        #expect(missing.status == 1 && missing.output.contains("cannot connect to") && missing.output.contains("MOTIOND_SOCKET"), "\(missing.output)")
        // The default socket rules: MOTIOND_SOCKET.
        let fromEnvironment = try await Self.run(program, [], environment: ["MOTIOND_SOCKET": daemon.socket])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.output)")
    }

    @Test func installStagesIntoDESTDIRAndPkgConfigBuildsTheExample() async throws {
        let stage = try CCompiler.temporaryDirectory()
        let install = try await Self.run(CCompiler.repository.appendingPathComponent("scripts/install").path,
                                         ["--prefix", "/usr", "--bin", DaemonProcess.buildDirectory.path],
                                         environment: ["DESTDIR": stage.path])
        #expect(install.status == 0, "\(install.output)")
        for file in ["usr/bin/motiond", "usr/bin/motionctl", "usr/lib/libmotion-client.so", "usr/lib/libmotion-client.a",
                     "usr/include/motion_client.h", "usr/include/motion_frames.h", "usr/include/motion_plugin.h", "usr/include/motion/ext/gesture.h",
                     "usr/lib/pkgconfig/motion-client.pc", "usr/lib/motiond/plugins/libSpringPlugin.so", "usr/lib/motiond/libmotion-malloc-count.so",
                     "etc/motiond/motiond.json", "etc/systemd/system/motiond.service"] {
            #expect(FileManager.default.fileExists(atPath: stage.appendingPathComponent(file).path), "\(file) installed")
        }
        let unit = try String(contentsOf: stage.appendingPathComponent("etc/systemd/system/motiond.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/motiond"), "the unit runs the installed daemon")
        let config = try String(contentsOf: stage.appendingPathComponent("etc/motiond/motiond.json"), encoding: .utf8)
        #expect(config.contains("/usr/lib/motiond/plugins"))
        // pkg-config as a packager's build would use it: the staged tree as the sysroot.
        let environment = ["PKG_CONFIG_PATH": stage.appendingPathComponent("usr/lib/pkgconfig").path, "PKG_CONFIG_SYSROOT_DIR": stage.path]
        let flags = try await Self.run("/usr/bin/pkg-config", ["--cflags", "--libs", "motion-client"], environment: environment)
        #expect(flags.status == 0 && flags.output.contains("-lmotion-client"), "\(flags.output)")
        let program = stage.appendingPathComponent("c_client").path
        let build = try await Self.run("/usr/bin/cc", ["-std=c99", "-Wall", "-Werror", Self.example, "-o", program,
                                                       "-Wl,-rpath,\(stage.appendingPathComponent("usr/lib").path)"]
                                       + flags.output.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(build.status == 0, "\(build.output)")
        // The shared library has a soname and needs no Swift (docs/clients.md); the program links to it.
        let library = try await Self.run("/usr/bin/readelf", ["-d", stage.appendingPathComponent("usr/lib/libmotion-client.so").path])
        #expect(library.output.contains("Library soname: [libmotion-client.so.1]") && !library.output.contains("swift"), "\(library.output)")
        // It exports its API only: no json_member or frames_reader_map for a program's own to clash with.
        let symbols = try await Self.run("/usr/bin/nm", ["-D", "--defined-only", stage.appendingPathComponent("usr/lib/libmotion-client.so").path])
        let foreign = symbols.output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            .filter { !($0.hasPrefix("motion_client_") || $0.hasPrefix("motion_frames_")) || $0.hasPrefix("motion_client_internal_") }
            .filter { !$0.hasPrefix("_") }
        #expect(symbols.status == 0 && foreign.isEmpty, "exported beside the API: \(foreign)")
        let linked = try await Self.run("/usr/bin/readelf", ["-d", program])
        #expect(linked.output.contains("Shared library: [libmotion-client.so.1]"), "\(linked.output)")
        let daemon = try await DaemonProcess()
        let ran = try await Self.run(program, [daemon.socket])
        #expect(ran.status == 0 && ran.output.contains("card.position = [100, 50]"), "\(ran.output)")
        // The shared-memory reader from the installed headers (motion_frames.h beside motion_client.h).
        let reader = stage.appendingPathComponent("c_shm_reader").path
        let shmBuild = try await Self.run("/usr/bin/cc", ["-std=c99", "-Wall", "-Werror", Self.shmExample, "-o", reader,
                                                          "-Wl,-rpath,\(stage.appendingPathComponent("usr/lib").path)"]
                                          + flags.output.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(shmBuild.status == 0, "\(shmBuild.output)")
        let read = try await Self.run(reader, [daemon.socket])
        #expect(read.status == 0 && read.output.contains("card3.x = 300"), "\(read.output)")
        _ = await daemon.stop()
        // The installed motiond run by hand, without --config, finds the installed plugins (issue #43).
        let socket = stage.appendingPathComponent("installed.sock").path
        let installed = try await DaemonProcess(directory: stage, socket: socket,
                                                command: [stage.appendingPathComponent("usr/bin/motiond").path, "--socket", socket],
                                                environment: [:])
        let listed = try await MotionctlTests.motionctl(["plugins", "list", "--socket", socket])
        #expect(listed.output.contains("org.motiond.spring") && listed.output.contains(stage.appendingPathComponent("usr/lib/motiond/plugins").path),
                "\(listed.output)\n\(installed.log)")
        _ = await installed.stop()
    }

    /// docs/clients.md: installed into a prefix of its own (not the loader's paths), the documented
    /// pkg-config build runs as it is: the .pc file carries the library's rpath (issue #43: it linked, then
    /// failed at run time with "cannot open shared object file").
    @Test func aPrefixInstallBuildsAndRunsWithPkgConfigAlone() async throws {
        let prefix = try CCompiler.temporaryDirectory().appendingPathComponent("opt-motiond")
        let install = try await Self.run(CCompiler.repository.appendingPathComponent("scripts/install").path,
                                         ["--prefix", prefix.path, "--bin", DaemonProcess.buildDirectory.path])
        #expect(install.status == 0, "\(install.output)")
        let flags = try await Self.run("/usr/bin/pkg-config", ["--cflags", "--libs", "motion-client"],
                                       environment: ["PKG_CONFIG_PATH": prefix.appendingPathComponent("lib/pkgconfig").path])
        #expect(flags.output.contains("-Wl,-rpath,\(prefix.appendingPathComponent("lib").path)"), "\(flags.output)")
        let program = prefix.appendingPathComponent("c_client").path
        let build = try await Self.run("/usr/bin/cc", ["-std=c99", "-Wall", "-Werror", Self.example, "-o", program]
                                       + flags.output.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(build.status == 0, "\(build.output)")
        let daemon = try await DaemonProcess()
        let ran = try await Self.run(program, [daemon.socket])
        #expect(ran.status == 0 && ran.output.contains("card.position = [100, 50]"), "\(ran.output)")
        _ = await daemon.stop()
    }

    /// docs/clients.md shared-memory frames: the reply hands over a memfd that starts with MOTF; the reader gets
    /// every card's final value, named by the slot events; a JSON subscriber is refused nothing.
    @Test func aSharedMemorySubscriptionHandsOverTheRegionAndItsValues() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let program = try await Self.buildAgainstLibrary(Self.shmExample, named: "c_shm_reader", in: directory)
        let daemon = try await DaemonProcess()
        let ran = try await Self.run(program, [daemon.socket])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output.contains("region: MOTF 1.0, 262144 slots"), "\(ran.output)")
        #expect(ran.output.contains("card1.x = 100, card2.x = 200, card3.x = 300"), "\(ran.output)")
        // Refusals name what is wrong.
        let client = try await daemon.client()
        for (params, words) in [(["streams": ["frames", "trace"], "transport": "shm"] as JSONValue, "the \"frames\" stream alone"),
                                (["streams": ["frames"], "transport": "udp"], "expected \"json\" or \"shm\""),
                                (["streams": ["frames"], "transport": "shm", "slots": 1e9], "at most"),
                                (["streams": ["frames"], "slots": 4], "only a transport \"shm\"")] {
            do {
                _ = try await client.call("subscribe", params)
                Issue.record("subscribe \(params) was accepted")
            } catch let error as MotionClientError {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
        await client.close()
    }

    /// A shm subscription made with motion_client_call leaves no descriptor behind for the next
    /// motion_client_subscribe_shm to map by mistake.
    @Test func aSharedMemorySubscriptionAfterOneMadeByCallMapsItsOwnRegion() async throws {
        let program = try await Self.buildAgainstLibrary(Self.fixture("shm_after_call.c"), named: "shm_after_call",
                                                         in: try CCompiler.temporaryDirectory())
        let daemon = try await DaemonProcess()
        let ran = try await Self.run(program, [daemon.socket])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output.contains("sub 3: 4096 slots"), "\(ran.output)")
    }

    /// A uid's shared-memory subscriptions hold at most `shmSlots` slots together, and a region whose
    /// subscription ended is released though its client keeps the descriptor (the pages are the daemon's
    /// memory: a client keeping 64 × 64 regions held them all).
    @Test func sharedMemoryIsAQuotaPerUidAndReleasedWhenItsSubscriptionEnds() async throws {
        let program = try await Self.buildAgainstLibrary(Self.fixture("shm_quota.c"), named: "shm_quota",
                                                         in: try CCompiler.temporaryDirectory())
        let daemon = try await DaemonProcess()
        let ran = try await Self.run(program, [daemon.socket])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(ran.output.contains("third: refused {\"code\":\"quota.exceeded\"") && ran.output.contains("quota shmSlots: uid "),
                "\(ran.output)")
        #expect(ran.output.contains("before: MOTF") && ran.output.contains("after: zeros") && ran.output.contains("other: MOTF"),
                "\(ran.output)")
        #expect(ran.output.contains("again: accepted"), "the ended subscription's slots are free again: \(ran.output)")
    }

    /// docs/clients.md: a daemon restart is survived: the library connects again, resubscribes (same id) and
    /// says so with a `reconnected` event; frames of the new daemon follow.
    @Test func aRestartIsSurvivedWithTheSameSubscription() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let program = try await Self.buildAgainstLibrary(Self.fixture("reconnecting_client.c"), named: "reconnecting_client", in: directory)
        let path = directory.appendingPathComponent("m.sock").path
        let first = try await DaemonProcess(socket: path)
        async let ran = Self.run(program, [path], timeout: DaemonProcess.acrossARestart)
        try await first.waitForSubscriptions(atLeast: 1)
        let (second, client) = try await Self.restart(first, at: path)
        let output = try await ran
        #expect(output.status == 0, "\(output.output)")
        // The unsubscribed subscription 1 is not made again; "after" keeps its id 2.
        #expect(output.output.contains("subscribed 2 after 1") && output.output.contains("reconnected") && output.output.contains("frame after.x"),
                "\(output.output)")
        #expect(!output.output.contains("unsubscribed subscription"), "\(output.output)")
        await client.close()
        _ = await second.stop()
    }

    /// docs/protocol.md#idempotency-keys from C: a keyed call made as motiond restarts is sent again until
    /// the new daemon answers, and its repeat is answered with the first result.
    @Test func aKeyedCallIsSentAgainAcrossARestartAndAppliedOnce() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let program = try await Self.buildAgainstLibrary(Self.fixture("keyed_client.c"), named: "keyed_client", in: directory)
        let path = directory.appendingPathComponent("m.sock").path
        let first = try await DaemonProcess(socket: path)
        async let ran = Self.run(program, [path], timeout: DaemonProcess.acrossARestart)
        let watcher = try await first.client()
        var there = false
        for _ in 0..<400 where !there {
            there = (try? await watcher.call("runtime.state", ["runtime": "waiting-keyed"])) != nil
            if !there { try await Task.sleep(for: .milliseconds(50)) }  // polls for the program's marker
        }
        #expect(there, "the program reached its wait")
        await watcher.close()
        let (second, client) = try await Self.restart(first, at: path, resubscribes: false)
        let output = try await ran
        #expect(output.status == 0, "\(output.output)")
        #expect(output.output.contains("keyed across the restart: 0 {\"") && output.output.contains("repeat: 0 the first result"), "\(output.output)")
        #expect(output.output.contains("empty key: -1 request.invalid"), "\(output.output)")
        #expect(try await client.call("runtime.state", ["runtime": "kept-keyed"])["runtime"] == "kept-keyed")
        await client.close()
        _ = await second.stop()
    }

    /// The edges a client author met (issue #21's trial): params that are not JSON answer protocol.parse
    /// (the call waited forever); a program's own `json_int` does not replace the library's (shared and
    /// static); one pollable descriptor for the client's life, through a restart; a reconnect made by a
    /// call is told by a "reconnected" event.
    @Test(arguments: [false, true])
    func theLibrarysEdgesHold(linkedStatically: Bool) async throws {
        let directory = try CCompiler.temporaryDirectory()
        let source = Self.fixture("client_edges.c"), bin = DaemonProcess.buildDirectory.path
        let program = directory.appendingPathComponent("client_edges").path
        let library = linkedStatically ? ["\(bin)/libmotion-client-static.a"] : ["-L", bin, "-lmotion-client", "-Wl,-rpath,\(bin)"]
        let build = try await Self.run("/usr/bin/cc", ["-std=c99", "-Wall", "-Wextra", "-Werror"] + Self.includes + [source] + library
                                       + ["-o", program])
        #expect(build.status == 0, "\(build.output)")
        let path = directory.appendingPathComponent("m.sock").path
        let first = try await DaemonProcess(socket: path)
        async let ran = Self.run(program, [path], timeout: DaemonProcess.acrossARestart)
        func waitFor(_ runtime: String, on daemon: DaemonProcess) async throws {
            let watcher = try await daemon.client()
            var there = false
            for _ in 0..<400 where !there {
                there = (try? await watcher.call("runtime.state", ["runtime": .string(runtime)])) != nil
                if !there { try await Task.sleep(for: .milliseconds(50)) }  // polls for the program's runtime
            }
            #expect(there, "the program reached \(runtime)")
            await watcher.close()
        }
        try await waitFor("waiting1", on: first)
        let (second, client) = try await Self.restart(first, at: path)
        await client.close()
        try await waitFor("waiting2", on: second)
        let (third, last) = try await Self.restart(second, at: path, resubscribes: false)
        let output = try await ran
        #expect(output.status == 0, "\(output.output)")
        for line in ["not json: -1 {\"code\":\"protocol.parse\"", "subscribed 1", "refused subscribe: -1 {\"code\":\"request.invalid\"", "shm without streams: 0 sub 2",
                     "reconnected in the poll loop, the same descriptor",
                     "frame after restart", "reconnected in a call, told"] {
            #expect(output.output.contains(line), "\(line): \(output.output)")
        }
        await last.close()
        _ = await third.stop()
    }

    /// The Swift client's reconnecting wrapper, through the same restart.
    @Test func theSwiftReconnectingClientSurvivesARestart() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let path = directory.appendingPathComponent("m.sock").path
        let first = try await DaemonProcess(socket: path)
        let client = try await ReconnectingClient.connect(path: path)
        // Made with a plain call and unsubscribed: not made again, and "after" keeps its id 2.
        let unwanted = try await client.call("subscribe", ["streams": ["frames"], "targets": ["after"]])
        let sub = try await client.subscribe(["streams": ["frames"], "targets": ["after"]])
        _ = try await client.call("unsubscribe", ["sub": unwanted["sub"] ?? .null])
        #expect(unwanted["sub"] == 1 && sub["sub"] == 2)
        async let seen: [String] = {
            var seen: [String] = []
            for await event in client.events {
                if event["event"] == "reconnected" { seen.append("reconnected") }
                if event["event"] == "frame", event["sub"] == 1 {
                    seen.append("a frame of the unsubscribed subscription")
                    break
                }
                if event["event"] == "frame", event["sub"] == 2, seen.contains("reconnected") {
                    seen.append("frame")
                    break
                }
            }
            return seen
        }()
        let (second, other) = try await Self.restart(first, at: path)
        let events = await seen
        #expect(events == ["reconnected", "frame"], "\(events)")
        #expect(try await client.call("status")["clients"] != nil, "calls go to the new daemon")
        await client.close()
        await other.close()
        _ = await second.stop()
    }
}
