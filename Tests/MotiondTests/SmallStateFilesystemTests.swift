import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// A state directory on a filesystem too small for plugin image copies (a 256 KiB tmpfs): every shipped
/// plugin still loads (from an in-memory file), nothing partial is left behind, and plans work.
@Suite("Small state filesystem")
struct SmallStateFilesystemTests {
    /// Root with mount(8): the tests mount a real tmpfs. Elsewhere they are skipped, and say why.
    static let canMount = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")

    /// Mounts a tmpfs of `size` at `path`; a failure fails the test (it would test nothing).
    static func mountTmpfs(size: String, at path: String) async throws {
        let status = try await shell("mount -t tmpfs -o size=\(size) tmpfs \(path)")
        try #require(status == 0, "mount -t tmpfs failed (status \(status)): the full-disk case was not tried")
    }

    static func shell(_ command: String) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runAlone()
        return await process.exitStatus()
    }

    @Test(.enabled(if: canMount, "needs root and mount(8) for a real tmpfs"))
    func pluginsLoadFromMemoryWhenTheStateDirectoryIsFull() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let small = directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        try await Self.mountTmpfs(size: "256k", at: small.path)
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
            #expect(daemon.log.contains("almost full"), "free space is checked at start and reported")
            await client.close()
            _ = await daemon.stop()
        }
        _ = try await Self.shell("umount \(small.path)")
    }

    /// docs/routes.md "save, then apply" on a really full filesystem: `route.go`, `router.configure` and
    /// `router.remove` answer `state.write_failed` and change nothing anyone can see; once there is room
    /// again the router moves on from where it was acknowledged, and after a restart it is there.
    @Test(.enabled(if: canMount, "needs root and mount(8) for a real tmpfs"))
    func aFullStateFilesystemRefusesRouteChangesAndChangesNothing() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        let small = directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        try await Self.mountTmpfs(size: "1m", at: small.path)
        defer { _ = try? FileManager.default.removeItem(at: directory) }
        let state = small.appendingPathComponent("state").path
        do {
            let daemon = try await DaemonProcess(arguments: ["--state-dir", state])
            let client = try await daemon.client()
            let routes: JSONValue = ["home": ["kind": "stack"], "detail": ["kind": "stack"]]
            _ = try await client.call("router.configure", ["scheme": "app", "routes": routes])
            _ = try await client.call("route.go", ["scheme": "app", "to": "app://home"])
            // Fill what is left (the plugin images are in memory or already copied).
            _ = try await Self.shell("dd if=/dev/zero of=\(small.path)/filler bs=4k 2>/dev/null; sync")
            func code(_ method: String, _ params: JSONValue) async -> String? {
                do {
                    _ = try await client.call(method, params)
                    return nil
                } catch let error as MotionClientError {
                    if case .server(let code, _) = error { return code }
                    return "\(error)"
                } catch { return "\(error)" }
            }
            #expect(await code("route.go", ["scheme": "app", "to": "app://home/detail"]) == "state.write_failed")
            #expect(try await client.call("route.state", ["scheme": "app"])["url"] == "app://home", "nothing moved")
            #expect(await code("route.go", ["scheme": "app", "to": "detail"]) == "state.write_failed", "a relative path, retried")
            #expect(await code("router.configure", ["scheme": "app", "routes": ["home": ["kind": "stack"]]]) == "state.write_failed")
            #expect(try await client.call("route.state", ["scheme": "app"])["routes"]?.objectValue?.count == 2, "configuration kept")
            #expect(await code("router.configure", ["scheme": "web", "routes": routes]) == "state.write_failed")
            #expect(await code("route.state", ["scheme": "web"]) == "router.not_found", "no router that was not saved")
            #expect(await code("plan.add", ["target": "card", "plan": ["type": "Set", "property": "x", "value": [1]]]) == "state.write_failed",
                    "a change to a lasting runtime is journaled first")
            #expect(await code("runtime.create", ["name": "work"]) == "state.write_failed")
            #expect(try await client.call("runtime.state")["targets"] == [:], "nothing was applied")
            _ = try await client.call("runtime.create", ["name": "scratch", "ephemeral": true])
            _ = try await client.call("plan.add", ["runtime": "scratch", "target": "card", "plan": ["type": "Set", "property": "x", "value": [1]]])

            try FileManager.default.removeItem(atPath: small.path + "/filler")
            _ = try await client.call("plan.add", ["target": "card", "plan": ["type": "Set", "property": "x", "value": [2]]])
            let moved = try await client.call("route.go", ["scheme": "app", "to": "detail"])
            #expect(moved["url"] == "app://home/detail", "applied once, from the acknowledged state: \(moved)")
            await client.close()
            _ = await daemon.stop()
            let again = try await DaemonProcess(arguments: ["--state-dir", state])
            let reader = try await again.client()
            #expect(try await reader.call("route.state", ["scheme": "app"])["url"] == "app://home/detail")
            #expect(try await reader.call("runtime.state")["targets"]?["card"]?["properties"]?["x"]?["value"] == [2], "the journaled plan came back")
            await reader.close()
            _ = await again.stop()
        }
        _ = try await Self.shell("umount \(small.path)")
    }
}
