import Foundation
import MotionTestSupport
import MotionWire
import Testing

/// examples/motion_client.py (standard library only) works against a real daemon, as docs/protocol.md says.
@Suite("Example clients")
struct ExampleClientTests {
    /// Runs `examples/NAME` against a fresh daemon for at most `seconds`: its exit status and output.
    static func runExample(_ name: String, seconds: Double) async throws -> (status: Int32, text: String) {
        let daemon = try await DaemonProcess()
        let run = try await TestProcess.run("/usr/bin/python3", [CCompiler.repository.appendingPathComponent("examples/\(name)").path, daemon.socket],
                                            timeout: seconds)
        return (run.status, run.output)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func thePythonExampleSeesItsSpringSettle() async throws {
        let (status, text) = try await Self.runExample("motion_client.py", seconds: 20)
        #expect(status == 0)
        #expect(text.contains("plan types: Decay, Draggable, Keyframes, Set, Spring, Tossable, Tween"))
        #expect(text.contains("ball.position = [100, 50]"))
        #expect(text.hasSuffix("ended: finished\n"))
    }

    /// examples/drag_and_toss.py: a scripted pointer drags a slider past its bound and tosses a card to a
    /// snap point, as a client author would write it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func thePythonDragAndTossExampleLandsOnTheSnapPoint() async throws {
        let (status, text) = try await Self.runExample("drag_and_toss.py", seconds: 30)
        #expect(status == 0, "\(text)")
        #expect(text.contains("card rests at 300.00"), "\(text)")
    }

    /// README's "Protocol v1 in one minute": its socat command, run as written (socket path aside).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/socat"), "needs socat (scripts/setup installs it)"))
    func theReadmeSocatExampleStreamsTheSpring() async throws {
        let readme = try String(contentsOf: CCompiler.repository.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "socat -t 5 - UNIX-CONNECT:/run/motiond/motiond.sock <<'EOF'\n"),
              let end = readme.range(of: "\nEOF\n", range: start.upperBound..<readme.endIndex) else {
            throw Failure("README.md has no socat example")
        }
        let input = String(readme[start.upperBound..<end.lowerBound]) + "\n"
        let daemon = try await DaemonProcess()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        process.arguments = ["-t", "5", "-", "UNIX-CONNECT:\(daemon.socket)"]
        let (stdin, stdout) = (Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.runAlone()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let reader = stdout.fileHandleForReading
        let text = try await onOwnThread { String(decoding: reader.readDataToEndOfFile(), as: UTF8.self) }
        _ = await process.exitStatus()
        let lines = try text.split(separator: "\n").map { try JSONValue.parse(Array($0.utf8)) }
        #expect(lines.first?["result"]?["server"] == "motiond")
        let frames = lines.filter { $0["event"] == "frame" }
        #expect(frames.count > 20, "\(lines.count) lines")
        #expect(frames.last?["updates"]?.arrayValue?.first?["value"] == [100, 200], "the spring settled on its target")
        #expect(lines.contains { $0["kind"] == "runtime.idle" })
        // The output README shows is what the daemon says: each line shown (times, values aside) is a line
        // it sent, with the same keys and the same values.
        guard let shownStart = readme.range(of: "```\n{\"id\":1,\"result\"", range: end.upperBound..<readme.endIndex),
              let shownEnd = readme.range(of: "\n```", range: shownStart.upperBound..<readme.endIndex) else {
            throw Failure("README.md shows no output of the socat example")
        }
        let shown = readme[readme.index(shownStart.lowerBound, offsetBy: 4)..<shownEnd.lowerBound].split(separator: "\n")
            .filter { $0.hasPrefix("{") }
        #expect(shown.count >= 5)
        let live = Set(lines.map { Self.withoutTimesAndValues($0) }.map(JSONWriter.string))
        for line in shown {
            let parsed = try JSONValue.parse(Array(line.utf8))
            let sent = live.contains(JSONWriter.string(Self.withoutTimesAndValues(parsed)))
            #expect(sent, "README shows a line motiond does not send: \(line)")
        }
    }

    /// A line with what differs from run to run (times, animated values) left out.
    static func withoutTimesAndValues(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (key, member) in members where !["t", "now", "value", "velocity"].contains(key) {
                kept[key] = withoutTimesAndValues(member)
            }
            return .object(kept)
        case .array(let elements): return .array(elements.map(withoutTimesAndValues))
        default: return value
        }
    }
}
