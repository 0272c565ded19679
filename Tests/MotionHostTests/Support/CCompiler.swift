import Foundation

/// Builds C plugins at test time with the system compiler, as a third-party author would.
enum CCompiler {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Compiles `sources` (paths relative to the repository) into a shared library in a fresh directory
    /// with warnings as errors, and returns its path.
    static func sharedLibrary(_ sources: [String], name: String, in directory: URL) throws -> String {
        let output = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                             "-I", repository.appendingPathComponent("Sources/MotionPluginAPI/include").path,
                             "-I", repository.appendingPathComponent("Plugins/SetPlugin/include").path,
                             "-o", output] + sources.map { repository.appendingPathComponent($0).path }
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "cc failed: \(text)")
        }
        return output
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("motiond-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
