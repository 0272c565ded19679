import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    @Test func aConfigFileSetsTheRateAndCommandLineOptionsOverrideIt() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"rate": 60, "maxSubscriptions": 2, "logLevel": "warning"}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path])
        let client = try await daemon.client()
        #expect(try await client.call("status")["rate"] == 60)
        #expect(try await client.call("hello", ["protocol": 1])["limits"]?["maxSubscriptions"] == 2)
        await client.close()
        let status = await daemon.stop()
        #expect(status == 0, "\(String(describing: status)): \(daemon.log.suffix(600))")

        let overridden = try await DaemonProcess(arguments: ["--config", config.path, "--rate", "30"])
        let second = try await overridden.client()
        #expect(try await second.call("status")["rate"] == 30)
        await second.close()
    }

    @Test func anUnknownConfigKeyStopsTheDaemonWithTheKeyNamed() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"rat": 60}"#.utf8).write(to: config)
        let daemon = try await DaemonProcess(arguments: ["--config", config.path], waitForSocket: false)
        let status = await daemon.process.exitStatus()
        #expect(status != 0)
        #expect(daemon.log.contains("unknown key \"rat\""))
    }

    @Test func anUnusableStateDirectoryStopsTheDaemonAtStart() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let file = directory.appendingPathComponent("not-a-directory")
        try Data().write(to: file)
        let daemon = try await DaemonProcess(arguments: ["--state-dir", file.path + "/state"], waitForSocket: false)
        let status = await daemon.process.exitStatus()
        #expect(status != 0)
        #expect(daemon.log.contains("--state-dir"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
    }
}
