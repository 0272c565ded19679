import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// Themes with a real daemon (docs/themes.md): a second uid's overlay changes its own motion
/// only, both it and the system theme survive a restart, and a retune is journaled, so the replay after
/// `kill -9` goes on with the tuned spring.
@Suite("Themes in the daemon")
struct ThemeDaemonTests {
    static let sampleScript = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
        def call(i, m, p):
            f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush()
            while True:
                r = json.loads(f.readline())
                if r.get("id") == i: return r.get("result", r.get("error"))
        call(0, "hello", {"protocol": 1})
        if sys.argv[2] == "set":
            print(json.dumps(call(1, "theme.set", {"scope": "user", "theme": {"name": "mine", "springs": {"spatial.fast": {"dampingRatio": 1, "stiffness": 3000}}}})))
        plan = {"type": "Spring", "property": "y", "from": [0], "to": [1], "spring": "@spatial.fast"}
        print(json.dumps(call(2, "plan.sample", {"plan": plan, "times": [0.02]})["samples"][0]["value"]))
        """

    static func openToOthers(_ daemon: DaemonProcess) throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: daemon.socket)
    }

    static func sampled(_ client: MotionClient) async throws -> JSONValue? {
        let plan: JSONValue = ["type": "Spring", "property": "y", "from": [0], "to": [1], "spring": "@spatial.fast"]
        return try await client.call("plan.sample", ["plan": plan, "times": [0.02]])["samples"]?.arrayValue?.first?["value"]
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func aSecondUidsOverlayIsItsOwnAndBothThemesOutliveARestart() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        try Self.openToOthers(first)
        var client = try await first.client()
        let systemBefore = try await Self.sampled(client)
        let nobody = try await AccessTests.runAsNobody(Self.sampleScript, first.socket, ["set"])
        #expect(nobody.count == 2 && nobody[0].contains("springs.spatial.fast"), "\(nobody)")
        let theirs = nobody.last.map(String.init)
        #expect(try await Self.sampled(client) == systemBefore, "uid 0's motion did not change")
        #expect(theirs != nil && theirs != JSONWriter.string(systemBefore ?? .null), "uid 65534 sees its overlay: \(nobody)")
        let niri = try await client.call("theme.set", ["theme": "niri"])
        #expect(niri["theme"] == "niri")
        await client.close()
        #expect(await first.stop() == 0)

        let second = try await DaemonProcess(arguments: ["--state-dir", state.path])
        try Self.openToOthers(second)
        client = try await second.client()
        let restored = try await client.call("theme.get")
        #expect(restored["system"] == "niri" && restored["systemOrigin"] == "theme.set", "\(restored)")
        let again = try await AccessTests.runAsNobody(Self.sampleScript, second.socket, ["get"])
        #expect(again.last.map(String.init) == theirs, "the overlay came back: \(again) vs \(String(describing: theirs))")
        await client.close()
        #expect(await second.stop() == 0)
    }

    /// A journaled tween and keyframes retuned mid-flight (the retune is applied after its journal write,
    /// frames later): no frame at rest in the middle of the motion (the new plan's first frame said
    /// velocity 0) and none thrown back to the value of a frame before (it started from the state the
    /// retune saw, frames old: 22 units back on a path of 1000).
    @Test func aJournaledRetuneNeitherStopsNorJumpsBack() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let daemon = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"], "targets": ["tw", "kf"]])
        _ = try await client.call("plan.add", ["target": "tw", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [1000],
                                                                        "timing": "@standard", "duration": "@long4"]])
        _ = try await client.call("plan.add", ["target": "kf", "plan": ["type": "Keyframes", "property": "x", "values": [[0], [600], [1000]],
                                                                        "keyTimes": [0, 0.5, 1], "timing": "@enter", "duration": "@long4"]])
        // Well under way (a tenth of the path), then retuned to a longer, linear one.
        _ = try await events.waitFor { frame in
            frame["event"] == "frame" && (frame["updates"]?.arrayValue ?? []).contains { $0["target"] == "tw" && ($0["value"]?.arrayValue?.first?.doubleValue ?? 0) > 100 }
        }
        _ = try await client.call("theme.set", ["theme": ["name": "longer", "durations": ["long4": 1.2],
                                                           "timings": ["enter": "linear", "standard": "linear"]], "scope": "user"])
        let seen = try await events.waitFor(timeout: 20) { frame in
            frame["event"] == "frame" && (frame["updates"]?.arrayValue ?? []).contains { $0["target"] == "tw" && $0["value"]?.arrayValue?.first == 1000 }
        }
        #expect(seen.contains { $0["event"] == "trace" && $0["kind"] == "plan.added" && $0["target"] == "tw" }, "the tween was retuned")
        for target in ["tw", "kf"] {
            let path = seen.flatMap { frame in
                (frame["updates"]?.arrayValue ?? []).filter { $0["target"]?.stringValue == target }
                    .map { ($0["value"]?.arrayValue?.first?.doubleValue ?? .nan, $0["velocity"]?.arrayValue?.first?.doubleValue ?? .nan) }
            }
            let moving = path.dropFirst().filter { $0.0 > 0 && $0.0 < 1000 }
            #expect(!moving.isEmpty && moving.allSatisfy { $0.1 > 0 }, "\(target): a frame at rest mid-way: \(path)")
            let backwards = zip(path, path.dropFirst()).map { $0.0 - $1.0 }.max() ?? 0
            #expect(backwards < 2, "\(target) went back \(backwards) units: \(path)")
        }
        await client.close()
        _ = await daemon.stop()
    }

    /// A lasting runtime's spring on a token, retuned from a crawl (ω = 0.01: 100 s to reach 26 % of the
    /// way) to a snap (ω ≈ 45: a quarter of a second to rest); killed with SIGKILL a moment later, the
    /// replay goes on with the snap: within a unit of its target, not still crawling.
    @Test func aRetuneIsJournaledAndTheReplayGoesOnWithIt() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        var client = try await first.client()
        let crawl: JSONValue = ["name": "crawl", "springs": ["spatial.slow": ["dampingRatio": 1, "stiffness": 0.0001]]]
        _ = try await client.call("theme.set", ["theme": crawl])
        _ = try await client.call("runtime.create", ["name": "work"])
        _ = try await client.call("plan.add", ["runtime": "work", "target": "card",
                                              "plan": ["type": "Spring", "property": "x", "from": [0], "to": [1000], "spring": "@spatial.slow"]])
        let snap: JSONValue = ["name": "snap", "springs": ["spatial.slow": ["dampingRatio": 1, "stiffness": 2000]]]
        let set = try await client.call("theme.set", ["theme": snap])
        #expect(set["changed"] == ["springs.spatial.slow"])
        // The retune's journal record is written after the reply: a change this client makes next is
        // journaled behind it, so once that one is answered the retune is on disk too.
        _ = try await client.call("plan.add", ["runtime": "work", "target": "other", "plan": ["type": "Set", "property": "x", "value": [1]]])
        #expect(await first.stop(signal: SIGKILL, timeout: 30) == SIGKILL)

        let second = try await DaemonProcess(arguments: ["--state-dir", state.path])
        client = try await second.client()
        let replayed = try await client.call("runtime.state", ["runtime": "work"])
        let x = replayed["targets"]?["card"]?["properties"]?["x"]?["value"]?.arrayValue?.first?.doubleValue ?? .nan
        #expect(x > 999 && x <= 1000, "the tuned spring took it to its target in the replay: \(replayed)")
        await client.close()
        _ = await second.stop()
    }
}
