import MotionEngine
import Foundation
import Logging
import MotionPluginAPI
import MotionWire

/// Runs a plugin file in a child process before the daemon loads it (docs/plugins.md, GStreamer's scanner):
/// `motiond --probe FILE` dlopens it, checks the descriptor, calls `init`, and creates, advances and
/// destroys one performer per factory. For a new build of a loaded plugin (a hot swap), it also imports
/// states the running build's performers exported (`--probe-states PATH`: JSON lines `{planType, state}`)
/// into new instances and advances each once, as the swap will. A crash, a hang or a mismatch refuses
/// the file; the daemon is never exposed to it.
package enum PluginProbe {
    package static let timeout = 5.0

    /// The child's side: one JSON line on stdout; exit status 0 (usable) or 2 (refused). Before each call
    /// into the plugin that real states drive, a `{"stage":…}` line, so that a crash can be named.
    package static func runChild(file: String, states: String? = nil) -> Int32 {
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
        if let states, let refusal = importStates(from: states, into: descriptor, host: host) {
            print(JSONWriter.string(["ok": false, "reason": .string(refusal)]))
            return 2
        }
        print(JSONWriter.string([
            "ok": true, "id": .string(descriptor.id), "version": .string(descriptor.version),
            "planTypes": .array(descriptor.factories.map { .string($0.planType) }),
        ]))
        return 0
    }

    /// Imports each state of the file at `path` into a new performer of its plan type, through an engine
    /// holding the new build (as the swap will: real records, so the host's services answer), and
    /// advances it once; nil, or why the new build is refused. A state the build declines (`MOTION_ERROR`)
    /// is not a refusal: that performer stays on its old build, as the swap would leave it.
    static func importStates(from path: String, into descriptor: PluginDescriptor, host: HostServices) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var builder = PluginRegistryBuilder()
        builder.add(descriptor)
        let engine = Engine(registry: builder.freeze(), host: host, vocabulary: .none)
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let sample = try? JSONValue.parse(Array(line)), let planType = sample["planType"]?.stringValue,
                  let state = sample["state"]?.stringValue else { continue }
            _ = engine.swaps.probeImport(planType: planType, state: Array(state.utf8)) { stage in
                print(JSONWriter.string(["stage": .string("\(stage)"), "planType": .string(planType)]))
                fflush(nil)
            }
        }
        return nil
    }

    /// The daemon's side: runs `executable --probe file` with a scrubbed environment and a timeout (and,
    /// for a swap, the running build's states at `states`). Returns nil when the file may be loaded, else
    /// the reason.
    package static func check(file: String, executable: String, states: String? = nil, timeout: Double = timeout) async -> String? {
        let result: ChildProcess.Result
        do {
            result = try await ChildProcess.run(executable, ["--probe", file] + (states.map { ["--probe-states", $0] } ?? []),
                                                timeout: timeout)
        } catch {
            return "probe: could not start \(executable): \(error)"
        }
        let lines = result.output.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONValue.parse(Array($0)) }
        // Where it was when it stopped answering: with a running performer's state, or still loading.
        let stage = lines.last { $0["stage"] != nil }.map { line in
            "in \(line["stage"]?.stringValue ?? "?") of a running \(line["planType"]?.stringValue ?? "?")'s state"
        }
        if result.timedOut { return "probe: no answer within \(Int(timeout)) s (the plugin hangs \(stage ?? "while loading"))" }
        if let signal = result.signal {
            return "probe: crashed \(stage ?? "while loading") (signal \(signal), \(ChildProcess.signalName(signal)))"
                + result.firstErrorLine.map { ": \($0)" }.orEmpty
        }
        let answer = lines.last ?? .null
        if result.status == 0, answer["ok"] == true { return nil }
        if let reason = answer["reason"]?.stringValue { return reason }
        return "probe: exited with status \(result.status)" + result.firstErrorLine.map { ": \($0)" }.orEmpty
    }
}

extension Optional where Wrapped == String {
    var orEmpty: String { self ?? "" }
}
