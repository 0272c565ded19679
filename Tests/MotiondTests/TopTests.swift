import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// `motionctl top` in a real terminal (tmux): the clients of two uids and the engine's scheduling class
/// on screen, `q` quits, and Ctrl-C too, the terminal given back (docs/operations.md#motionctl-top).
@Suite("motionctl top")
struct TopTests {
    static let tmux = "/usr/bin/tmux"

    /// The test's own tmux server (`-L`): a user's tmux is neither used nor disturbed.
    static let server = "motiond-test-\(getpid())"

    /// Runs tmux on the test's server; its output, unless `detached`. `new-session` forks the tmux
    /// server, which would inherit the end of the socket pair by which Foundation learns of the tmux
    /// client's exit and hold it for as long as it lives (the client stayed a zombie and the test waited
    /// for ever on a fresh machine, where no tmux server ran yet): a detached start runs through python3,
    /// which closes every descriptor above stderr before it becomes tmux.
    static func tmux(_ arguments: [String], detached: Bool = false) async throws -> String {
        let process = Process()
        let command = [tmux, "-L", server] + arguments
        if detached {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", "import os, sys; os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])"] + command
        } else {
            process.executableURL = URL(fileURLWithPath: tmux)
            process.arguments = Array(command.dropFirst())
        }
        let output = Pipe()
        process.standardOutput = detached ? FileHandle.nullDevice : output
        process.standardError = detached ? FileHandle.nullDevice : output
        try process.runAlone()
        _ = await process.exitStatus(timeout: 60)
        try output.fileHandleForWriting.close()
        return detached ? "" : String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The pane once `condition` holds (or the last one seen after 15 s).
    static func screen(of session: String, until condition: (String) -> Bool) async throws -> String {
        var screen = ""
        for _ in 0..<300 {
            screen = try await tmux(["capture-pane", "-t", session, "-p"])
            if condition(screen) { break }
            try await Task.sleep(for: .milliseconds(50))  // polls the screen
        }
        return screen
    }

    /// Presses `q` and expects top (and its session) to end.
    static func quit(_ session: String) async throws {
        _ = try await tmux(["send-keys", "-t", session, "q"])
        var running = true
        for _ in 0..<200 where running {
            running = try await tmux(["has-session", "-t", session]).isEmpty
            if running { try await Task.sleep(for: .milliseconds(50)) }  // polls for the session's end
        }
        #expect(!running, "q quit top")
    }

    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs root, setpriv and python3 to act as a second uid"))
    func topShowsTwoUidsAndTheEnginesClassAndQuitsOnQ() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tmux), "scripts/setup installs tmux")
        let daemon = try await DaemonProcess()
        try ThemeDaemonTests.openToOthers(daemon)
        // A client of uid 65534 holding its connection (and a spring) while top looks.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        other.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", """
            import json, socket, sys, time
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
            for i, (m, p) in enumerate([("hello", {"protocol": 1, "client": "widget-of-nobody"}), ("plan.add", {"target": "w", "plan": {"type": "Tween", "property": "x", "to": [1], "duration": 120}})]):
                f.write(json.dumps({"id": i, "method": m, "params": p}) + "\\n"); f.flush(); f.readline()
            print("ready", flush=True)
            sys.stdin.read()
            """, daemon.socket]
        let input = Pipe(), output = Pipe()
        other.standardInput = input
        other.standardOutput = output
        try other.runAlone()
        defer { try? input.fileHandleForWriting.close(); other.terminate() }
        let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        #expect(ready.contains("ready"), "\(ready)")

        let session = "motiond-top-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let motionctl = DaemonProcess.buildDirectory.appendingPathComponent("motionctl").path
        _ = try await Self.tmux(["new-session", "-d", "-s", session, "-x", "160", "-y", "40", "\(motionctl) top --socket \(daemon.socket)"],
                                detached: true)
        var screen = ""
        for _ in 0..<300 {
            screen = try await Self.tmux(["capture-pane", "-t", session, "-p"])
            if screen.contains("65534"), screen.contains("widget-of-nobody"), screen.contains("SCHED_") { break }
            try await Task.sleep(for: .milliseconds(50))  // polls the screen
        }
        #expect(screen.contains("widget-of-nobody") && screen.contains("65534") && screen.contains("motionctl"),
                "both uids' clients on screen:\n\(screen)")
        #expect(screen.contains("frames json ") && screen.contains("drops (updates conflated) json "), "\(screen)")
        #expect(screen.contains("engine SCHED_OTHER") || screen.contains("engine SCHED_FIFO") || screen.contains("engine SCHED_RR"), "\(screen)")
        let lines = screen.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("0 ") } && lines.contains { $0.hasPrefix("65534 ") }, "a row per uid:\n\(screen)")
        // `u` sorts uids by uid (0 first), `c` connections by subscriptions; each footer names the other order.
        _ = try await Self.tmux(["send-keys", "-t", session, "u"])
        _ = try await Self.tmux(["send-keys", "-t", session, "c"])
        screen = try await Self.screen(of: session) { $0.contains("u: sort uids by engine time") && $0.contains("c: sort connections by id") }
        let sorted = screen.split(separator: "\n")
        let rootRow = sorted.firstIndex { $0.hasPrefix("0 ") }, otherRow = sorted.firstIndex { $0.hasPrefix("65534 ") }
        #expect(screen.contains("u: sort uids by engine time") && screen.contains("c: sort connections by id"), "the keys took:\n\(screen)")
        #expect(rootRow != nil && otherRow != nil && rootRow! < otherRow!, "uids sorted by uid:\n\(screen)")
        try await Self.quit(session)

        // As the second uid: its own row (from `status`), and no every-uid frame rates that would read as zeros.
        // Ended by Ctrl-C, it gives the terminal back as it was: `stty` after it, in the same shell, sees
        // icanon and echo again (killed by the signal, top left the terminal raw). bash, as it goes on after
        // a program that ends itself at Ctrl-C (dash dies with it, whatever the program does).
        let own = "motiond-top-own-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let then = "echo top-ended; stty -a; read line"
        _ = try await Self.tmux(["new-session", "-d", "-s", own, "-x", "160", "-y", "40",
                                 "/bin/bash -c '/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \(motionctl) top --socket \(daemon.socket); \(then)'"], detached: true)
        screen = try await Self.screen(of: own) { $0.split(separator: "\n").contains { $0.hasPrefix("65534 ") } }
        let row = screen.split(separator: "\n").first { $0.hasPrefix("65534 ") }.map { $0.split(separator: " ") } ?? []
        #expect(row.count == 7 && row[5] == "1", "its row counts its one animation:\n\(screen)")
        #expect(!screen.split(separator: "\n").contains { $0.hasPrefix("0 ") } && screen.contains("shown to an admin only"), "\(screen)")
        _ = try await Self.tmux(["send-keys", "-t", own, "C-c"])
        screen = try await Self.screen(of: own) { $0.contains("top-ended") && $0.contains("icanon") }
        let modes = screen.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" })
        #expect(screen.contains("top-ended") && modes.contains("icanon") && modes.contains("echo") && modes.contains("isig"),
                "Ctrl-C ended top and gave the terminal back:\n\(screen)")
        _ = try await Self.tmux(["kill-session", "-t", own])
        _ = try await Self.tmux(["kill-server"])
        _ = await daemon.stop()
    }
}
