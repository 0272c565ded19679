import Foundation

/// Runs motiond's own executable as a child on a plugin file (the probe, the validator), with the
/// environment scrubbed of what systemd handed the daemon and a deadline.
enum ChildProcess {
    struct Result {
        var output: Data
        var errors: Data
        var status: Int32
        /// The signal that killed it, if one did.
        var signal: Int32?
        var timedOut: Bool

        /// The first non-blank line of stderr, shortened.
        var firstErrorLine: String? {
            let line = String(decoding: errors, as: UTF8.self).split(separator: "\n")
                .first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            return line.map { String($0.prefix(200)) }
        }
    }

    static func run(_ executable: String, _ arguments: [String], timeout: Double,
                    environment extra: [String: String] = [:]) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            environment[key] = nil
        }
        // A crash is an answer, not something to debug here: no backtrace (it takes seconds).
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // A preload of the caller's own stays, ours after it.
        environment.merge(extra) { own, added in own.isEmpty ? added : own + ":" + added }
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Background work from its first instruction: the child's own `setpriority` comes only after the
        // dynamic loader and the Swift runtime have started it (tens of milliseconds of a core).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(process.processIdentifier), 10)
        // Drain both pipes while the child runs, so a chatty plugin cannot block on a full pipe.
        async let stdout = readToEnd(output)
        async let stderr = readToEnd(errors)
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        let (out, err) = await (stdout, stderr)
        let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
        return Result(output: out, errors: err, status: process.terminationStatus, signal: signal, timedOut: timedOut)
    }

    static func signalName(_ signal: Int32) -> String { String(cString: strsignal(signal)) }

    /// Reads a pipe to its end on a Dispatch thread (blocking reads must not occupy Swift's small
    /// cooperative pool: the timeout loop needs it), then closes it (left to the `Pipe`'s end, each probe's
    /// two read ends stayed open in the daemon: 12 descriptors a reload of the six shipped plugins).
    private static func readToEnd(_ pipe: Pipe) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let handle = pipe.fileHandleForReading
                let data = handle.readDataToEndOfFile()
                try? handle.close()
                continuation.resume(returning: data)
            }
        }
    }
}
