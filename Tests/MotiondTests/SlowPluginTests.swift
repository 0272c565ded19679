import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// A plugin whose advance takes longer than a frame interval freezes every client's frames; motiond says
/// which plugin and function did it, and for how long (a warning, a `plugin.slow` trace event), at most
/// once per plugin and function every 10 s, instead of only counting overruns.
@Suite("Slow plugins")
struct SlowPluginTests {
    @Test func aPluginThatHoldsTheFrameClockIsNamed() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/slow_advance.c"], name: "libslow.so", in: plugins)
        try FileManager.default.copyItem(at: DaemonProcess.buildDirectory.appendingPathComponent("libSpringPlugin.so"),
                                         to: plugins.appendingPathComponent("libSpringPlugin.so"))
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path])
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["trace"]])

        // Springs alone hold the clock for far less than a frame: nothing is reported.
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Spring", "property": "x", "to": [100]]])
        _ = try await events.waitFor(timeout: 15) { $0["kind"] == "animation.ended" }
        #expect(await events.events.contains(where: isTrace("plugin.slow")) == false)

        _ = try await client.call("plan.add", ["target": "stall", "plan": ["type": "Slow", "ms": 40, "ticks": 3]])
        let seen = try await events.waitFor(timeout: 15, isTrace("plugin.slow"))
        let slow = try #require(seen.last)
        #expect(slow["plugin"] == "test.slow-advance")
        #expect(slow["file"]?.stringValue == file)
        #expect(slow["function"] == "advance")
        #expect((slow["ms"]?.doubleValue ?? 0) >= 40, "\(slow)")
        #expect(slow["performers"] == 1)
        // The second and third slow advances come within 10 s of the first: counted, not reported. Real time
        // on purpose: nothing more may be reported while they run (an absence has no condition).
        try await Task.sleep(for: .milliseconds(300))
        #expect(await events.events.filter(isTrace("plugin.slow")).count == 1)
        #expect(daemon.log.contains("a plugin call held the frame clock"), "\(daemon.log)")
        #expect(daemon.log.contains("test.slow-advance"))
        await client.close()
    }

    /// A plugin that writes NaN is named (a `plugin.error` trace event once per performer, a warning at
    /// most once a minute per plugin); the frame carries the value as null.
    @Test func aPluginThatWritesNaNIsNamed() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        _ = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/nan_writer.c"], name: "libnan.so", in: plugins)
        let daemon = try await DaemonProcess(arguments: ["--plugins", plugins.path])
        let client = try await daemon.client()
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames", "trace"]])
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "NaNWriter", "property": "x"]])
        let error = try #require(try await events.waitFor(isTrace("plugin.error")).last)
        #expect(error["plugin"] == "test.nan-writer" && error["target"] == "card", "\(error)")
        #expect(error["message"]?.stringValue?.hasPrefix("wrote a value that is not finite (NaN or infinite) to x") == true, "\(error)")
        let frame = await events.events.last { $0["event"] == "frame" && ($0["updates"]?.arrayValue?.isEmpty == false) }
        #expect(frame?["updates"]?.arrayValue?.first?["value"] == [.null], "\(String(describing: frame))")
        #expect(daemon.log.contains("a plugin wrote a value that is not finite"), "\(daemon.log)")
        // A second performer's is traced to its owner too, but the log hears of a plugin's at most once a
        // minute (a uid's many such plans flooded it).
        _ = try await client.call("plan.add", ["target": "other", "plan": ["type": "NaNWriter", "property": "x"]])
        _ = try await events.waitFor { $0["kind"] == "plugin.error" && $0["target"] == "other" }
        let said = daemon.log.components(separatedBy: "a plugin wrote a value that is not finite").count - 1
        #expect(said == 1, "\(daemon.log)")
        await client.close()
    }
}
