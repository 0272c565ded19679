import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// Issue #45: one uid cannot exhaust the daemon. A real second uid (`nobody`, via setpriv) attacks with
/// many connections, unfinished lines and readers that never read, while a client of this uid (the
/// victim) counts the frames of its own tween; every refusal names what ran out.
@Suite("Exhaustion by one uid")
struct ExhaustionTests {
    static let asSecondUid = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    /// A daemon with small per-uid bounds, its socket open to `nobody`.
    static func daemon(quotas: String, perUser: Int) async throws -> DaemonProcess {
        let directory = try DaemonProcess.temporaryDirectory()
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"maxConnectionsPerUser": \#(perUser), "quotas": \#(quotas)}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
        return daemon
    }

    /// The victim: a tween of its own it follows, frames timed by the daemon (`t`).
    static func victim(of daemon: DaemonProcess) async throws -> (MotionClient, EventCollector) {
        let victim = try await daemon.client()
        let events = EventCollector(victim)
        _ = try await victim.call("subscribe", ["streams": ["frames"], "targets": ["card"]])
        _ = try await victim.call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [100], "duration": 600]])
        return (victim, events)
    }

    /// The victim's frames while the attack ran: how many of the 120 a second arrived, the longest gap.
    static func victimFrames(_ events: EventCollector, from start: Double, to end: Double) async -> (share: Double, longestGap: Double) {
        let times = await events.events.filter { $0["event"] == "frame" }.compactMap { $0["t"]?.doubleValue }.filter { $0 >= start && $0 <= end }
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        return (Double(times.count) / ((end - start) * 120), gaps.max() ?? .infinity)
    }

    static func runAsNobody(_ script: String, _ arguments: [String]) async throws -> [Substring] {
        let run = try await TestProcess.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                                  "/usr/bin/python3", "-c", script] + arguments, timeout: 120)
        return run.output.split(separator: "\n")
    }

    @Test(.enabled(if: asSecondUid, "needs root, setpriv and python3 to act as a second uid"))
    func connectionsAndUnfinishedLinesStopAtTheirQuotasAndTheVictimKeepsItsFrames() async throws {
        let daemon = try await Self.daemon(quotas: #"{"inputBytes": 4194304}"#, perUser: 64)
        let (victim, events) = try await Self.victim(of: daemon)
        let start = try await victim.call("status")["uptime"]?.doubleValue ?? 0
        // 70 connections (64 admitted), then 100 KB of a line on each admitted one, never finished.
        let script = """
            import collections, json, socket, sys, time
            codes = collections.Counter()
            held = []
            def first_error(s):
                s.settimeout(15)
                data = b""
                while b"\\n" not in data:
                    try:
                        chunk = s.recv(4096)
                    except OSError:
                        return "closed"
                    if not chunk: return "closed"
                    data += chunk
                e = json.loads(data.split(b"\\n")[0]).get("error")
                return "ok" if e is None else e["code"] + " " + e["message"].split(":")[0]
            for c in range(70):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                try:
                    s.sendall(json.dumps({"id": 0, "method": "hello", "params": {"protocol": 1}}).encode() + b"\\n")
                except OSError:
                    pass  # refused at once: its closing line is still there to read
                answer = first_error(s)
                codes["hello " + answer] += 1
                if answer == "ok": held.append(s)
            for s in held:
                try:
                    s.sendall(b'{"id":1,"method":"status","params":{"pad":"' + b"a" * 100000)
                except OSError:
                    pass
            for s in held: codes["line " + first_error(s)] += 1
            for key in sorted(codes): print(key, codes[key])
            """
        let lines = try await Self.runAsNobody(script, [daemon.socket])
        let end = try await victim.call("status")["uptime"]?.doubleValue ?? 0
        let counts = Dictionary(uniqueKeysWithValues: lines.compactMap { line -> (String, Int)? in
            guard let space = line.lastIndex(of: " "), let count = Int(line[line.index(after: space)...]) else { return nil }
            return (String(line[..<space]), count)
        })
        // Every refused one is told why, unless the closing raced its hello (then its socket just ends).
        let told = counts["hello quota.exceeded quota connections"] ?? 0
        #expect(counts["hello ok"] == 64 && told >= 1 && told + (counts["hello closed"] ?? 0) == 6, "\(lines)")
        let refused = counts["line quota.exceeded quota inputBytes"] ?? 0, timedOut = counts["line protocol.line_timeout a request line unfinished 10 s after its first byte; closing the connection"] ?? 0
        // 4 MiB hold 41 lines of 100 KB; a refused connection's bytes are given back.
        #expect(refused >= 20 && timedOut >= 38 && refused + timedOut == 64, "\(lines)")
        #expect(daemon.process.isRunning, "motiond is up")
        let (share, gap) = await Self.victimFrames(events, from: start + 0.25, to: end - 0.25)
        #expect(share >= 0.8, "the victim got \(Int(share * 100)) % of its frames during the attack; longest gap \(gap) s")
        #expect(gap < 0.4, "the victim's longest gap between frames: \(gap) s")
        // The attacker's sockets are closed when its process ends; the daemon sees each close soon after.
        var status = try await victim.call("status")
        let closing = ContinuousClock.now
        while status["clients"] != 1, ContinuousClock.now - closing < .seconds(10) {
            try await Task.sleep(for: .milliseconds(50))  // polls for the closes to be seen
            status = try await victim.call("status")
        }
        #expect(status["clients"] == 1, "every attacking connection is gone: \(status["clients"] ?? .null)")
        await victim.close()
    }
}
