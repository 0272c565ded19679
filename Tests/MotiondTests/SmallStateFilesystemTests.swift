import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// A state directory on a filesystem too small for plugin image copies (a 256 KiB tmpfs): every shipped
/// plugin still loads (from an in-memory file), nothing partial is left behind, and plans work.
@Suite("Small state filesystem")
struct SmallStateFilesystemTests {
    static var canMount: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    static func shell(_ command: String) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return await process.exitStatus()
    }

    @Test(.enabled(if: canMount))
    func pluginsLoadFromMemoryWhenTheStateDirectoryIsFull() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let small = directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        guard try await Self.shell("mount -t tmpfs -o size=256k tmpfs \(small.path)") == 0 else { return }  // no mount here
        defer { _ = try? FileManager.default.removeItem(at: directory) }
        do {
            let daemon = try await DaemonProcess(arguments: ["--state-dir", small.appendingPathComponent("state").path])
            let client = try await daemon.client()
            let list = try await client.call("plugins.list")
            #expect((list["rejected"]?.arrayValue ?? []).isEmpty, "\(list["rejected"] ?? .null)")
            let types = Set((list["plugins"]?.arrayValue ?? []).flatMap { $0["planTypes"]?.arrayValue ?? [] }.compactMap(\.stringValue))
            #expect(types.isSuperset(of: ["Spring", "Tween", "Decay", "Set"]), "\(types)")
            _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Spring", "property": "x", "to": [1]]])
            let images = try FileManager.default.contentsOfDirectory(atPath: small.appendingPathComponent("state/images").path)
            #expect(images.isEmpty, "no partial copy left: \(images)")
            #expect(daemon.log.contains("plugin image loaded from memory"), "\(daemon.log)")
            await client.close()
            _ = await daemon.stop()
        }
        _ = try await Self.shell("umount \(small.path)")
    }
}
