import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Testing

/// docs/operations.md#animations-survive-a-restart with a real daemon killed by SIGKILL: a tween in a lasting runtime shows, after the restart,
/// the value it would have had; an ephemeral runtime ended with the daemon; the journal survives a burst.
@Suite("Journal across restarts")
struct JournalRestartTests {
    @Test func aTweenContinuesWhereItWouldHaveBeenAfterKillMinus9() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        var client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "work"])
        _ = try await client.call("runtime.create", ["name": "scratch", "ephemeral": true])
        let tween: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [6000], "duration": 600, "timing": "linear"]
        let addedAfter = Date()
        _ = try await client.call("plan.add", ["runtime": "work", "target": "bar", "plan": tween])
        let addedBefore = Date()
        // A burst of 500 plans from one connection, pipelined: every one acknowledged is journaled.
        let burster = client
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<500 {
                group.addTask {
                    _ = try await burster.call("plan.add", ["runtime": "work", "target": .string("b\(index)"),
                                                           "plan": ["type": "Set", "property": "x", "value": [.number(Double(index))]]])
                }
            }
            try await group.waitForAll()
        }
        // Real time on purpose: the tween moves 0.7 s of the clock before the kill; its replayed position is
        // checked against the wall-clock times read around it.
        try await Task.sleep(for: .milliseconds(700))
        #expect(await first.stop(signal: SIGKILL, timeout: 30) == SIGKILL)

        let second = try await DaemonProcess(arguments: ["--state-dir", state.path])
        client = try await second.client()
        let readAfter = Date()
        let restored = try await client.call("runtime.state", ["runtime": "work", "limit": 1000])
        let readBefore = Date()
        let x = try #require(restored["targets"]?["bar"]?["properties"]?["x"]?["value"]?.arrayValue?.first?.doubleValue)
        // 10 units a second for 10 minutes (a restart on a loaded machine may take a minute). The replay
        // itself is exact to a frame (JournalTests); here the live clock of a daemon starting on a busy
        // 2-core machine may run late ticks, so 250 ms of slack below.
        let low = 10 * (readAfter.timeIntervalSince(addedBefore) - 0.25), high = 10 * (readBefore.timeIntervalSince(addedAfter) + 0.1)
        #expect(x >= low && x <= high, "x = \(x), expected \(low)…\(high)")
        #expect(restored["active"] == true, "still animating")
        #expect(restored["targetCount"] == 501, "every acknowledged plan of the burst came back")
        // Every page (one may end early on the engine's time): each of the burst with its value.
        var values: [String: JSONValue] = [:], after: String?, pages = 0
        repeat {
            var params: JSONValue = ["runtime": "work"]
            if let after { params["after"] = .string(after) }
            let page = try await client.call("runtime.state", params)
            for (name, target) in page["targets"]?.objectValue ?? [:] { values[name] = target["properties"]?["x"]?["value"] }
            after = page["next"]?.stringValue
            pages += 1
        } while after != nil && pages < 600
        #expect((0..<500).allSatisfy { values["b\($0)"] == [.number(Double($0))] }, "\(values.count) targets")
        #expect(await { () async -> String? in
            do { _ = try await client.call("runtime.state", ["runtime": "scratch"]); return nil } catch let error as MotionClientError {
                if case .server(let code, _) = error { return code }
                return nil
            } catch { return nil }
        }() == "runtime.not_found", "an ephemeral runtime ends with the daemon")
        #expect(second.log.contains("runtimes replayed from the journal"), "\(second.log)")
        await client.close()
        _ = await second.stop()
    }

    /// `kill -9` in the middle of a burst, while replies are still arriving: every plan acknowledged before
    /// the kill comes back after the restart (save, then apply, then answer).
    @Test func everyAcknowledgedPlanSurvivesAKillMidBurst() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "work"])
        // 3,000 plans pipelined on one raw connection, on a thread of its own (3,000 concurrent calls
        // crowded Swift's few cooperative threads, and other tests' clients missed their hello deadline);
        // the daemon is killed once 300 are acknowledged, while the rest are still being written.
        let pid = first.process.processIdentifier, path = first.socket
        let acked: [String] = try await onOwnThread {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            guard withUnixAddress(path, { connect(descriptor, $0, $1) }) == 0 else { throw Failure("cannot connect") }
            var text = #"{"id":"hello","method":"hello","params":{"protocol":1}}"# + "\n"
            for index in 0..<3_000 {
                text += #"{"id":\#(index),"method":"plan.add","params":{"runtime":"work","target":"b\#(index)","plan":{"type":"Set","property":"x","value":[\#(index)]}}}"# + "\n"
            }
            _ = Array(text.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            var acknowledged: [String] = [], pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                pending += chunk[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = try JSONValue.parse(Array(pending[..<newline]))
                    pending.removeSubrange(...newline)
                    guard line["result"] != nil, let id = line["id"]?.intValue else { continue }
                    acknowledged.append("b\(id)")
                    if acknowledged.count == 300 { kill(pid, SIGKILL) }
                }
            }
            return acknowledged
        }
        // Reaped before its end is read (Foundation traps on a running process's terminationReason).
        _ = await first.process.exitStatus()
        #expect(first.process.terminationReason == .uncaughtSignal, "killed, not exited")
        #expect(acked.count >= 300 && acked.count < 3_000, "killed mid-burst: \(acked.count) acknowledged")

        let second = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let again = try await second.client()
        var restored = Set<String>(), after: String?
        repeat {
            var params: JSONValue = ["runtime": "work", "limit": 1000]
            if let after { params["after"] = .string(after) }
            let page = try await again.call("runtime.state", params)
            let names = page["targets"]?.objectValue?.keys.sorted() ?? []
            restored.formUnion(names)
            after = page["next"]?.stringValue
        } while after != nil
        let lost = acked.filter { !restored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but not restored: \(lost.prefix(20)) (\(lost.count) of \(acked.count))")
        await again.close()
        _ = await second.stop()
    }

    /// One daemon per state directory: a second one pointed at it (another socket, started by hand beside
    /// the unit, say) used to start, and both appended to one journal. It now refuses to start, naming
    /// the first; once the first has stopped, the next start takes over.
    @Test func aSecondDaemonOnTheSameStateDirectoryRefusesToStart() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "work"])
        let journal = try Data(contentsOf: state.appendingPathComponent("journal.jsonl"))
        let second = try await DaemonProcess(arguments: ["--state-dir", state.path], waitForSocket: false)
        let status = await second.process.exitStatus()
        #expect(status != 0, "it exits: \(second.log)")
        #expect(second.log.contains("another motiond (pid \(first.process.processIdentifier)) uses this state directory"), "\(second.log)")
        // The lock is the directory's, not the pid file's: deleting that file takes nothing away.
        try FileManager.default.removeItem(at: state.appendingPathComponent("motiond.lock"))
        let third = try await DaemonProcess(arguments: ["--state-dir", state.path], waitForSocket: false)
        #expect(await third.process.exitStatus() != 0, "it exits too: \(third.log)")
        #expect(third.log.contains("another motiond uses this state directory"), "\(third.log)")
        #expect(try Data(contentsOf: state.appendingPathComponent("journal.jsonl")) == journal, "the first one's journal is untouched")
        #expect(try await client.call("runtime.state", ["runtime": "work"])["targetCount"] == 0, "the first one serves on")
        await client.close()
        #expect(await first.stop(signal: SIGKILL, timeout: 30) == SIGKILL)
        let next = try await DaemonProcess(arguments: ["--state-dir", state.path])
        let again = try await next.client()
        #expect(try await again.call("runtime.state", ["runtime": "work"])["targetCount"] == 0, "the journal is the next one's")
        await again.close()
        _ = await next.stop()
    }

    /// After a restart that replayed a journal in which nothing still moves, the first animation added
    /// later starts at its beginning: it does not jump ahead by the time since the start.
    @Test func theFirstAnimationAfterARestartStartsAtItsBeginning() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path])
        var client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "work"])
        _ = try await client.call("plan.add", ["runtime": "work", "target": "bar", "plan": ["type": "Set", "property": "x", "value": [1]]])
        await client.close()
        #expect(await first.stop() == 0)

        let second = try await DaemonProcess(arguments: ["--state-dir", state.path])
        client = try await second.client()
        // Real time on purpose: what is tested is that 1.5 s of the clock since the start are not jumped over.
        try await Task.sleep(for: .milliseconds(1500))
        let events = EventCollector(client)
        _ = try await client.call("subscribe", ["streams": ["frames"], "targets": ["long"]])
        _ = try await client.call("plan.add", ["target": "long", "plan": [
            "type": "Tween", "property": "x", "from": [0], "to": [1000], "duration": 10, "timing": "linear"]])
        // The frame of the plan itself shows 0; the first tick's frame must be a tick or a few in (100 units
        // a second), not 1.5 s (150) or more.
        let moved = try await events.waitFor {
            $0["event"] == "frame" && ($0["updates"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue ?? 0) > 0
        }.last
        let x = moved?["updates"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue ?? -1
        #expect(x > 0 && x < 30, "first value after the start \(x)")
        await client.close()
        _ = await second.stop()
    }

    /// Issue #46: while a long journal is replayed the daemon answers `hello`, `status` (which says how far
    /// it is) and `metrics`; a change asked meanwhile waits for the replay and then sees every runtime back. The journal
    /// is written here: 50,000 repeating tweens on 5,000 targets (seconds of replay in a debug build).
    @Test func helloAndStatusAreAnsweredWhileTheJournalIsReplayed() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try await DaemonProcess(arguments: try Self.longJournal(in: directory))
        let client = try await daemon.client()
        let during = try await client.call("status")
        let records = during["restoring"]?["records"]?.intValue, done = during["restoring"]?["done"]?.intValue ?? .max
        #expect(records == 50_001 && done < 50_001, "status during the replay: \(during)")
        let metrics = try await client.call("metrics")["text"]?.stringValue ?? ""
        #expect(metrics.contains("motiond_ticks_total"), "metrics during the replay (motionctl top): \(metrics.prefix(300))")
        let still = try await client.call("status")
        #expect(still["restoring"] != nil, "metrics was answered during the replay, not after it: \(still)")
        // Asked during the replay, answered once it is done: everything is back.
        let work = try await client.call("runtime.state", ["runtime": "work", "limit": 1])
        #expect(work["targetCount"] == 5000, "\(work)")
        let after = try await client.call("status")
        #expect(after["restoring"] == nil && after["animations"] == 50_000, "\(after)")
        #expect(daemon.log.contains("runtimes replayed from the journal"), "\(daemon.log.suffix(600))")
        await client.close()
        _ = await daemon.stop()
    }

    /// A state directory whose journal holds 50,000 repeating tweens on 5,000 targets (seconds of replay in
    /// a debug build), and a config whose `journalBytes` keeps them all: motiond's arguments.
    static func longJournal(in directory: URL) throws -> [String] {
        let state = directory.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let runtime = "\(getuid())/work", t = Date().timeIntervalSince1970 - 5
        var lines = #"{"op":"create","runtime":"\#(runtime)","shared":false,"t":\#(t)}"# + "\n"
        for index in 0..<50_000 {
            lines += #"{"op":"add","plan":{"autoreverse":true,"duration":1,"from":[0],"property":"p\#(index % 10)","repeat":"forever","to":[1000],"type":"Tween"},"runtime":"\#(runtime)","t":\#(t + Double(index) * 1e-5),"target":"s\#(index / 10)"}"# + "\n"
        }
        try Data(lines.utf8).write(to: state.appendingPathComponent("journal.jsonl"))
        let config = directory.appendingPathComponent("motiond.json")
        try Data(#"{"quotas": {"journalBytes": 268435456}}"#.utf8).write(to: config)
        return ["--state-dir", state.path, "--config", config.path]
    }

    /// A SIGTERM during the replay stops motiond as at any other time (exit status 0, within the 10 s stop
    /// deadline): the services waiting for the replay's end give up their wait.
    @Test func aStopDuringTheReplayIsAPromptCleanStop() async throws {
        let directory = try DaemonProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try await DaemonProcess(arguments: try Self.longJournal(in: directory))
        let client = try await daemon.client()
        let during = try await client.call("status")
        try #require(during["restoring"] != nil, "stopped during the replay: \(during)")
        // Held past the stop deadline (10 s), motiond would exit with status 1 ("stopping took longer").
        let status = await daemon.stop(signal: SIGTERM, timeout: 30)
        #expect(status == 0, "a clean stop: \(String(describing: status)); \(daemon.log.suffix(600))")
        #expect(!daemon.log.contains("motiond: ready "), "readiness not announced once the stop began: \(daemon.log.suffix(600))")
        await client.close()
    }
}
