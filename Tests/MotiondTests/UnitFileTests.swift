import Foundation
import MotionTestSupport
import Testing

/// The shipped unit files, checked by the real systemd tools.
@Suite("systemd unit files", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "needs systemd-analyze (scripts/setup installs systemd)"))
struct UnitFileTests {
    /// A copy of dist/systemd whose ExecStart points at this build, so `verify` can check the binary.
    private func units() throws -> URL {
        let directory = try DaemonProcess.temporaryDirectory()
        let source = CCompiler.repository.appendingPathComponent("dist/systemd")
        for name in ["motiond.service", "motiond.socket"] {
            var text = try String(contentsOf: source.appendingPathComponent(name), encoding: .utf8)
            text = text.replacingOccurrences(of: "/usr/local/bin/motiond", with: DaemonProcess.motiond)
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    private func run(_ arguments: [String], in directory: URL) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = directory.appendingPathComponent("analyze-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.runAlone()
        let status = await process.exitStatus()
        return (status, try String(contentsOf: output, encoding: .utf8))
    }

    @Test func bothUnitsPassVerify() async throws {
        let directory = try units()
        let result = try await run(["verify", "./motiond.socket", "./motiond.service"], in: directory)
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(result.output)")
    }

    @Test func theServiceIsHardened() async throws {
        let directory = try units()
        let result = try await run(["security", "--offline=true", "./motiond.service"], in: directory)
        let line = try #require(result.output.split(separator: "\n").first { $0.contains("Overall exposure level") })
        let score = line.split(separator: " ").compactMap { Double($0) }.first
        #expect(score != nil && score! <= 2.0, "\(line)")
    }

    @Test func theServiceIsANotifyServiceWithAWatchdog() throws {
        let text = try String(contentsOf: CCompiler.repository.appendingPathComponent("dist/systemd/motiond.service"), encoding: .utf8)
        for setting in ["Type=notify", "WatchdogSec=", "Restart=on-failure", "ExecReload=/bin/kill -HUP $MAINPID",
                        "RuntimeDirectory=motiond", "StateDirectory=motiond", "NoNewPrivileges=yes",
                        "ProtectSystem=strict", "RestrictAddressFamilies=AF_UNIX"] {
            #expect(text.contains(setting), "missing \(setting)")
        }
        let socket = try String(contentsOf: CCompiler.repository.appendingPathComponent("dist/systemd/motiond.socket"), encoding: .utf8)
        #expect(socket.contains("SocketMode=0660") && socket.contains("SocketGroup=motion"))
    }

    /// The system-call filter denies @resources but gives back `setpriority`: a plugin's probe child
    /// lowers its own priority with it (under the filter it used to fail with EPERM, and the probe ran
    /// beside the frame clock at the daemon's priority).
    @Test func theProbeMayLowerItsPriority() throws {
        let text = try String(contentsOf: CCompiler.repository.appendingPathComponent("dist/systemd/motiond.service"), encoding: .utf8)
        let filters = text.split(separator: "\n").filter { $0.hasPrefix("SystemCallFilter=") }
        let denied = filters.firstIndex { $0.contains("~") && $0.contains("@resources") }
        let allowed = filters.lastIndex { !$0.contains("~") && $0.split(separator: "=").last?.split(separator: " ").contains("setpriority") == true }
        #expect(denied != nil)
        #expect(allowed.map { index in denied.map { index > $0 } ?? true } == true, "setpriority is given back after @resources is denied")
    }
}
