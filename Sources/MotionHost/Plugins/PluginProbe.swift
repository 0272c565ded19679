import MotionEngine
import Foundation
import Logging
import MotionPluginAPI
import MotionWire

/// Runs a plugin file in a child process before the daemon loads it (SPEC §6, GStreamer's scanner):
/// `motiond --probe FILE` dlopens it, checks the descriptor, calls `init`, and creates, advances and
/// destroys one performer per factory. A crash, a hang or a mismatch refuses the file; the daemon is
/// never exposed to it.
public enum PluginProbe {
    public static let timeout = 5.0

    /// The child's side: one JSON line on stdout; exit status 0 (usable) or 2 (refused).
    public static func runChild(file: String) -> Int32 {
        // Probing is background work: it yields the CPU to the daemon's frame loop and its clients
        // (a reload probes every changed file at once; on two cores that starved a frame reader).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        let host = HostServices(logger: Logger(label: "motiond.probe"))
        let descriptor: PluginDescriptor
        switch PluginLoader.load(file: file, host: host) {
        case .failure(let error):
            print(JSONWriter.string(["ok": false, "reason": .string(error.reason)]))
            return 2
        case .success(let loaded): descriptor = loaded
        }
        for factory in descriptor.factories {
            let table = factory.table.pointee
            guard let instance = table.create(factory.pointer, host.pointer, 1, "probe") else {
                print(JSONWriter.string(["ok": false, "reason": .string("\(factory.planType): create returned NULL")]))
                return 2
            }
            if let advance = table.advance { advance(instance, 1.0 / 120) }
            table.destroy(instance)
        }
        print(JSONWriter.string([
            "ok": true, "id": .string(descriptor.id), "version": .string(descriptor.version),
            "planTypes": .array(descriptor.factories.map { .string($0.planType) }),
        ]))
        return 0
    }

    /// The daemon's side: runs `executable --probe file` with a scrubbed environment and a timeout.
    /// Returns nil when the file may be loaded, else the reason.
    public static func check(file: String, executable: String, timeout: Double = timeout) async -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--probe", file]
        var environment = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            environment[key] = nil
        }
        // A crash is an answer, not something to debug here: no backtrace (it takes seconds).
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "probe: could not start \(executable): \(error)"
        }
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
        if timedOut { return "probe: no answer within \(Int(timeout)) s (the plugin hangs while loading)" }
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            let name = String(cString: strsignal(signal))
            return "probe: crashed while loading (signal \(signal), \(name))" + firstLine(err).map { ": \($0)" }.orEmpty
        }
        let answer = (try? JSONValue.parse(Array(out.split(separator: UInt8(ascii: "\n")).last ?? []))) ?? .null
        if process.terminationStatus == 0, answer["ok"] == true { return nil }
        if let reason = answer["reason"]?.stringValue { return reason }
        return "probe: exited with status \(process.terminationStatus)" + firstLine(err).map { ": \($0)" }.orEmpty
    }

    /// Reads a pipe to its end on a Dispatch thread: blocking reads must not occupy Swift's small
    /// cooperative pool (the timeout loop needs it).
    private static func readToEnd(_ pipe: Pipe) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile()) }
        }
    }

    private static func firstLine(_ data: Data) -> String? {
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return line.map { String($0.prefix(200)) }
    }
}

extension Optional where Wrapped == String {
    var orEmpty: String { self ?? "" }
}
