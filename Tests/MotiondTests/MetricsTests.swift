import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md#metrics: the Prometheus text that `promtool check metrics` accepts, a client's
/// view of its own uid only, and `--metrics-file` kept up to date while something happens and left
/// alone while nothing does.
@Suite("Metrics")
struct MetricsTests {
    static let promtool = "/usr/bin/promtool"

    /// `promtool check metrics` on `text`: its exit status and what it said.
    static func check(_ text: String) async throws -> (Int32, String) {
        let input = try CCompiler.temporaryDirectory().appendingPathComponent("metrics.prom")
        try Data(text.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(promtool) check metrics < '\(input.path)' 2>&1"]
        let output = Pipe()
        process.standardOutput = output
        try process.runAlone()
        _ = await process.exitStatus()
        return (process.terminationStatus, String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test func theTextPassesPromtoolAndTheFileFollowsTheDaemonOnlyWhenItChanges() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool), "scripts/setup installs Debian's prometheus (promtool)")
        let directory = try DaemonProcess.temporaryDirectory()
        let file = directory.appendingPathComponent("motiond.prom").path
        let socket = directory.appendingPathComponent("motiond.sock").path
        // An operator made the file readable by the collector once (docs/operations.md#metrics): each
        // replace keeps its mode, whatever the daemon's umask (the unit's 0077 would make it 0600).
        #expect(FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o640]))
        let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                             command: ["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\"",  // the unit's umask
                                                       DaemonProcess.motiond, "--socket", socket, "--metrics-file", file],
                                             environment: ["MOTIOND_METRICS_FILE_INTERVAL_MS": "100"])
        let client = try await daemon.client()
        let watcher = try await daemon.client()
        _ = try await watcher.call("subscribe", ["streams": ["frames"]])
        _ = try await client.call("runtime.create", ["name": "twenty"])
        for index in 0..<20 {
            _ = try await client.call("plan.add", ["runtime": "twenty", "target": .string("t\(index)"),
                                                   "plan": ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 600]])
        }
        // The file follows: the 20 animations while their runtime lives (they last ten minutes, so a loaded
        // machine cannot end them before the file is read), then none once it has been destroyed.
        func read() -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        func poll(_ text: String) async throws -> Bool {
            for _ in 0..<1500 {
                if read().contains(text) { return true }
                try await Task.sleep(for: .milliseconds(20))  // polls the file
            }
            return false
        }
        #expect(try await poll("motiond_animations 20.0"), "the file showed the 20 animations: \(read())")
        func mode() -> Int { ((try? FileManager.default.attributesOfItem(atPath: file))?[.posixPermissions] as? Int) ?? 0 }
        #expect(mode() == 0o640, "the operator's mode kept: \(String(mode(), radix: 8))")
        let run = try await MotionctlTests.motionctl(["metrics", "--socket", socket])
        #expect(run.status == 0)
        let (status, said) = try await Self.check(run.output)
        #expect(status == 0, "promtool: \(said)\n\(run.output)")
        for series in ["motiond_tick_duration_seconds_bucket{le=\"0.008333\"}", "motiond_ticks_total", "motiond_uid_animations{uid=\"0\"} 20.0",
                       "# HELP motiond_tick_lateness_seconds", "motiond_subscriptions{transport=\"json\"} 1.0",
                       "motiond_frames_sent_total{transport=\"json\"}", "motiond_plugin_call_seconds_total{plugin=\"org.motiond.tween\"}",
                       "motiond_uid_tick_seconds_total{uid=\"0\"}"] {
            #expect(run.output.contains(series), "\(series) in\n\(run.output)")
        }
        _ = try await client.call("runtime.destroy", ["name": "twenty"])
        #expect(try await poll("motiond_animations 0.0"), "then none: \(read())")
        #expect(mode() == 0o640, "still kept: \(String(mode(), radix: 8))")
        #expect(try await Self.check(read()).0 == 0)
        // Idle: twenty intervals pass and the file is neither rewritten nor left half-written.
        let before = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
        for _ in 0..<20 {
            try await Task.sleep(for: .milliseconds(100))  // the negative needs its window: 20 intervals
            #expect(!FileManager.default.fileExists(atPath: file + ".tmp"))
        }
        let after = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
        #expect(before == after, "not rewritten while idle")
        await client.close()
        await watcher.close()
        #expect(await daemon.stop() == 0)
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aClientSeesItsOwnUidsSeriesOnly() async throws {
        let daemon = try await DaemonProcess()
        try ThemeDaemonTests.openToOthers(daemon)
        let client = try await daemon.client()
        _ = try await client.call("plan.add", ["target": "mine", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 30]])
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            for i, (m, p) in enumerate([("hello", {"protocol": 1}), ("plan.add", {"target": "theirs", "plan": {"type": "Tween", "property": "x", "to": [1], "duration": 30}}), ("metrics", {})]):
                f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush()
                while True:
                    r = json.loads(f.readline())
                    if r.get("id") == i: break
            print(r["result"]["text"])
            """
        let lines = try await AccessTests.runAsNobody(script, daemon.socket)
        let uids = Set(lines.compactMap { line -> Substring? in
            guard let start = line.range(of: "uid=\"") else { return nil }
            return line[start.upperBound...].prefix { $0 != "\"" }
        })
        #expect(uids == ["65534"], "only its own uid's series: \(lines.filter { $0.contains("uid=") })")
        // Nor totals of every uid's holdings (root's animation and connection counted in them).
        let totals = lines.filter { $0.hasPrefix("motiond_animations") || $0.hasPrefix("motiond_connections") || $0.hasPrefix("motiond_performers")
            || $0.hasPrefix("motiond_subscriptions") || $0.hasPrefix("motiond_plugin_call_seconds_total") || $0.contains("TYPE motiond_animations ") }
        #expect(totals.isEmpty, "\(totals)")
        #expect(lines.contains { $0.hasPrefix("motiond_ticks_total") }, "the daemon's own health is every client's: \(lines)")
        let all = try await client.call("metrics")["text"]?.stringValue ?? ""
        #expect(all.contains("uid=\"0\"") && all.contains("uid=\"65534\""), "an admin sees every uid's")
        await client.close()
        _ = await daemon.stop()
    }
}
