import Foundation
import MotionTestSupport
import Testing

/// examples/motion_client.py (standard library only) works against a real daemon, as docs/protocol.md says.
@Suite("Example clients")
struct ExampleClientTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func thePythonExampleSeesItsSpringSettle() async throws {
        let daemon = try await DaemonProcess()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [CCompiler.repository.appendingPathComponent("examples/motion_client.py").path, daemon.socket]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(text.contains("plan types: Decay, Set, Spring, Tween"))
        #expect(text.contains("ball.position = [100, 50]"))
        #expect(text.hasSuffix("ended: finished\n"))
    }
}
