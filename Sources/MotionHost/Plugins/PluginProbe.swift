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
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(executable, ["--probe", file], timeout: timeout)
        } catch {
            return "probe: could not start \(executable): \(error)"
        }
        if result.timedOut { return "probe: no answer within \(Int(timeout)) s (the plugin hangs while loading)" }
        if let signal = result.signal {
            return "probe: crashed while loading (signal \(signal), \(ChildProcess.signalName(signal)))"
                + result.firstErrorLine.map { ": \($0)" }.orEmpty
        }
        let answer = (try? JSONValue.parse(Array(result.output.split(separator: UInt8(ascii: "\n")).last ?? []))) ?? .null
        if result.status == 0, answer["ok"] == true { return nil }
        if let reason = answer["reason"]?.stringValue { return reason }
        return "probe: exited with status \(result.status)" + result.firstErrorLine.map { ": \($0)" }.orEmpty
    }
}

extension Optional where Wrapped == String {
    var orEmpty: String { self ?? "" }
}
