import Foundation
import MotionClient
import MotionTestSupport
import MotionWire
import Synchronization
import Testing

/// docs/protocol.md#a-stop and #idempotency-keys: a SIGTERM in the middle of a burst of keyed
/// `plan.add`s leaves no change applied and unanswered, and after a restart the retries with the same
/// keys apply each plan exactly once.
@Suite("Answers at a stop")
struct StopAnswersTests {
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    enum Outcome: Equatable, Sendable {
        case result(JSONValue)
        case refused(String)
        case closed
    }

    /// The `add` records of the journal, by target.
    static func journaledAdds(_ state: URL) throws -> [String: Int] {
        let text = try String(contentsOf: state.appendingPathComponent("journal.jsonl"), encoding: .utf8)
        var adds: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let record = try JSONValue.parse(Array(line.utf8))
            if record["op"] == "add", let target = record["target"]?.stringValue { adds[target, default: 0] += 1 }
        }
        return adds
    }

    static func plan(_ index: Int) -> JSONValue {
        ["runtime": "kept", "target": .string("t\(index)"), "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 600]]
    }

    /// SIGTERM to `pid` from a thread of its own once `answers` calls are answered (or after 30 s, whatever
    /// came: the test then says what it saw). A task polling the count shared Swift's two cooperative threads
    /// with the requests' tasks, and under load came after all were answered.
    static func stop(_ pid: Int32, afterAnswers answers: Int, of answered: Count) {
        Thread.detachNewThread {
            let giveUp = Date().addingTimeInterval(30)
            while answered.value.load(ordering: .relaxed) < answers, Date() < giveUp { usleep(500) }  // polls the count
            kill(pid, SIGTERM)
        }
    }

    /// `count` calls at once (`call(index)`), each one's outcome; `answered` counts the results as they come.
    static func burst(_ count: Int, answered: Count, _ call: @escaping @Sendable (Int) async throws -> JSONValue) async -> [Int: Outcome] {
        await withTaskGroup(of: (Int, Outcome).self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        let result = try await call(index)
                        answered.value.add(1, ordering: .relaxed)
                        return (index, .result(result))
                    } catch MotionClientError.server(let code, _) {
                        return (index, .refused(code))
                    } catch {
                        return (index, .closed)
                    }
                }
            }
            var outcomes: [Int: Outcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    @Test func aStopAnswersWhatItAppliedAndKeyedRetriesApplyOnce() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        let config = try DaemonProcess.temporaryDirectory().appendingPathComponent("motiond.json")
        try Data(#"{"quotas": {"enginePercent": 5}}"#.utf8).write(to: config)
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path, "--config", config.path])
        let client = try await first.client()
        _ = try await client.call("runtime.create", ["name": "kept"])
        // A burst larger than the daemon answers in the time a stop takes: requests are in flight at the
        // SIGTERM, some being written, some queued, some still in the socket. The first daemon gives the
        // uid 5 % of the engine thread (quotas.enginePercent): in a loaded run at 50 % the stop, on its
        // cooperative threads, began after the realtime socket and engine threads had answered all 3,000.
        let count = 3000
        let answered = Count()
        let pid = first.process.processIdentifier
        Self.stop(pid, afterAnswers: 100, of: answered)
        let outcomes = await Self.burst(count, answered: answered) { index in
            try await client.call("plan.add", Self.plan(index), key: "add-\(index)")
        }
        #expect(await first.stop() == 0)
        let journaled = try Self.journaledAdds(state)
        let results = outcomes.values.filter { if case .result = $0 { true } else { false } }.count
        let refused = outcomes.values.filter { $0 == .refused("server.shutting_down") }.count
        let closed = outcomes.values.filter { $0 == .closed }.count
        let appliedUnanswered = journaled.keys.filter { target in
            guard let index = Int(target.dropFirst()), case .result = outcomes[index] else { return true }
            return false
        }
        print("at the SIGTERM: \(results) answered, \(refused) refused (server.shutting_down), \(closed) closed unanswered; \(journaled.count) journaled; \(appliedUnanswered.count) applied and unanswered")
        #expect(appliedUnanswered.isEmpty, "applied but never answered: \(appliedUnanswered.sorted().prefix(10))")
        #expect(journaled.values.allSatisfy { $0 == 1 })
        #expect(results >= 100 && results < count, "the stop came in the middle of the burst: \(results) of \(count) answered")
        #expect(results + refused + closed == count, "every request has one outcome")

        // The restart: every request is sent again with its key (as ReconnectingClient does); each plan
        // ends up applied once, and the ones answered before are answered from the journal.
        let second = try await DaemonProcess(arguments: ["--state-dir", state.path], socket: first.socket)
        let retrying = try await ReconnectingClient.connect(path: second.socket, client: "retries")
        var replayed = 0
        for index in 0..<count {
            let result = try await retrying.call("plan.add", Self.plan(index), key: "add-\(index)")
            if result["replayed"] == true { replayed += 1 }
            if case .result(let before)? = outcomes[index] {
                #expect(result["replayed"] == true && result["target"] == before["target"], "\(index): \(result) after \(before)")
            }
        }
        #expect(replayed == results, "every request answered before the stop is answered from the journal")
        await retrying.close()
        #expect(await second.stop() == 0)
        let after = try Self.journaledAdds(state)
        #expect(after.count == count && after.values.allSatisfy { $0 == 1 }, "each plan applied exactly once: \(after.filter { $0.value != 1 }.prefix(5))")
    }

    /// `ReconnectingClient.call(_:_:key:)` across a real stop and start: the calls whose answers the stop
    /// took (connection closed, or `server.shutting_down`) are sent again by the client itself once it is
    /// connected to the new daemon, and every plan is applied exactly once.
    @Test func aReconnectingClientSendsItsKeyedCallsAgainAcrossARestart() async throws {
        let state = try DaemonProcess.temporaryDirectory()
        let config = try DaemonProcess.temporaryDirectory().appendingPathComponent("motiond.json")
        try Data(#"{"quotas": {"enginePercent": 5}}"#.utf8).write(to: config)
        let first = try await DaemonProcess(arguments: ["--state-dir", state.path, "--config", config.path])
        let client = try await ReconnectingClient.connect(path: first.socket, client: "keyed")
        _ = try await client.call("runtime.create", ["name": "kept"])
        let count = 1000
        let answered = Count()
        let pid = first.process.processIdentifier
        Self.stop(pid, afterAnswers: 100, of: answered)
        let calls = Task {
            await Self.burst(count, answered: answered) { index in
                try await client.call("plan.add", Self.plan(index), key: "add-\(index)", timeout: 120)
            }
        }
        _ = await first.process.exitStatus()
        let before = try Self.journaledAdds(state).count
        let second = try await DaemonProcess(arguments: ["--state-dir", state.path], socket: first.socket)
        let outcomes = await calls.value
        let failed = outcomes.filter { if case .result = $0.value { false } else { true } }
        #expect(failed.isEmpty, "every keyed call answered in the end: \(failed.count) not, e.g. \(failed.prefix(3))")
        #expect(before >= 100 && before < count, "the stop came in the middle of the burst: \(before) of \(count) journaled")
        await client.close()
        #expect(await second.stop() == 0)
        let after = try Self.journaledAdds(state)
        #expect(after.count == count && after.values.allSatisfy { $0 == 1 }, "each plan applied exactly once: \(after.filter { $0.value != 1 }.prefix(5))")
    }

    @Test func aRepeatIsAnsweredWithTheFirstResultAndAKeyIsPerUid() async throws {
        let daemon = try await DaemonProcess()
        let client = try await daemon.client()
        let first = try await client.call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 30]], key: "once")
        let again = try await client.call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 30]], key: "once")
        #expect(first == again, "the first result, not a second plan")
        #expect(try await client.call("status")["animations"] == 1)
        // A failed request is not remembered: its retry is tried again.
        await #expect(throws: MotionClientError.self) {
            try await client.call("plan.add", ["target": "b", "plan": ["type": "Nope"]], key: "failed")
        }
        _ = try await client.call("plan.add", ["target": "b", "plan": ["type": "Tween", "property": "x", "to": [1], "duration": 30]], key: "failed")
        #expect(try await client.call("status")["animations"] == 2)
        await client.close()
        await #expect(daemon.stop() == 0)
    }
}
