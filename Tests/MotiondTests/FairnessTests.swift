import Foundation
import Testing

/// Requests of different uids take turns on the engine thread (docs/protocol.md#ownership-and-quotas): one uid's backlog of large
/// requests does not make another uid's request wait for all of it.
@Suite("Request fairness")
struct FairnessTests {
    static let canSwitchUser = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    /// `nobody` queues 96 staggered plan.adds over 256 targets on 4 connections (each a few milliseconds
    /// of the engine thread), then root sends one plan.add. In one first-come-first-served queue root's
    /// reply came after all of them; taking turns, after about one.
    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to act as a second uid"))
    func anotherUidsBacklogDoesNotDelayARequest() async throws {
        try await Self.flood(daemon: try await DaemonProcess())
    }

    /// The same with a state directory: both uids' plans go to lasting runtimes, journaled before they are
    /// applied (that a large journal group is applied in slices that take turns is
    /// `JournalTests.aLargeGroupIsAppliedInSlicesThatTakeTurns`: here the groups stay small).
    @Test(.enabled(if: canSwitchUser, "needs root and setpriv to act as a second uid"))
    func aJournaledBacklogDoesNotDelayARequestEither() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        try await Self.flood(daemon: try await DaemonProcess(arguments: ["--state-dir", state.path]))
    }

    static func flood(daemon: DaemonProcess) async throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
        let flood = """
            import json, socket, sys, time
            names = ["t%d" % i for i in range(256)]
            plan = {"type": "Spring", "property": "x", "to": [1], "tension": 1, "damping": 0.001}
            line = json.dumps({"id": 1, "method": "plan.add", "params": {"targets": names, "stagger": 0.01, "plan": plan}}) + "\\n"
            conns = []
            for _ in range(4):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
                f.write(b'{"id":0,"method":"hello","params":{"protocol":1}}\\n'); f.flush(); f.readline()
                conns.append(f)
            for f in conns:
                f.write(line.encode() * 24); f.flush()
            print("flooding", flush=True)
            times = []
            for f in conns:
                for _ in range(24):
                    reply = json.loads(f.readline()); times.append(time.monotonic())
                    assert "result" in reply, reply
            print(" ".join(repr(t) for t in sorted(times)), flush=True)
            """
        let attacker = Process()
        attacker.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        attacker.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", flood, daemon.socket]
        let attackerOutput = Pipe()
        attacker.standardOutput = attackerOutput
        try attacker.runAlone()
        var text = attackerOutput.read(until: "flooding\n")
        #expect(text.hasPrefix("flooding"), "\(text)")
        let ask = """
            import json, socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
            f.write(b'{"id":0,"method":"hello","params":{"protocol":1}}\\n'); f.flush(); f.readline()
            f.write(b'{"id":1,"method":"plan.add","params":{"target":"a","plan":{"type":"Set","property":"x","value":[1]}}}\\n'); f.flush()
            reply = json.loads(f.readline())
            print(time.monotonic() if "result" in reply else reply, flush=True)
            """
        let victim = Process()
        victim.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        victim.arguments = ["-c", ask, daemon.socket]
        let victimOutput = Pipe()
        victim.standardOutput = victimOutput
        try victim.runAlone()
        _ = await victim.exitStatus()
        _ = await attacker.exitStatus()
        text += String(decoding: attackerOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let answered = Double(String(decoding: victimOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines))
        let floodTimes = text.split(separator: "\n").dropFirst().first?.split(separator: " ").compactMap { Double($0) } ?? []
        #expect(floodTimes.count == 96, "\(text)")
        let before = floodTimes.filter { $0 < (answered ?? .infinity) }.count
        // First come, first served, it came after all 96. Taking turns, after a few without a journal;
        // with one, root's change also waits for the group being written (an fdatasync) while the flood's
        // written entries are applied: 33 and 55 in two stress runs beside a CPU-bound process. The claim:
        // the backlog did not make it wait for all of it (under 80 of the 96, well short of all).
        #expect(answered != nil && before < 80, "root's request was answered after \(before) of the other uid's 96")
    }
}
