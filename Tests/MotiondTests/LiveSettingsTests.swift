import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md#live-settings: a live `settings.set` is kept across restarts and SIGHUP (the state directory) until set
/// again, and a plan that completed at once under reduce motion is not brought back by the journal's
/// replay (an accessibility setting is not forgotten, and a spinner it stopped does not spin again).
@Suite("Live settings")
struct LiveSettingsTests {
    @Test func liveSettingsOutliveAReloadAndARestartAndTheReplayKeepsWhatEndedAtOnce() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let config = state.appendingPathComponent("motiond.json")
        try Data(#"{"speed": 1, "reduceMotion": false}"#.utf8).write(to: config)
        let arguments = ["--state-dir", state.appendingPathComponent("state").path, "--config", config.path]
        let first = try await DaemonProcess(arguments: arguments)
        var client = try await first.client()
        // The test runs as root: an admin.
        let set = try await client.call("settings.set", ["speed": 0.5, "reduceMotion": true])
        #expect(set["speed"] == 0.5 && set["reduceMotion"] == true)
        _ = try await client.call("runtime.create", ["name": "work"])
        let spinner: JSONValue = ["type": "Tween", "property": "angle", "from": [0], "to": [360], "duration": 1,
                                  "repeat": "forever", "timing": "linear"]
        _ = try await client.call("plan.add", ["runtime": "work", "target": "spinner", "plan": spinner])
        let stopped = try await client.call("runtime.state", ["runtime": "work"])
        #expect(stopped["active"] == false, "reduce motion completed the spinner at once: \(stopped)")
        _ = try await client.call("settings.set", ["reduceMotion": false])

        // SIGHUP re-reads a config file that says speed 1: the live 0.5 stays.
        let reloads = first.log.components(separatedBy: "reloaded").count
        kill(first.process.processIdentifier, SIGHUP)
        for _ in 0..<400 where first.log.components(separatedBy: "reloaded").count == reloads {
            try await Task.sleep(for: .milliseconds(50))  // polls the log for the reload's line
        }
        #expect(first.log.components(separatedBy: "reloaded").count > reloads, "the reload finished: \(first.log.suffix(2000))")
        let reloaded = try await client.call("status")
        #expect(reloaded["speed"] == 0.5 && reloaded["reduceMotion"] == false, "after SIGHUP: \(reloaded)")
        await client.close()
        #expect(await first.stop() == 0)

        let second = try await DaemonProcess(arguments: arguments)
        client = try await second.client()
        let restarted = try await client.call("status")
        #expect(restarted["speed"] == 0.5 && restarted["reduceMotion"] == false, "after a restart: \(restarted)")
        let replayed = try await client.call("runtime.state", ["runtime": "work"])
        #expect(replayed["active"] == false, "the spinner reduce motion stopped does not spin again: \(replayed)")
        #expect(replayed["targets"]?["spinner"]?["properties"]?["angle"]?["value"] == [360], "\(replayed)")
        await client.close()
        #expect(await second.stop() == 0)
    }
}
