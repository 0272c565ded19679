import Foundation
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

@Suite("Daemon configuration")
struct DaemonConfigurationTests {
    @Test func defaultSocketPathFollowsSpecOrder() {
        #expect(WireProtocol.defaultSocketPath(environment: ["RUNTIME_DIRECTORY": "/run/motiond", "XDG_RUNTIME_DIR": "/run/user/1000"])
                == "/run/motiond/motiond.sock")
        #expect(WireProtocol.defaultSocketPath(environment: ["RUNTIME_DIRECTORY": "/run/a:/run/b"]) == "/run/a/motiond.sock")
        #expect(WireProtocol.defaultSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/motiond.sock")
        #expect(WireProtocol.defaultSocketPath(environment: [:]) == "/run/motiond/motiond.sock")
    }

    @Test func pluginSearchPathPutsExplicitDirectoriesFirst() {
        let configuration = DaemonConfiguration(socketPath: "/s", pluginDirectories: ["/a", "/b"], loadsShippedPlugins: false)
        let path = configuration.pluginSearchPath(environment: ["MOTIOND_PLUGIN_PATH": "/c::/d"])
        #expect(path.map(\.path) == ["/a", "/b", "/c", "/d"])
        #expect(path.allSatisfy { !$0.shippedOnly })
        let shipped = DaemonConfiguration(socketPath: "/s").pluginSearchPath(environment: [:])
        #expect(shipped.count == 1 && shipped[0].shippedOnly && shipped[0].path == PluginLoader.executableDirectory)
    }

    @Test func aReloadChangesOnlyWhatCanChangeWhileRunning() {
        var configuration = DaemonConfiguration(socketPath: "/s", rate: 120)
        configuration.pluginDirectoriesFromCommandLine = false
        var file = ConfigFile()
        file.logLevel = "debug"
        file.plugins = ["/new"]
        file.rate = 60
        file.maximumSubscriptions = 8
        let (next, needRestart) = configuration.reloaded(from: file)
        #expect(next.logLevel == .debug)
        #expect(next.pluginDirectories == ["/new"])
        #expect(next.maximumSubscriptionsPerConnection == 8)
        #expect(next.rate == 120)
        #expect(needRestart == ["rate"])
    }

    /// docs/protocol.md#ownership-and-quotas: `quotas.enginePercent` is a share of each frame interval, 1–100;
    /// outside it the config file is refused naming the range.
    @Test func anEngineShareOutsideOneToAHundredIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("motiond-share-\(getpid()).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (share, accepted) in [(0, false), (1, true), (100, true), (101, false)] {
            try Data(#"{"quotas": {"enginePercent": \#(share)}}"#.utf8).write(to: URL(fileURLWithPath: path))
            do {
                let file = try ConfigFile.load(path: path)
                #expect(accepted && file.quotas?.enginePercent == share, "\(share)")
            } catch {
                #expect(!accepted && "\(error)".contains("quotas.enginePercent must be 1–100"), "\(share): \(error)")
            }
        }
    }
}
