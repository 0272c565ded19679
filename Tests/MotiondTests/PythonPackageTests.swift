import Foundation
import MotionClient
import MotionTestSupport
import Testing

/// clients/python (docs/clients.md) as a Python programmer gets it: `pip install ./clients/python` into a fresh
/// virtual environment (offline: the package builds with its own standard-library backend), then its
/// blocking and asyncio clients against a daemon, through a restart.
@Suite("Python package")
struct PythonPackageTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/env"), "needs /usr/bin/env to find python3"))
    func pipInstallsItAndBothClientsWorkThroughARestart() async throws {
        let directory = try CCompiler.temporaryDirectory()
        let venv = directory.appendingPathComponent("venv").path
        let created = try await ClientLibraryTests.run("/usr/bin/env", ["python3", "-m", "venv", venv])
        #expect(created.status == 0, "\(created.output)")
        let pip = try await ClientLibraryTests.run("\(venv)/bin/python", ["-m", "pip", "install", "--no-index", "--quiet",
                                                                          CCompiler.repository.appendingPathComponent("clients/python").path], timeout: 120)
        #expect(pip.status == 0, "\(pip.output)")
        let path = directory.appendingPathComponent("m.sock").path
        let first = try await DaemonProcess(socket: path)
        let script = CCompiler.repository.appendingPathComponent("Tests/MotiondTests/Fixtures/python_package_check.py").path
        async let ran = ClientLibraryTests.run("\(venv)/bin/python", [script, path, "restart"], timeout: DaemonProcess.acrossARestart)
        // Wait for the script to reach its restart check (its output is read at the end: poll the daemon).
        let watcher = try await first.client()
        var waiting = false
        for _ in 0..<400 where !waiting {
            waiting = (try? await watcher.call("runtime.state", ["runtime": "waiting"])) != nil
            if !waiting { try await Task.sleep(for: .milliseconds(50)) }  // polls for the script's runtime
        }
        #expect(waiting, "the script reached its restart check")
        await watcher.close()
        let restarted: (DaemonProcess, MotionClient)
        do {
            restarted = try await ClientLibraryTests.restart(first, at: path)
        } catch {
            // What the script said tells why it made no subscription on the new daemon.
            let output = try await ran
            throw Failure("\(error); the script said: \(output.output)")
        }
        let (second, client) = restarted
        let output = try await ran
        #expect(output.status == 0, "\(output.output)")
        // NaN and a lone surrogate (blocking client), Infinity (asyncio): refused by the client, not sent.
        #expect(output.output.components(separatedBy: "refused protocol.parse").count - 1 == 3, "\(output.output)")
        for line in ["error plan.invalid", "blocking 1 [100]", "asyncio refused protocol.parse", "stream [[7]] kept True", "asyncio 1 [50]", "waiting", "reconnected", "frame after restart",
                     "shm region MOTF 262144", "shm values [10.0] [20.0]", "shm after restart 262144", "unsubscribed stays unsubscribed",
                     "timeout 0 keeps the connection", "timeout 0 never blocks", "a call noticed the restart: reconnected",
                     "an asyncio call noticed the restart: reconnected", "a keyed call was sent again: True",
                     "an asyncio keyed call was sent again: True"] {
            #expect(output.output.contains(line), "\(line): \(output.output)")
        }
        #expect(!output.output.contains("a frame for the unsubscribed subscription"), "\(output.output)")
        await client.close()
        _ = await second.stop()
    }

    /// The package is typed (PEP 561: py.typed in the wheel) and `mypy --strict` accepts both its sources and a
    /// typed program using it as installed by pip (Debian's mypy; scripts/setup installs it).
    @Test func itIsTypedAndMypyStrictAcceptsItAndItsUsers() async throws {
        let mypy = "/usr/bin/mypy"
        #expect(FileManager.default.isExecutableFile(atPath: mypy), "scripts/setup installs mypy")
        guard FileManager.default.isExecutableFile(atPath: mypy) else { return }
        let directory = try CCompiler.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let venv = directory.appendingPathComponent("venv").path
        let created = try await ClientLibraryTests.run("/usr/bin/env", ["python3", "-m", "venv", venv])
        #expect(created.status == 0, "\(created.output)")
        let package = CCompiler.repository.appendingPathComponent("clients/python")
        let pip = try await ClientLibraryTests.run("\(venv)/bin/python", ["-m", "pip", "install", "--no-index", "--quiet", package.path],
                                                   timeout: 120)
        #expect(pip.status == 0, "\(pip.output)")
        let cache = ["--cache-dir", directory.appendingPathComponent("mypy-cache").path]
        let sources = try await ClientLibraryTests.run(mypy, ["--strict"] + cache + [package.appendingPathComponent("motiond_client").path],
                                                       timeout: 180)
        #expect(sources.status == 0 && sources.output.contains("Success"), "\(sources.output)")
        // Against the installed package alone (no path to the sources): only its py.typed makes it typed.
        let usage = CCompiler.repository.appendingPathComponent("Tests/MotiondTests/Fixtures/typed_usage.py").path
        let user = try await ClientLibraryTests.run(mypy, ["--strict", "--python-executable", "\(venv)/bin/python"] + cache + [usage],
                                                    timeout: 180)
        #expect(user.status == 0 && user.output.contains("Success"), "\(user.output)")
    }
}
