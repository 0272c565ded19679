import Foundation
import MotionWire

/// `motiond --validate FILE…` (clap-validator for motiond): probes each file in a child as the daemon
/// would, then runs `ConformanceSuite` against it in another child, and prints a report. A plugin passes
/// when no check fails; warnings name what a plugin could do better.
package enum PluginValidator {
    package static let timeout = 120.0

    /// Validates every file, writing the report through `print`; true when all of them pass.
    package static func validate(files: [String], executable: String, print: (String) -> Void) async -> Bool {
        var allPassed = true
        for name in files {
            // A bare name would be looked up on the dynamic linker's path, not here.
            let file = name.contains("/") ? name : "./" + name
            print("motiond --validate \(name)")
            var counts: [ConformanceSuite.Status: Int] = [:]
            func line(_ status: ConformanceSuite.Status, _ check: String, _ detail: String) {
                counts[status, default: 0] += 1
                print("  \(status.rawValue.uppercased())  \(check): \(detail)")
            }
            // The daemon's own file checks first: a file it would refuse to load does not pass here.
            if let refusal = PluginFileCheck.refusal(for: file) {
                line(.fail, "file", "motiond refuses to load it: \(refusal)")
            } else if let reason = await PluginProbe.check(file: file, executable: executable) {
                line(.fail, "probe", reason)
            } else {
                line(.pass, "probe", "loads in a child process")
                for (status, check, detail) in await suite(file: file, executable: executable) { line(status, check, detail) }
            }
            let failed = counts[.fail, default: 0]
            if failed > 0 { allPassed = false }
            print("  result: \(failed > 0 ? "FAIL" : "PASS") (\(counts[.pass, default: 0]) passed, "
                + "\(counts[.warn, default: 0]) warning\(counts[.warn, default: 0] == 1 ? "" : "s"), \(failed) failed)")
        }
        return allPassed
    }

    /// The child's outcomes; a crash or a hang is reported as the failure of the check it happened in.
    private static func suite(file: String, executable: String) async -> [(ConformanceSuite.Status, String, String)] {
        let result: ChildProcess.Result
        do {
            // With the allocation counter preloaded, the child counts what a plugin's advance allocates.
            let counter = AllocationCounter.library.map { ["LD_PRELOAD": $0] } ?? [:]
            result = try await ChildProcess.run(executable, ["--validate-child", file], timeout: timeout, environment: counter)
        } catch {
            return [(.fail, "suite", "could not start \(executable): \(error)")]
        }
        var outcomes: [(ConformanceSuite.Status, String, String)] = []
        var running: String?
        for text in result.output.split(separator: UInt8(ascii: "\n")) {
            guard let line = try? JSONValue.parse(Array(text)), let check = line["check"]?.stringValue,
                  let state = line["status"]?.stringValue else { continue }
            if let status = ConformanceSuite.Status(rawValue: state) {
                outcomes.append((status, check, line["detail"]?.stringValue ?? ""))
                running = nil
            } else {
                running = check
            }
        }
        let during = running ?? "suite"
        if result.timedOut {
            outcomes.append((.fail, during, "no answer within \(Int(timeout)) s (the plugin hangs)"))
        } else if let signal = result.signal {
            outcomes.append((.fail, during, "crashed motiond's validator (signal \(signal), \(ChildProcess.signalName(signal)))"
                + (result.firstErrorLine.map { ": \($0)" } ?? "")))
        } else if running != nil || (result.status != 0 && !outcomes.contains { $0.0 == .fail }) {
            outcomes.append((.fail, during, "the suite ended with status \(result.status)"
                + (result.firstErrorLine.map { ": \($0)" } ?? "")))
        }
        return outcomes
    }
}
