import Foundation
import MotionTestSupport
import Testing

/// A plugin author's own package, outside this repository, depending on PluginSDK by path (as
/// docs/plugins.md shows): it resolves no other package, builds, passes its MotionTesting unit test, and
/// its plugin loads and passes `motiond --validate`.
@Suite("Out-of-tree plugin package")
struct OutOfTreePluginTests {
    func run(_ arguments: [String], in directory: URL) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        async let text = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }.value
        let status = await process.exitStatus()
        return (status, String(decoding: await text, as: UTF8.self))
    }

    @Test func aPackageDependingOnPluginSDKBuildsTestsAndLoads() async throws {
        let fixtures = CCompiler.repository.appendingPathComponent("Tests/MotiondTests/Fixtures/OutOfTreePlugin")
        let package = try CCompiler.temporaryDirectory()
        let manifest = try String(contentsOf: fixtures.appendingPathComponent("Package.swift.template"), encoding: .utf8)
            .replacingOccurrences(of: "@PLUGIN_SDK@", with: CCompiler.repository.appendingPathComponent("PluginSDK").path)
        try manifest.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        for (source, destination) in [("examples/WobblePlugin/WobblePlugin.swift", "Sources/Wobble/WobblePlugin.swift"),
                                      ("Tests/MotiondTests/Fixtures/OutOfTreePlugin/WobbleTests.swift", "Tests/WobbleTests/WobbleTests.swift")] {
            let target = package.appendingPathComponent(destination)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: CCompiler.repository.appendingPathComponent(source), to: target)
        }

        let resolved = try await run(["swift", "package", "show-dependencies", "--format", "flatlist"], in: package)
        #expect(resolved.status == 0, "\(resolved.output)")
        let dependencies = resolved.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(dependencies == ["pluginsdk"], "resolves PluginSDK and nothing else: \(dependencies)")

        let built = try await run(["swift", "build", "--build-tests"], in: package)
        try #require(built.status == 0, "\(built.output)")
        let checkouts = package.appendingPathComponent(".build/checkouts").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: checkouts)) ?? []).isEmpty, "nothing was checked out")

        let tested = try await run(["swift", "test", "--skip-build"], in: package)
        #expect(tested.status == 0, "\(tested.output)")

        let plugin = package.appendingPathComponent(".build/debug/libWobble.so").path
        let validated = try await run([DaemonProcess.buildDirectory.appendingPathComponent("motiond").path, "--validate", plugin], in: package)
        #expect(validated.status == 0, "\(validated.output)")
        #expect(validated.output.contains("PASS  Wobble: unknown keys are refused"), "\(validated.output)")
    }
}
