import Foundation
import MotionClient
import MotionWire
import Testing

/// docs/protocol.md#ownership-and-quotas: a uid's requests take at most `quotas.enginePercent` of the engine
/// thread's time, measured, however many it sends: the rest of every frame interval is the frame
/// clock's, the frame writers' and other uids'.
@Suite("Engine share per uid")
struct EngineShareTests {
    /// `nobody` keeps 32 staggered plan.adds over 256 targets in flight (milliseconds of engine time each);
    /// its engine time over 2 s of wall-clock time while its backlog lasts stays within its 20 %.
    @Test(.enabled(if: FairnessTests.canSwitchUser, "needs root and setpriv to act as a second uid"))
    func aFloodTakesNoMoreThanItsShareOfTheEngineThread() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"quotas": {"enginePercent": 20}}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
        let client = try await daemon.client()
        let quotas = try await client.call("status")["usage"]?["quotas"]
        #expect(quotas?["enginePercent"]?.doubleValue == 20, "\(String(describing: quotas))")
        // 32 requests in flight for 4 s, then the rest answered: a backlog all along, short at the end.
        let flood = """
            import json, socket, sys, time
            names = ["t%d" % i for i in range(256)]
            plan = {"type": "Spring", "property": "x", "to": [1], "tension": 1, "damping": 0.001}
            line = (json.dumps({"id": 1, "method": "plan.add", "params": {"targets": names, "stagger": 0.01, "plan": plan}}) + "\\n").encode()
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
            f.write(b'{"id":0,"method":"hello","params":{"protocol":1}}\\n'); f.flush(); f.readline()
            f.write(line * 32); f.flush()
            print("flooding", flush=True)
            end, outstanding = time.monotonic() + 4, 32
            while outstanding:
                assert "result" in json.loads(f.readline())
                outstanding -= 1
                if time.monotonic() < end:
                    f.write(line); f.flush(); outstanding += 1
            print("done", flush=True)
            """
        let attacker = Process()
        attacker.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        attacker.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", flood, daemon.socket]
        let output = Pipe()
        attacker.standardOutput = output
        try attacker.runAlone()
        var text = output.read(until: "flooding\n")
        #expect(text.hasPrefix("flooding"), "\(text)")
        func engineSeconds() async throws -> Double {
            let metrics = try await client.call("metrics")["text"]?.stringValue ?? ""
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("motiond_uid_engine_seconds_total{uid=\"65534\"}") }
            return line?.split(separator: " ").last.flatMap { Double(String($0)) } ?? 0
        }
        // The daemon reads its counter somewhere between a request and its answer: the stretch it measured
        // lies between (second asked − first answered) and (second answered − first asked), whatever a
        // loaded machine did to this process in between.
        let firstAsked = Date()
        let first = try await engineSeconds()
        let firstAnswered = Date()
        try await Task.sleep(for: .seconds(2))  // a share is measured over a stretch of wall-clock time
        let secondAsked = Date()
        let last = try await engineSeconds()
        let secondAnswered = Date()
        let shortest = secondAsked.timeIntervalSince(firstAnswered), longest = secondAnswered.timeIntervalSince(firstAsked)
        let (least, most) = ((last - first) / longest, (last - first) / shortest)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.hasSuffix("done\n"), "\(text)")
        // 20 % and at most one command over it (the uid pays back what it overdrew, by waiting).
        #expect(most > 0.12 && least < 0.22, "engine share of uid 65534: \(least)–\(most) (over \(shortest)–\(longest) s)")
        _ = await attacker.exitStatus()
        await client.close()
        #expect(await daemon.stop() == 0)
    }
}
