import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// Issue #45's memory attack with a real daemon (docs/protocol.md#ownership-and-quotas, `planBytes`): uid
/// 65534 adds `Keyframes` plans of 1,000 values (9 KB of JSON, ~170 KB in the daemon) until refused. The
/// refusal is `quota.exceeded` naming `planBytes`, the daemon grows by about the quota and no more, root's
/// own large plan still goes in, and the charge is given back when the attacker's runtime goes.
@Suite("planBytes quota")
struct PlanBytesQuotaTests {
    static let attack = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
        def call(i, m, p):
            f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush()
            while True:
                r = json.loads(f.readline())
                if r.get("id") == i: return r
        call(0, "hello", {"protocol": 1})
        call(1, "runtime.create", {"name": "cards", "ephemeral": True})
        plan = {"type": "Keyframes", "property": "x", "values": [[float(i)] for i in range(1000)], "duration": 600}
        for i in range(100000):
            r = call(2 + i, "plan.add", {"runtime": "cards", "target": "t%d" % i, "plan": plan})
            if "error" in r:
                print(i, r["error"]["code"], r["error"]["message"], flush=True)
                break
        sys.stdin.readline()  # holds its runtime until the test says
        """

    @Test(.enabled(if: FairnessTests.canSwitchUser, "needs root, setpriv and python3 to act as a second uid"))
    func largePlansOfOneUidAreRefusedAtItsPlanBytes() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"quotas": {"planBytes": 33554432}}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path])
        try ThemeDaemonTests.openToOthers(daemon)
        let client = try await daemon.client()
        let before = daemon.residentMegabytes

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", Self.attack, daemon.socket]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        try process.runAlone()
        let said = output.read(until: "\n").trimmingCharacters(in: .newlines)
        // 32 MiB at ~156 KB a plan (1,001 numbers at 160 bytes, less the first 4 KiB): 214 of them, then the refusal.
        let parts = said.split(separator: " ", maxSplits: 2)
        #expect(parts.count == 3 && (200...220).contains(Int(parts[0]) ?? 0) && parts[1] == "quota.exceeded" && parts[2].hasPrefix("quota planBytes: uid 65534"),
                "\(said)")
        let grown = daemon.residentMegabytes - before
        #expect(grown < 80, "the daemon grew by \(grown) MiB for a 32 MiB quota")
        let usage = try await client.call("status")["usage"]?["uids"]?.arrayValue?.first { $0["uid"] == 65534 }
        #expect((usage?["planBytes"]?.doubleValue ?? 0) > 30_000_000, "\(String(describing: usage))")
        // Root's quota is its own.
        let plan: JSONValue = ["type": "Keyframes", "property": "x", "values": .array((0..<1000).map { [.number(Double($0))] }), "duration": 600]
        let added = try await client.call("plan.add", ["target": "mine", "plan": plan])
        #expect(added["performer"] != nil, "\(added)")

        // The attacker's runtime ends with its connection: its charge is given back.
        try input.fileHandleForWriting.close()
        _ = await process.exitStatus()
        var left = -1.0
        for _ in 0..<500 where left != 0 {
            let uids = try await client.call("status")["usage"]?["uids"]?.arrayValue ?? []
            left = uids.first { $0["uid"] == 65534 }?["planBytes"]?.doubleValue ?? 0
            if left != 0 { try await Task.sleep(for: .milliseconds(20)) }  // polls: a runtime is freed between frames
        }
        #expect(left == 0, "uid 65534's charge after its runtime went: \(left)")
        await client.close()
        #expect(await daemon.stop() == 0)
    }
}
