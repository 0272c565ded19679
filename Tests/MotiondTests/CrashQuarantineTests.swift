import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// SPEC §13: a plugin that passes the probe and then crashes motiond is refused at the next start, until
/// its content changes, instead of crashing the daemon again and again.
@Suite("Crash quarantine")
struct CrashQuarantineTests {
    @Test func aPluginThatCrashedTheDaemonIsRefusedAtTheNextStart() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let plugins = directory.appendingPathComponent("plugins"), state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let file = try await CCompiler.sharedLibrary(["Tests/MotiondTests/Fixtures/crash_in_advance.c"], name: "libcrashy.so", in: plugins)
        let arguments = ["--plugins", plugins.path, "--state-dir", state.path]

        let first = try await DaemonProcess(arguments: arguments)
        let client = try await first.client()
        _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Crashy", "property": "x"]])
        _ = await first.process.exitStatus()
        #expect(first.process.terminationReason == .uncaughtSignal, "it crashed, in the plugin's 5th advance")
        let record = (try? String(contentsOf: state.appendingPathComponent("crash.record"), encoding: .utf8)) ?? ""
        #expect(record.hasPrefix(file + "\n"), "the crash names the plugin file: \(record)")
        #expect(record.contains("\nadvance\n11\n"), "and the function and signal: \(record)")

        let second = try await DaemonProcess(arguments: arguments)
        let again = try await second.client()
        let list = try await again.call("plugins.list")
        let rejected = list["rejected"]?.arrayValue ?? []
        let reason = rejected.first { $0["file"]?.stringValue == file }?["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("crashed motiond (signal 11, Segmentation fault, in advance)"), "\(list)")
        await #expect(throws: MotionClientError.self, "its plan type is not there") {
            _ = try await again.call("plan.add", ["target": "card", "plan": ["type": "Crashy", "property": "x"]])
        }
        #expect(try await again.call("status")["version"] != nil, "the daemon runs")
        #expect(second.log.contains("a plugin crashed motiond; it is quarantined"), "\(second.log)")

        // A new build (other content) is tried again.
        var data = try Data(contentsOf: URL(fileURLWithPath: file))
        data.append(contentsOf: Array("rebuilt".utf8))
        try data.write(to: URL(fileURLWithPath: file + ".tmp"))
        #expect(rename(file + ".tmp", file) == 0)
        let reload = try await again.call("plugins.reload")
        #expect((reload["results"]?.arrayValue ?? []).contains { $0["outcome"] == "loaded" }, "\(reload)")
        await again.close()
    }
}
