import Foundation

/// Runs a program as a user would from a shell, for tests: its exit status and its output (standard
/// output and error together, so a traceback is part of what a test reports).
public enum TestProcess {
    public struct Run: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Runs `executable` with `arguments` (and `environment` added to this process's), stopping it after
    /// `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                           timeout: Double = 60) async throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.runAlone()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }  // polls for the child's exit
        if process.isRunning {
            process.terminate()
            // One that does not end on SIGTERM (or is stuck) is killed: a test never hangs on it.
            let grace = Date().addingTimeInterval(2)
            while process.isRunning && Date() < grace { try await Task.sleep(for: .milliseconds(20)) }  // polls for the exit after SIGTERM
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        _ = await process.exitStatus()
        return Run(status: process.terminationStatus, output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
