import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

@Suite("Plugin directories")
struct PluginDirectoryTests {
    @Test func aBrokenFileIsRejectedAndTheDaemonServesWithTheRest() async throws {
        let plugins = try DaemonProcess.temporaryDirectory()
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libSpringPlugin.so"),
                                         to: plugins.appendingPathComponent("libSpringPlugin.so"))
        try Data("garbage".utf8).write(to: plugins.appendingPathComponent("libcorrupt.so"))
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path, "--no-shipped-plugins"])
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
                                             command: [DaemonProcess.motiond, "--socket", socket, "--plugins", empty.path, "--no-shipped-plugins"],
                                             environment: ["MOTIOND_PLUGIN_PATH": extra.path])
        let client = try await daemon.client()
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"] == ["Decay"])
        await client.close()
    }

    /// `--plugins DIR` adds directories searched before the shipped plugins (docs/clients.md): an empty one leaves
    /// every shipped type; a plugin there claiming a shipped type wins it, and the shipped one's claim is
    /// listed as a conflict; `--no-shipped-plugins` leaves them out.
    @Test func pluginDirectoriesComeBeforeTheShippedPlugins() async throws {
        let empty = try DaemonProcess.temporaryDirectory()
        let daemon = try await DaemonProcess(arguments: ["--plugins", empty.path])
        var client = try await daemon.client()
        let types = try await client.call("hello", ["protocol": 1])["planTypes"]?.arrayValue ?? []
        #expect(types.contains("Spring") && types.contains("Tween") && types.contains("Set"), "\(types)")
        await client.close()
        _ = await daemon.stop()

        let own = try DaemonProcess.temporaryDirectory()
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/careless_advance.c"], name: "libmyspring.so", in: own,
                                             defines: [#"PLAN_TYPE="Spring""#])
        let overriding = try await DaemonProcess(arguments: ["--plugins", own.path])
        client = try await overriding.client()
        let list = try await client.call("plugins.list")
        let conflict = list["conflicts"]?.arrayValue?.first { $0["planType"] == "Spring" }
        #expect(conflict?["kept"]?["file"]?.stringValue?.hasSuffix("libmyspring.so") == true, "\(list["conflicts"] ?? .null)")
        #expect(conflict?["ignored"]?["file"]?.stringValue?.hasSuffix("libSpringPlugin.so") == true, "\(list["conflicts"] ?? .null)")
        await client.close()
        _ = await overriding.stop()

        let alone = try await DaemonProcess(arguments: ["--plugins", empty.path, "--no-shipped-plugins"])
        client = try await alone.client()
        #expect(try await client.call("hello", ["protocol": 1])["planTypes"] == [])
        await client.close()
        _ = await alone.stop()
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
