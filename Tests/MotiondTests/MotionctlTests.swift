import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// motionctl tried as a new user would (issue #8's acceptance), against a real daemon.
@Suite("motionctl")
struct MotionctlTests {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs motionctl with `arguments`, stopping it after `timeout` seconds.
    static func motionctl(_ arguments: [String], timeout: Double = 20, environment: [String: String] = [:]) async throws -> Run {
        let process = Process()
        process.executableURL = DaemonProcess.buildDirectory.appendingPathComponent("motionctl")
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.runAlone()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }  // polls for motionctl's exit
        if process.isRunning { process.terminate() }
        _ = await process.exitStatus()
        return Run(status: process.terminationStatus,
                   output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                   errors: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// Returns once `daemon` has a subscription; fails after 30 s.
    static func waitForASubscriber(_ daemon: DaemonProcess) async throws {
        try await daemon.waitForSubscriptions(atLeast: 1)
    }

    /// docs/clients.md: `motionctl watch` survives a daemon restart: it connects again and resubscribes.
    @Test func watchReconnectsWhenMotiondRestarts() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let path = directory.appendingPathComponent("m.sock").path
        let first = try await DaemonProcess(socket: path)
        async let watched = Self.motionctl(["watch", "--socket", path, "--frames", "--count", "2"], timeout: DaemonProcess.acrossARestart)
        // A loaded machine may take a while to start motionctl: stop the first daemon only once watch has subscribed.
        try await Self.waitForASubscriber(first)
        _ = await first.stop()
        let second = try await DaemonProcess(socket: path)
        do {
            try await Self.waitForASubscriber(second)
        } catch {
            let run = try await watched
            Issue.record("watch did not subscribe to the new daemon: \(error); watch: \(run)")
            return
        }
        let added = try await Self.motionctl(["--socket", path, "plan", "add", "box", #"{"type":"Spring","property":"x","to":[100]}"#])
        #expect(added.status == 0, "\(added)")
        let run = try await watched
        #expect(run.status == 0, "\(run)")
        #expect(run.errors.contains("reconnecting") && run.errors.contains("watching again"), "\(run.errors)")
        #expect(run.output.contains("server.shutting_down"), "the first daemon's closing notice is shown: \(run.output)")
        #expect(run.output.split(separator: "\n").filter { $0.contains("box.x") }.count == 2, "\(run.output)")
        _ = await second.stop()
        let alone = try await Self.motionctl(["watch", "--socket", path, "--no-reconnect"], timeout: 5)
        #expect(alone.status != 0, "with no daemon and no reconnecting, watch fails at once")
    }

    /// Issue #39's acceptance: under reduce motion a spring ends at once, and `watch --until runtime.idle`
    /// prints its final value before it stops (the end used to arrive before the frame).
    @Test func watchUntilIdleShowsTheFinalValueUnderReduceMotion() async throws {
        let daemon = try await DaemonProcess(arguments: ["--reduce-motion"])
        let socket = ["--socket", daemon.socket]
        async let watched = Self.motionctl(socket + ["watch", "--frames", "--until", "runtime.idle"])
        try await Self.waitForASubscriber(daemon)
        let added = try await Self.motionctl(socket + ["plan", "add", "box", #"{"type":"Spring","property":"y","from":[0],"to":[40]}"#])
        #expect(added.status == 0, "\(added)")
        let watch = try await watched
        #expect(watch.status == 0, "\(watch)")
        let lines = watch.output.split(separator: "\n")
        let final = lines.firstIndex { $0.contains("frame") && $0.contains("box.y=[40.000]") }
        let idle = lines.firstIndex { $0.contains("runtime.idle") }
        #expect(final != nil && idle != nil && final! < idle!, "\(watch.output)")
    }

    @Test func aNewUsersFirstSession() async throws {
        let daemon = try await DaemonProcess()
        let socket = ["--socket", daemon.socket]
        let status = try await Self.motionctl(socket + ["status"])
        #expect(status.status == 0 && status.output.contains("rate 120"), "\(status)")
        let plugins = try await Self.motionctl(socket + ["plugins", "list"])
        #expect(plugins.output.contains("Spring"))

        async let watched = Self.motionctl(socket + ["watch", "--frames", "--count", "3"])
        try await Self.waitForASubscriber(daemon)
        let added = try await Self.motionctl(socket + ["plan", "add", "box", #"{"type":"Spring","property":"position","to":[100,50]}"#])
        #expect(added.status == 0)
        let watch = try await watched
        #expect(watch.status == 0)
        #expect(watch.output.split(separator: "\n").count == 3)
        #expect(watch.output.split(separator: "\n").allSatisfy { $0.contains("frame") && $0.contains("box.position=") })
        #expect(!watch.output.contains("\u{1B}["), "no colour when stdout is not a terminal")

        let svg = daemon.directory.appendingPathComponent("spring.svg")
        let plot = try await Self.motionctl(socket + ["plot", #"{"type":"Spring","property":"position","from":[0,0],"to":[100,50]}"#, "--out", svg.path])
        #expect(plot.status == 0, "\(plot)")
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.components(separatedBy: "<polyline").count - 1 >= 2, "one curve per component")
        #expect(text.components(separatedBy: "<text").count - 1 >= 3)
        #expect(text.contains("time (s)") && text.contains("settles at"))
        #expect(text.contains("target 100") && text.contains("target 50"), "each component's target is marked")

        // Several plans in one chart: each its curves, its target, its settle time, named in the legend.
        let both = daemon.directory.appendingPathComponent("both.svg")
        let overlay = try await Self.motionctl(socket + ["plot", #"[{"type":"Spring","property":"x","from":[0],"to":[1]},{"type":"Tween","property":"x","from":[0],"to":[2],"duration":0.3}]"#,
                                                         "--out", both.path])
        #expect(overlay.status == 0 && overlay.output.contains("2 curve(s) of 2 plan(s)"), "\(overlay)")
        let chart = try String(contentsOf: both, encoding: .utf8)
        #expect(chart.components(separatedBy: "<polyline").count - 1 == 2 && chart.contains("2 plans on x"), "\(chart.prefix(400))")
        #expect(chart.contains("1. Spring x[0]") && chart.contains("2. Tween x[0]") && chart.contains("target 2"))
        #expect(chart.contains("1. settles at") && chart.contains("2. settles at 0.3"))
    }

    @Test func exitCodesAScriptCanRelyOn() async throws {
        let daemon = try await DaemonProcess()
        let socket = ["--socket", daemon.socket]
        let refused = try await Self.motionctl(socket + ["plan", "add", "box", #"{"type":"Warp"}"#])
        #expect(refused.status == 1)
        #expect(refused.errors.hasPrefix("motionctl: plan.unknown_type:"))
        let nope = daemon.directory.appendingPathComponent("nope.sock").path
        let unreachable = try await Self.motionctl(["--socket", nope, "status"])
        #expect(unreachable.status == 3)
        #expect(unreachable.errors == "motionctl: cannot connect to motiond at \(nope): No such file or directory\n", "plain words, no NIO internals: \(unreachable.errors)")
        let fromEnvironment = try await Self.motionctl(["status"], environment: ["MOTIOND_SOCKET": daemon.socket])
        #expect(fromEnvironment.status == 0 && fromEnvironment.output.hasPrefix("motiond "), "MOTIOND_SOCKET names the socket: \(fromEnvironment)")
        // A folder that is not there: a sentence, not a Foundation domain dump (issue #43).
        let missing = daemon.directory.appendingPathComponent("no/such/folder/x.svg").path
        let unwritten = try await Self.motionctl(socket + ["plot", #"{"type":"Spring","property":"x","to":[1]}"#, "--out", missing])
        #expect(unwritten.status == 1 && unwritten.errors == "motionctl: cannot write \(missing): No such file or directory (does its folder exist?)\n",
                "\(unwritten.errors)")
        // A file to read that is not there, or is a folder: the system's reason, not a Foundation dump.
        let noFile = daemon.directory.appendingPathComponent("routes.json").path
        let unread = try await Self.motionctl(socket + ["router", "configure", noFile])
        #expect(unread.status != 0 && unread.errors.contains("\(noFile): No such file or directory") && !unread.errors.contains("Domain"), "\(unread.errors)")
        let folder = try await Self.motionctl(socket + ["gesture", daemon.directory.path, "--plan", #"{"type":"Draggable","property":"x"}"#])
        #expect(folder.status != 0 && folder.errors.contains("\(daemon.directory.path): Is a directory") && !folder.errors.contains("Domain"), "\(folder.errors)")
        let png = try await Self.motionctl(socket + ["plot", #"{"type":"Spring","property":"x","to":[1]}"#, "--out", daemon.directory.appendingPathComponent("x.png").path])
        #expect(png.status == 64 && png.errors.contains("writes SVG only"), "\(png)")
        #expect(png.errors.contains("Usage: motionctl plot "), "the subcommand's usage, not the root's: \(png.errors)")
        let notJSON = try await Self.motionctl(socket + ["plan", "add", "card", "not json"])
        #expect(notJSON.status == 64 && notJSON.errors.contains("Usage: motionctl plan add ")
                && notJSON.errors.contains("See 'motionctl plan add --help'"), "\(notJSON)")
        let usage = try await Self.motionctl(socket + ["plan", "add"])
        #expect(usage.status == 64)
        // A theme file that is not there is said to be missing, not "not a shipped theme".
        let noTheme = try await Self.motionctl(socket + ["theme", "set", "--user", "nosuch.json"])
        #expect(noTheme.status == 64 && noTheme.errors.contains("nosuch.json: no such file"), "\(noTheme)")
        let version = try await Self.motionctl(["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("motionctl 0."), "\(version)")

        _ = try await Self.motionctl(socket + ["plan", "add", "box", #"{"type":"Tween","property":"x","from":[0],"to":[10],"duration":1,"timing":"linear"}"#])
        // The scrubber lives as long as the attaching command holds its connection (docs/protocol.md).
        async let attached = Self.motionctl(socket + ["timeline", "attach", "--offset", "0.5", "--hold", "2"])
        let client = try await daemon.client()
        var value: JSONValue?
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(40))  // polls until the scrubber holds x at the offset
            value = try await client.call("runtime.state")["targets"]?["box"]?["properties"]?["x"]?["value"]
            if value == [5] { break }
        }
        #expect(value == [5], "held at the offset while the command runs")
        #expect(try await attached.output.contains("attached at 0.5"))
        for _ in 0..<75 where try await client.call("runtime.state")["targets"]?["box"]?["properties"]?["x"]?["value"] != [10] {
            try await Task.sleep(for: .milliseconds(40))  // polls until the tween reaches its end
        }
        #expect(try await client.call("runtime.state")["targets"]?["box"]?["properties"]?["x"]?["value"] == [10],
                "detached when the command exited: the tween went on to its end")
        let detached = try await Self.motionctl(socket + ["timeline", "detach"])
        #expect(detached.output.contains("detached"))
        await client.close()
    }

    @Test func aReloadThatRejectsAFileExitsNonZero() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        _ = try await CCompiler.sharedLibrary(["Plugins/SetPlugin/set_plugin.c"], name: "libset.so", in: plugins)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
        let socket = ["--socket", daemon.socket]
        let unchanged = try await Self.motionctl(socket + ["plugins", "reload"])
        #expect(unchanged.status == 0, "\(unchanged)")
        _ = try await CCompiler.sharedLibrary(["Tests/MotionHostTests/Fixtures/c/bad_magic.c"], name: "libbad.so", in: plugins)
        let rejected = try await Self.motionctl(socket + ["plugins", "reload"])
        #expect(rejected.status == 1, "a rejected file fails the reload: \(rejected)")
        #expect(rejected.output.contains("rejected") && rejected.errors.contains("1 file was rejected"), "\(rejected)")
    }

    @Test func watchSaysWhyTheDaemonClosedTheConnection() async throws {
        let daemon = try await DaemonProcess()
        async let watch = Self.motionctl(["--socket", daemon.socket, "watch", "--trace", "--no-reconnect"])
        let observer = try await daemon.client()
        var subscribed = false
        for _ in 0..<200 where !subscribed {
            subscribed = (try await observer.call("status")["subscriptions"]?.intValue ?? 0) >= 1
            if !subscribed { try await Task.sleep(for: .milliseconds(20)) }  // polls until watch has subscribed
        }
        #expect(subscribed)
        await observer.close()
        _ = await daemon.stop()
        let run = try await watch
        #expect(run.status == 3, "\(run)")
        #expect(run.output.contains("error server.shutting_down: motiond is stopping"), "\(run)")
    }

    /// `motionctl gesture`: a recorded throw replayed against a Tossable prints the drag's frames and the
    /// spring that takes it to the snap point.
    @Test func aRecordedGestureIsReplayedAgainstAPlan() async throws {
        let daemon = try await DaemonProcess()
        let file = try DaemonProcess.temporaryDirectory().appendingPathComponent("throw.json")
        // 1,000 units/s for 80 ms, recorded at some other time (100 s): the replay shifts it to now.
        var samples: [JSONValue] = []
        for index in 0...10 {
            let phase: JSONValue = index == 0 ? "began" : "moved"
            let position: JSONValue = [.number(Double(index) * 8)]
            samples.append(["t": .number(100 + Double(index) * 0.008), "position": position, "phase": phase])
        }
        samples.append(["t": 100.088, "position": [80], "phase": "ended"])
        try Data(JSONWriter.bytes(.array(samples))).write(to: file)
        let run = try await Self.motionctl(["--socket", daemon.socket, "gesture", file.path, "--plan",
                                            #"{"type":"Tossable","property":"x","axis":"x","snap":[[0],[300]]}"#, "--json"], timeout: 30)
        #expect(run.status == 0, "\(run)")
        let events = run.output.split(separator: "\n").compactMap { try? JSONValue.parse(Array($0.utf8)) }
        let xs = events.flatMap { $0["updates"]?.arrayValue ?? [] }.compactMap { $0["value"]?.arrayValue?.first?.doubleValue }
        #expect(xs.contains(40), "the drag's frames: \(xs.prefix(12))")
        #expect(abs((xs.last ?? 0) - 300) < 1, "the spring took it to the snap point: \(xs.suffix(3))")
        #expect(events.contains { $0["kind"] == "gesture.ended" })
    }

    /// README's usage lines name motionctl's subcommands as its --help lists them: none missing, none made up.
    @Test func theReadmesUsageLinesAreMotionctlsSubcommands() async throws {
        let help = try await Self.motionctl(["--help"])
        guard let listed = help.output.range(of: "SUBCOMMANDS:") else {
            Issue.record("motionctl --help lists no subcommands: \(help.output)")
            return
        }
        let block = help.output[listed.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst()
            .prefix { !$0.isEmpty }                                  // up to the blank line before "See 'motionctl help …'"
        let subcommands = Set(block.compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else { return nil }
            return String(name)
        })
        let readme = try String(contentsOf: CCompiler.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let usage = Set(readme.split(separator: "\n").filter { $0.hasPrefix("motionctl ") }.compactMap { line in
            line.split(separator: " ").dropFirst().first { !$0.hasPrefix("[") && !$0.hasPrefix("-") && $0 != "PATH]" }.map(String.init)
        })
        #expect(subcommands.count >= 15, "\(subcommands)")
        #expect(usage.subtracting(subcommands).isEmpty, "README names \(usage.subtracting(subcommands).sorted()), which motionctl does not have")
        #expect(subcommands.subtracting(usage).subtracting(["help"]).isEmpty, "README's usage leaves out \(subcommands.subtracting(usage).sorted())")
    }

    /// README's `motiond` usage line names the options `motiond --help` lists: none missing, none made up.
    @Test func theReadmesMotiondUsageIsMotiondsOptions() async throws {
        let help = Process()
        help.executableURL = URL(fileURLWithPath: DaemonProcess.motiond)
        help.arguments = ["--help"]
        let output = Pipe()
        help.standardOutput = output
        try help.runAlone()
        _ = await help.exitStatus()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        func options(_ line: Substring) -> Set<String> {
            Set(line.split(whereSeparator: { " []".contains($0) }).filter { $0.hasPrefix("--") }.map(String.init))
        }
        let listed = text.split(separator: "\n").first { $0.hasPrefix("USAGE: motiond ") }.map(options) ?? []
        let readme = try String(contentsOf: CCompiler.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let usage = readme.split(separator: "\n").filter { $0.hasPrefix("motiond [") || $0.hasPrefix("motiond --") }.reduce(into: Set<String>()) {
            $0.formUnion(options($1))
        }
        #expect(listed.count >= 10, "\(text)")
        #expect(usage == listed, "README's usage: \(usage.subtracting(listed).sorted()) made up, \(listed.subtracting(usage).sorted()) left out")
    }

    /// `motionctl plot --frames FILE` draws the frames a client received (recorded here by `watch --json`):
    /// values, velocities or progress, per property; a broken recording is refused naming its line.
    @Test func plotDrawsRecordedFrames() async throws {
        let daemon = try await DaemonProcess()
        let socket = ["--socket", daemon.socket]
        async let watched = Self.motionctl(socket + ["watch", "--frames", "--trace", "--json", "--until", "runtime.idle"])
        try await Self.waitForASubscriber(daemon)
        _ = try await Self.motionctl(socket + ["plan", "add", "box", #"{"type":"Spring","property":"x","from":[0],"to":[100]}"#])
        let watch = try await watched
        #expect(watch.status == 0, "\(watch)")
        let directory = try CCompiler.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("frames.jsonl").path
        try watch.output.write(toFile: recording, atomically: true, encoding: .utf8)
        let frames = watch.output.split(separator: "\n").filter { $0.contains("\"frame\"") }.count
        #expect(frames > 10, "\(watch.output)")

        for (flags, axis) in [([String](), "value (property units)"), (["--velocity"], "velocity (property units/s)"),
                              (["--normalize"], "progress (0: first value, 1: last)")] {
            let svg = directory.appendingPathComponent("plot.svg").path
            let plotted = try await Self.motionctl(["plot", "--frames", recording, "--out", svg] + flags)
            #expect(plotted.status == 0 && plotted.output.contains("wrote \(svg): 1 property from \(frames) updates"), "\(plotted)")
            let text = try String(contentsOfFile: svg, encoding: .utf8)
            #expect(text.contains("box.x[0]") && text.contains(axis), "\(flags): \(text.prefix(600))")
            // One curve, a point per frame received.
            let points = text.components(separatedBy: "<polyline").dropFirst().first?.components(separatedBy: "points=\"").last?
                .prefix { $0 != "\"" }.split(separator: " ").count
            #expect(points == frames, "\(flags): \(String(describing: points)) points for \(frames) frames")
        }
        let broken = directory.appendingPathComponent("broken.jsonl").path
        try (watch.output.split(separator: "\n").prefix(1).joined() + "\n{not json\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let refused = try await Self.motionctl(["plot", "--frames", broken, "--out", directory.appendingPathComponent("b.svg").path])
        #expect(refused.status == 64 && refused.errors.contains("line 2 is not JSON"), "\(refused)")
        let onlyBox = try await Self.motionctl(["plot", "--frames", recording, "--target", "card", "--out", directory.appendingPathComponent("c.svg").path])
        #expect(onlyBox.status == 64 && onlyBox.errors.contains("holds no frame with updates of card"), "\(onlyBox)")
        let both = try await Self.motionctl(["plot", "--frames", recording, "--velocity", "--normalize", "--out", directory.appendingPathComponent("d.svg").path])
        #expect(both.status == 64 && both.errors.contains("draw velocities or progress, not both"), "\(both)")
    }
}
