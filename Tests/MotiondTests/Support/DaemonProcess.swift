import Foundation
import MotionClient
import MotionTestSupport
import MotionWire

/// A real `motiond` child process on a socket in a fresh temporary directory.
final class DaemonProcess: @unchecked Sendable {
    // @unchecked: `process` is only started in `init` and signalled afterwards; Process is thread-safe
    // for `isRunning` and signalling by pid, and the other members are immutable.
    let directory: URL
    let socket: String
    let process: Process
    let logFile: URL

    /// The package's build directory (the test binary's own directory): motiond and the plugins.
    static var buildDirectory: URL {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    static func temporaryDirectory() throws -> URL {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("motiond-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static var motiond: String { buildDirectory.appendingPathComponent("motiond").path }

    /// Starts motiond with `arguments` (a `--socket` is added) and waits until it accepts connections.
    convenience init(arguments: [String] = [], socket: String? = nil, waitForSocket: Bool = true) async throws {
        let directory = try Self.temporaryDirectory()
        let path = socket ?? directory.appendingPathComponent("motiond.sock").path
        try await self.init(directory: directory, socket: path, command: [Self.motiond, "--socket", path] + arguments,
                            environment: [:], waitForSocket: waitForSocket)
    }

    /// Runs `command` (motiond, or a launcher such as systemd-socket-activate that execs it) with
    /// `environment` added, logging to a file, and waits until `socket` accepts connections.
    init(directory: URL, socket: String, command: [String], environment extra: [String: String],
         waitForSocket: Bool = true) async throws {
        self.directory = directory
        self.socket = socket
        logFile = directory.appendingPathComponent("motiond.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        var environment = ProcessInfo.processInfo.environment
        for key in ["MOTIOND_PLUGIN_PATH", "JOURNAL_STREAM", "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID"] {
            environment[key] = nil
        }
        environment.merge(extra) { $1 }
        process.environment = environment
        let log = try FileHandle(forWritingTo: logFile)
        process.standardError = log
        process.standardOutput = log
        guard waitForSocket else {
            try process.runAlone()
            return
        }
        await StartupGate.shared.enter()
        do {
            try process.runAlone()
            try await waitUntilListening()
            await StartupGate.shared.leave()
        } catch {
            await StartupGate.shared.leave()
            throw error
        }
    }

    /// Generous: a loaded CI machine is slow, and a daemon that never listens fails at once (it exits).
    private static let listenTimeout = 60.0

    /// How long a client that lives through a daemon restart may run: the first daemon's stop (≤ 10 s),
    /// the second's start (≤ 60 s, after other tests' starts) and the wait for its resubscription
    /// (≤ 30 s) together. Such a client ends by itself once it has seen what it needs; a fixed 30–40 s
    /// cut it off mid-wait on a loaded machine (the stress runs' one failure: `watch` killed while
    /// still waiting for the second daemon, which then never saw a subscriber).
    static let acrossARestart = 150.0

    private func waitUntilListening() async throws {
        let deadline = Date().addingTimeInterval(Self.listenTimeout)
        while Date() < deadline {
            if let client = try? await MotionClient.connect(path: socket) {
                await client.close()
                return
            }
            guard process.isRunning else { throw Failure("motiond exited early: \(log)") }
            try await Task.sleep(for: .milliseconds(50))  // polls until motiond listens on the socket
        }
        throw Failure("motiond did not listen on \(socket) within \(Int(Self.listenTimeout)) s: \(log)")
    }

    /// What motiond wrote to stderr so far. Decoded leniently: read while a line is being written, the
    /// file may end inside a character, and a strict decoding gave "" (a test polling for a line missed it).
    var log: String { (try? Data(contentsOf: logFile)).map { String(decoding: $0, as: UTF8.self) } ?? "" }

    /// The daemon's resident memory (VmRSS), in MiB.
    var residentMegabytes: Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? .infinity) / 1024
    }

    /// What each open descriptor is (`/proc/<pid>/fd` link targets, sorted): for failure messages.
    var descriptorKinds: [String] {
        let directory = "/proc/\(process.processIdentifier)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0) }
            .map { $0.hasPrefix("socket:") ? "socket" : $0 }.sorted()
    }

    /// `descriptorKinds` without those of worker threads: a pool thread that touched Foundation holds a
    /// run loop's epoll, eventfd and timerfd while it lives, and the pools grow and shrink on their own (a CI run saw 31 descriptors
    /// become 40 across plugin reloads: three more workers; 21 of them 0.4 s after start, 15 at 8 s).
    var ownDescriptorKinds: [String] {
        descriptorKinds.filter { !["anon_inode:[eventpoll]", "anon_inode:[eventfd]", "anon_inode:[timerfd]"].contains($0) }
    }

    /// Returns once the daemon counts at least `count` subscriptions (`status.subscriptions`), polling
    /// every 50 ms; fails the test after `timeout` seconds.
    func waitForSubscriptions(atLeast count: Int = 1, timeout: Double = 30) async throws {
        let observer = try await client()
        defer { Task { await observer.close() } }
        let deadline = Date().addingTimeInterval(timeout)
        var seen = 0
        while Date() < deadline {
            seen = try await observer.call("status")["subscriptions"]?.intValue ?? 0
            if seen >= count { return }
            try await Task.sleep(for: .milliseconds(50))  // polls the condition
        }
        throw Failure("\(seen) subscriptions after \(Int(timeout)) s, expected \(count)")
    }

    /// A connected client that has said hello.
    func client() async throws -> MotionClient {
        let client = try await MotionClient.connect(path: socket)
        try await client.hello(client: "tests")
        return client
    }

    /// Sends `signal` and waits for the exit status (nil if it did not exit within `timeout`).
    func stop(signal: Int32 = SIGTERM, timeout: Double = 10) async -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }  // polls for the exit
        if process.isRunning && !Process.isZombie(process.processIdentifier) {
            kill(-process.processIdentifier, SIGKILL)  // with a launcher's children (SystemdTests' shell)
            kill(process.processIdentifier, SIGKILL)
            reportStop("still running \(timeout) s after signal \(signal): killed")
            _ = await process.exitStatus()
            return nil
        }
        // Exited, or exiting; Foundation reaps it once every holder of its exit socket has closed it (a
        // starved reaper, or a descendant left behind, kept a stopped daemon a zombie): `exitStatus` waits
        // for that, boundedly.
        let status = await process.exitStatus(timeout: 30)
        if status != 0 {
            reportStop("exited with status \(status) (reason \(process.isRunning ? -1 : process.terminationReason.rawValue)) after signal \(signal)")
        }
        return status
    }

    /// A stop that went wrong is rare and load-dependent: what the daemon said last goes to the test's
    /// output, so that a failure in CI can be read.
    private func reportStop(_ what: String) {
        let tail = String(log.suffix(4000))
        FileHandle.standardError.write(Data("motiond \(process.processIdentifier) \(what); its log ends:\n\(tail)\n".utf8))
    }

    deinit {
        // Its group too: a probe or backtracer it left behind would hold its files and exit socket.
        if process.isRunning { kill(-process.processIdentifier, SIGKILL); kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Collects a client's events in the background so tests can wait for the one they need.
actor EventCollector {
    private(set) var events: [JSONValue] = []
    private var task: Task<Void, Never>?

    init(_ client: MotionClient) {
        let stream = client.events
        Task { await self.consume(stream) }
    }

    private func consume(_ stream: AsyncStream<JSONValue>) async {
        for await event in stream { events.append(event) }
    }

    func clear() { events.removeAll() }

    /// Waits until an event satisfies `predicate` and returns all events up to and including it.
    func waitFor(timeout: Double = 10, _ predicate: @Sendable (JSONValue) -> Bool) async throws -> [JSONValue] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let index = events.firstIndex(where: predicate) { return Array(events[...index]) }
            try await Task.sleep(for: .milliseconds(10))  // polls the events the stream delivered
        }
        throw Failure("no matching event within \(timeout) s; got \(events.count) events")
    }
}

func isTrace(_ kind: String) -> @Sendable (JSONValue) -> Bool {
    { $0["event"] == "trace" && $0["kind"]?.stringValue == kind }
}
