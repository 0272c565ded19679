import ArgumentParser
import Foundation
import Glibc
import MotionClient
import MotionWire

/// `motionctl top` (docs/operations.md#motionctl-top): a live view of the daemon, as `pw-top` and `htop`
/// are of theirs, refreshed once a second: the engine's tick and scheduling class, each uid's holdings
/// and engine time, frames sent and updates dropped per second by transport, each connection (pid, uid,
/// name, subscriptions). Keys: `u` sorts uids by engine
/// time (default) or by uid, `c` sorts connections by subscriptions or by id, `q` (or Ctrl-C) quits; the
/// terminal is given back as it was however top ends (`RawTerminal`).
struct Top: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A live view of the daemon: ticks, uids, connections (q quits).")
    @OptionGroup var connection: Connection
    @Option(help: "Stop after this many refreshes (default: until q).") var count: Int?

    func run() async throws {
        let terminal = RawTerminal()
        defer { terminal.restore() }
        try await connection.run { client in
            var state = TopState(), refreshes = 0
            while count.map({ refreshes < $0 }) ?? true {
                let status = try await client.call("status", ["clients": true])
                let metrics = try await client.call("metrics")["text"]?.stringValue ?? ""
                state.update(status: status, metrics: metrics, at: Date())
                show(state.screen())
                refreshes += 1
                // A second, or a key.
                let deadline = Date().addingTimeInterval(1)
                while Date() < deadline {
                    if let key = terminal.key() {
                        switch key {
                        case "q": return
                        case "u": state.uidsByTime.toggle()
                        case "c": state.connectionsBySubscriptions.toggle()
                        default: continue
                        }
                        show(state.screen())
                    }
                    try await Task.sleep(for: .milliseconds(50))  // the terminal is polled for keys
                }
            }
        }
    }
}

/// Clears the terminal and writes `screen` at once (not line-buffered).
func show(_ screen: String) {
    FileHandle.standardOutput.write(Data(("\u{1B}[H\u{1B}[2J" + screen).utf8))
}

/// What `top` shows, from `status {clients: true}` and `metrics`.
struct TopState {
    var status: JSONValue = [:]
    var engineSeconds: [String: Double] = [:]
    var previousSeconds: [String: Double] = [:]
    /// The frame clock's time shared out to each uid (`motiond_uid_tick_seconds_total`).
    var tickSeconds: [String: Double] = [:], previousTickSeconds: [String: Double] = [:]
    /// Frames sent and property updates dropped (conflated for a slow reader), by transport: totals now
    /// and at the previous refresh.
    var frames: [String: Double] = [:], previousFrames: [String: Double] = [:]
    var dropped: [String: Double] = [:], previousDropped: [String: Double] = [:]
    var previousTime: Date?
    var elapsed = 1.0
    var uidsByTime = true
    var connectionsBySubscriptions = false

    mutating func update(status: JSONValue, metrics: String, at time: Date) {
        self.status = status
        (previousSeconds, previousTickSeconds) = (engineSeconds, tickSeconds)
        engineSeconds = Self.byLabel("motiond_uid_engine_seconds_total", "uid", in: metrics)
        tickSeconds = Self.byLabel("motiond_uid_tick_seconds_total", "uid", in: metrics)
        (previousFrames, previousDropped) = (frames, dropped)
        frames = Self.byLabel("motiond_frames_sent_total", "transport", in: metrics)
        dropped = Self.byLabel("motiond_updates_dropped_total", "transport", in: metrics)
        elapsed = previousTime.map { max(time.timeIntervalSince($0), 0.001) } ?? 1
        previousTime = time
    }

    /// A counter's values by its `transport` label.
    /// A counter's values by its one label (`motiond_frames_sent_total{transport="json"} 12.0`).
    static func byLabel(_ name: String, _ label: String, in metrics: String) -> [String: Double] {
        var values: [String: Double] = [:]
        let prefix = name + "{" + label + "=\""
        for line in metrics.split(separator: "\n") where line.hasPrefix(prefix) {
            let value = line.dropFirst(prefix.count).prefix { $0 != "\"" }
            values[String(value)] = line.split(separator: " ").last.flatMap { Double(String($0)) } ?? 0
        }
        return values
    }

    /// Per second since the last refresh, by transport: `json 120/s shm 0/s`.
    func rates(_ now: [String: Double], _ before: [String: Double]) -> String {
        let transports = Set(now.keys).union(["json", "shm"]).sorted()
        return transports.map { "\($0) \(Int((((now[$0] ?? 0) - (before[$0] ?? now[$0] ?? 0)) / elapsed).rounded()))/s" }.joined(separator: " ")
    }

    func number(_ value: JSONValue?) -> String {
        guard let value = value?.doubleValue else { return "-" }
        return value.rounded() == value ? String(Int(value)) : String(format: "%.3f", value)
    }

    func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }

    /// `status` has every uid's usage for an admin only.
    var isAdmin: Bool { status["usage"] != nil }

    func screen() -> String {
        let tick = status["tick"] ?? [:]
        var lines = [
            "motiond top — \(number(status["clients"])) connections, \(number(status["runtimes"])) runtimes, \(number(status["animations"])) animations, \(number(status["subscriptions"])) subscriptions",
            "engine \(status["engineScheduling"]?.stringValue ?? "?")   rate \(number(status["rate"])) Hz   tick p50 \(number(tick["p50_ms"])) ms  p99 \(number(tick["p99_ms"])) ms  late p99 \(number(tick["late_p99_ms"])) ms  overruns \(number(tick["overruns"]))",
            // Frames and drops are counted over every uid's subscribers: an admin's view (docs/operations.md#metrics).
            isAdmin ? "frames \(rates(frames, previousFrames))   drops (updates conflated) \(rates(dropped, previousDropped)), \(Int(dropped.values.reduce(0, +))) in all"
                : "frames and drops: every uid's together, shown to an admin only",
            "",
            pad("UID", 8) + pad("ENGINE ms/s", 13) + pad("TICK ms/s", 11) + pad("RUNTIMES", 10) + pad("PERFORMERS", 12) + pad("ANIMATIONS", 12) + "SUBSCRIPTIONS",
        ]
        // A client sees its own uid only: its row from `status`, which counts that uid's.
        let own: JSONValue = ["uid": .number(Double(getuid())), "runtimes": status["runtimes"] ?? .null, "performers": status["performers"] ?? .null,
                              "animations": status["animations"] ?? .null, "subscriptions": status["subscriptions"] ?? .null]
        var uids = (isAdmin ? status["usage"]?["uids"]?.arrayValue ?? [] : [own]).map { uid -> (String, Double, JSONValue) in
            let name = number(uid["uid"])
            let rate = ((engineSeconds[name] ?? 0) - (previousSeconds[name] ?? engineSeconds[name] ?? 0)) / elapsed * 1000
            return (name, rate, uid)
        }
        uids.sort { uidsByTime ? ($0.1, $1.0) > ($1.1, $0.0) : (Int($0.0) ?? 0) < (Int($1.0) ?? 0) }
        for (name, rate, uid) in uids {
            let tick = ((tickSeconds[name] ?? 0) - (previousTickSeconds[name] ?? tickSeconds[name] ?? 0)) / elapsed * 1000
            lines.append(pad(name, 8) + pad(String(format: "%.3f", rate), 13) + pad(String(format: "%.3f", tick), 11) + pad(number(uid["runtimes"]), 10)
                + pad(number(uid["performers"]), 12) + pad(number(uid["animations"]), 12) + number(uid["subscriptions"]))
        }
        lines += ["", pad("ID", 6) + pad("PID", 9) + pad("UID", 8) + pad("ROLE", 8) + pad("SUBS", 6) + "CLIENT"]
        var connections = status["connections"]?.arrayValue ?? []
        if connectionsBySubscriptions { connections.sort { ($0["subscriptions"]?.doubleValue ?? 0) > ($1["subscriptions"]?.doubleValue ?? 0) } }
        for client in connections {
            lines.append(pad(number(client["id"]), 6) + pad(number(client["pid"]), 9) + pad(number(client["uid"]), 8)
                + pad(client["role"]?.stringValue ?? "", 8) + pad(number(client["subscriptions"]), 6) + (client["client"]?.stringValue ?? ""))
        }
        lines += ["", "u: sort uids by \(uidsByTime ? "uid" : "engine time")   c: sort connections by \(connectionsBySubscriptions ? "id" : "subscriptions")   q: quit"]
        return lines.joined(separator: "\n") + "\n"
    }
}

/// The terminal in raw mode while `top` runs (keys one at a time, no echo); left alone without one.
final class RawTerminal {
    private let isTerminal = isatty(STDIN_FILENO) == 1

    /// Keys come one at a time and unechoed. Ctrl-C (SIGINT) and Ctrl-\\ end top with the terminal given
    /// back, wherever top is (a call to a daemon that does not answer included); SIGTERM and SIGHUP too;
    /// Ctrl-Z gives it back while top is stopped and takes it again when it goes on.
    init() {
        guard isTerminal else { return }
        tcgetattr(STDIN_FILENO, &savedTerminal)
        rawTerminal = savedTerminal
        rawTerminal.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &rawTerminal.c_cc) { $0[Int(VMIN)] = 0; $0[Int(VTIME)] = 0 }
        for signal in [SIGINT, SIGQUIT] {
            // Ended as by `q` (an exit, not death by the signal: a shell running top goes on after it).
            Glibc.signal(signal) { number in
                tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
                _exit(128 + number)
            }
        }
        for signal in [SIGTERM, SIGHUP] {
            Glibc.signal(signal) { number in
                tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
        }
        Glibc.signal(SIGTSTP) { _ in
            tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
            raise(SIGSTOP)
            // Going on (SIGCONT): raw again.
            tcsetattr(STDIN_FILENO, TCSANOW, &rawTerminal)
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &rawTerminal)
    }

    /// A key pressed since the last look, if any.
    func key() -> Character? {
        guard isTerminal else { return nil }
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 1 ? Character(Unicode.Scalar(byte)) : nil
    }

    func restore() {
        guard isTerminal else { return }
        for signal in [SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGTSTP] { Glibc.signal(signal, SIG_DFL) }
        tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
    }
}

/// The terminal as it was before `top`, and as top sets it: global, as a signal's handler can reach
/// nothing else.
nonisolated(unsafe) private var savedTerminal = termios()
nonisolated(unsafe) private var rawTerminal = termios()
