import Foundation

/// Builds C plugins at test time with the system compiler, as a third-party author would.
public enum CCompiler {
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Compiles `sources` (paths relative to the repository) into a shared library in a fresh directory
    /// with warnings as errors, and returns its path. `options` go to the compiler before the sources.
    public static func sharedLibrary(_ sources: [String], name: String, in directory: URL,
                                     defines: [String] = [], libraries: [String] = [],
                                     includes: [String] = [], options: [String] = [],
                                     compiler: String = "cc", background: Bool = false) async throws -> String {
        let output = directory.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let include = repository.appendingPathComponent("PluginSDK/Sources/MotionPluginAPI/include").path
        let setInclude = repository.appendingPathComponent("Plugins/SetPlugin/include").path
        // `includes` (relative to the repository) come first: a test can build against a frozen header.
        let earlier = includes.flatMap { ["-I", $0.hasPrefix("/") ? $0 : repository.appendingPathComponent($0).path] }
        let flags: [String] = [compiler, "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC"] + earlier
            + ["-I", include, "-I", setInclude, "-o", output]
        let paths: [String] = sources.map { $0.hasPrefix("/") ? $0 : repository.appendingPathComponent($0).path }
        // `background`: at nice 19, for large compiles the suite runs beside live daemons (the kernels'
        // per-target builds, four clangs at once, starved the timing of other tests on two cores).
        process.arguments = (background ? ["nice", "-n", "19"] : []) + flags + options + defines.map { "-D" + $0 } + paths
            + libraries.map { "-l" + $0 }
        let errors = Pipe()
        process.standardError = errors
        try process.runAlone()
        let status = await process.exitStatus()
        guard status == 0 else {
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Failure(description: "\(compiler) failed: \(text)")
        }
        return output
    }

    public static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("motiond-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

extension Process {
    private static let spawning = NSLock()

    /// `run()`, one at a time in this test process. Foundation gives each child one end of a socket pair
    /// and learns of its exit when that end closes; it closes every other descriptor in the child, but a
    /// child spawned by another test at the same moment could inherit that end and keep it open, so
    /// `isRunning` stayed true for as long as the other child lived (a daemon stopped at once looked stuck
    /// for 10 s while a crashed daemon's backtracer ran beside it).
    public func runAlone() throws {
        Self.spawning.lock()
        defer { Self.spawning.unlock() }
        try run()
    }

    /// Waits for the process to end without blocking a thread of the concurrency pool (a blocking
    /// `waitUntilExit()` there can starve every other test on a 2-core machine), and never for ever:
    /// Foundation learns of an exit only when every holder of the child's end of its socket pair has
    /// closed it, and a descendant the child left behind (a crashed daemon's backtracer, a plugin probe)
    /// holds it too. A child that has exited (a zombie) for `lingering` seconds, or that still runs at
    /// `timeout`, has its process group killed (Foundation starts each child as a group of its own);
    /// -1 if Foundation still has not seen the end 10 s after that.
    public func exitStatus(timeout: Double = 600, lingering: Double = 5) async -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        var exitedAt: Date?
        var groupKilledAt: Date?
        while isRunning {
            let now = Date()
            if groupKilledAt == nil {
                if Self.isZombie(processIdentifier) { exitedAt = exitedAt ?? now } else { exitedAt = nil }
                let lingered = exitedAt.map { now.timeIntervalSince($0) > lingering } ?? false
                if lingered || now > deadline {
                    FileHandle.standardError.write(Data("process \(processIdentifier) (\(executableURL?.lastPathComponent ?? "?") \(arguments?.first ?? "")) \(lingered ? "had exited but was not reaped" : "still ran after \(Int(timeout)) s"): its process group is killed\n".utf8))
                    kill(-processIdentifier, SIGKILL)
                    kill(processIdentifier, SIGKILL)
                    groupKilledAt = now
                }
            } else if now.timeIntervalSince(groupKilledAt!) > 10 {
                return -1
            }
            try? await Task.sleep(for: .milliseconds(10))  // polls until Foundation sees the exit (a zombie or a stuck child is killed above)
        }
        return terminationStatus
    }

    /// The process has exited and waits to be reaped (state `Z` in /proc/PID/stat).
    public static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
