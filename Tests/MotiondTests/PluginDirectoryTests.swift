import Foundation
import MotionClient
import MotionWire
import Testing

@Suite("Plugin directories")
struct PluginDirectoryTests {
    @Test func aBrokenFileIsRejectedAndTheDaemonServesWithTheRest() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libSpringPlugin.so"),
                                         to: plugins.appendingPathComponent("libSpringPlugin.so"))
        try Data("garbage".utf8).write(to: plugins.appendingPathComponent("libcorrupt.so"))
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path])
        let client = try await daemon.client()
        let list = try await client.call("plugins.list")
        #expect(list["plugins"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["org.motiond.spring"])
        let rejected = try #require(list["rejected"]?.arrayValue?.first)
        #expect(rejected["file"]?.stringValue?.hasSuffix("libcorrupt.so") == true)
        #expect(rejected["reason"]?.stringValue?.hasPrefix("dlopen:") == true)
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"] == ["Spring"])
        _ = try await client.call("plan.add", ["target": "t", "plan": ["type": "Spring", "property": "x", "to": [1]]])
        // Removed, it is no longer listed once the directories are rescanned.
        try FileManager.default.removeItem(at: plugins.appendingPathComponent("libcorrupt.so"))
        _ = try await client.call("plugins.reload")
        #expect(try await client.call("plugins.list")["rejected"] == [], "a removed file is not rejected any more")
        await client.close()
        #expect(await daemon.stop() == 0)
    }

    @Test func motiondPluginPathAddsDirectories() async throws {
        let extra = try DaemonProcess.temporaryDirectory()
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libDecayPlugin.so"),
                                         to: extra.appendingPathComponent("libDecayPlugin.so"))
        let empty = try DaemonProcess.temporaryDirectory()
        let directory = try DaemonProcess.temporaryDirectory()
        let socket = directory.appendingPathComponent("motiond.sock").path
        let daemon = try await DaemonProcess(directory: directory, socket: socket,
                                             command: [DaemonProcess.motiond, "--socket", socket, "--plugins", empty.path],
                                             environment: ["MOTIOND_PLUGIN_PATH": extra.path])
        let client = try await daemon.client()
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"] == ["Decay"])
        await client.close()
    }

    @Test func theShippedCPluginWorksOverTheSocket() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames"], "targets": ["lamp"]])
        _ = try await client.call("plan.add", ["target": "other", "plan": ["type": "Set", "property": "opacity", "value": [0.1]]])
        _ = try await client.call("plan.add", ["target": "lamp", "plan": ["type": "Set", "property": "opacity", "value": [0.75]]])
        let frame = try await events.waitFor { $0["event"] == "frame" }.last
        let updates = frame?["updates"]?.arrayValue ?? []
        #expect(updates.count == 1)
        #expect(updates.first?["target"] == "lamp")
        #expect(updates.first?["value"] == [0.75])
        let list = try await client.call("plugins.list")
        let set = list["plugins"]?.arrayValue?.first { $0["id"] == "org.motiond.set" }
        #expect(set?["buildTag"] == "c")
        #expect(set?["planTypes"] == ["Set"])
        await client.close()
    }
}
