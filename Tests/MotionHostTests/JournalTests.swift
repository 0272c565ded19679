import Logging
@testable import MotionEngine
import MotionWire
import Synchronization
import Testing

/// docs/operations.md#animations-survive-a-restart: changes to lasting runtimes are journaled before they are applied, and a restart replays
/// them to the present. In-process, with an in-memory journal whose writes can be made to fail.
extension TestContext {
    /// An in-process context to restore a journal into.
    static func forJournal() -> EngineContext {
        try! TestContext.greeted(on: RecordingOutput())
    }
}

@Suite("Runtime journal")
struct JournalTests {
    final class MemoryJournal: JournalStorage, @unchecked Sendable {
        let state = Mutex<(lines: [UInt8], failing: Bool, appends: Int, rewrites: Int)>(([], false, 0, 0))
        func append(_ lines: [UInt8]) throws(EngineError) {
            let failing = state.withLock { $0.failing }
            if failing { throw EngineError(.stateWriteFailed, "the runtime journal could not be written: no space left on device") }
            state.withLock {
                $0.lines += lines
                $0.appends += 1
            }
        }
        func rewrite(_ lines: [UInt8]) throws(EngineError) {
            state.withLock {
                $0.lines = lines
                $0.rewrites += 1
            }
        }
        func load() -> (records: [JSONValue], problems: [String]) {
            let lines = state.withLock { $0.lines }
            return (lines.split(separator: UInt8(ascii: "\n")).map { try! JSONValue.parse(Array($0)) }, [])
        }
        var size: Int { state.withLock { $0.lines.count } }
        var records: [JSONValue] { load().records }
    }

    static func context(journal: MemoryJournal, now: Double? = nil) throws -> (EngineContext, RecordingOutput) {
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output)
        if let now { _ = context.journal.restoreRuntimes(from: journal, now: now) } else { context.journal.use(journal) }
        return (context, output)
    }

    func call(_ context: EngineContext, _ output: RecordingOutput, _ id: Int, _ method: String, _ params: JSONValue) -> JSONValue {
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        let reply = output.lines.last { $0["id"] == .number(Double(id)) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    @Test func lastingRuntimesAreJournaledAndEphemeralOnesAreNot() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        _ = call(context, output, 2, "runtime.create", ["name": "scratch", "ephemeral": true])
        _ = call(context, output, 3, "plan.add", ["runtime": "work", "target": "a", "plan": ["type": "Frames", "frames": 10]])
        _ = call(context, output, 4, "plan.add", ["runtime": "scratch", "target": "a", "plan": ["type": "Frames", "frames": 10]])
        _ = call(context, output, 5, "plan.add", ["target": "b", "name": "n", "plan": ["type": "Frames", "frames": 10]])
        _ = call(context, output, 6, "plan.remove", ["target": "b", "name": "n"])
        #expect(journal.records.map { "\($0["op"]?.stringValue ?? "") \($0["runtime"]?.stringValue ?? "")" }
            == ["create 0/work", "add 0/work", "add 0/default", "remove 0/default"])
        #expect(call(context, output, 7, "plan.add", ["runtime": "work", "target": "a", "plan": ["type": "Frames", "framez": 3]])["code"]
            == "plan.invalid", "a plan that would be refused is never journaled")
        #expect(journal.records.count == 4)
    }

    /// A plan that its plugin refuses after the host's schema passed it (here: Emit of text that is not a
    /// plan) was written before it was applied. It is not kept (the next rewrite drops it) and it is
    /// written off. Not rewritten at once (a refused request is cheap to send, a rewrite of the whole
    /// journal is not): the next start skips it and rewrites the journal without it.
    @Test func aPlanThatItsPluginRefusesLeavesTheJournal() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        _ = call(context, output, 2, "plan.add", ["runtime": "work", "target": "a", "plan": ["type": "Frames", "frames": 1000]])
        #expect(call(context, output, 3, "plan.add", ["runtime": "work", "target": "b", "plan": ["type": "Emit", "plan": "{"]])["code"]
            == "plan.invalid")
        #expect(journal.state.withLock { $0.rewrites } == 0, "no rewrite for a refused request")
        let now = (journal.records.last?["t"]?.doubleValue ?? 0) + 1
        let first = TestContext.forJournal()
        #expect(journal.records.last?["op"] == "refused", "\(journal.records)")
        let (_, _, problems) = first.journal.restoreRuntimes(from: journal, now: now)
        #expect(problems.isEmpty, "not replayed, so not refused again: \(problems)")
        #expect(journal.records.map { "\($0["op"]?.stringValue ?? "") \($0["target"]?.stringValue ?? "")" } == ["create ", "add a"],
                "rewritten at the start without it")
        let second = TestContext.forJournal()
        #expect(second.journal.restoreRuntimes(from: journal, now: now).problems.isEmpty)
        #expect(second.engine.isActive(runtime: "0/work"), "the accepted plan is still replayed")
    }

    /// Issue #16's attacker, smaller: a uid journals 100 plans of 50 KB into a moving runtime. What it
    /// keeps stays within its `journalBytes`, the journal within the compaction bound, and the journal is
    /// rewritten a few times, not at every write once it passed 4 MiB (each rewrite had every later write
    /// wait: 4.5 s per plan.add at 566 MB).
    @Test func aUidsJournalStaysWithinItsBytesAndIsNotRewrittenAtEveryWrite() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        context.settings.quotas.journalBytes = 1 << 20
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        let padded = #"{"type":"Frames","frames":100000}"# + String(repeating: " ", count: 50_000)
        for index in 0..<100 {
            let reply = call(context, output, 10 + index, "plan.add", ["runtime": "work", "target": .string("t\(index)"),
                                                                      "plan": ["type": "Emit", "plan": .string(padded)]])
            #expect(reply["performer"] != nil, "\(reply)")
        }
        #expect((context.journal.kept.ownerBytes[0] ?? 0) <= 1 << 20, "\(context.journal.kept.ownerBytes)")
        #expect(journal.size <= (4 << 20) + (64 << 10), "\(journal.size)")
        let rewrites = journal.state.withLock { $0.rewrites }
        #expect(rewrites >= 1 && rewrites <= 3, "\(rewrites) rewrites")
        let (restarted, _) = try Self.context(journal: journal, now: (journal.records.last?["t"]?.doubleValue ?? 0) + 1)
        #expect(restarted.engine.isActive(runtime: "0/work"), "the newest plans are replayed")
    }

    /// Past `journalBytes` the uid's runtimes at rest are first kept as their values (nothing lost); only
    /// then do its oldest records go (docs/operations.md#animations-survive-a-restart). The resting
    /// runtime's records are the older ones: dropped oldest-first without the compaction, they went first.
    @Test func aUidPastItsBytesCompactsItsRuntimesAtRestBeforeDropping() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        context.settings.quotas.journalBytes = 64 << 10
        _ = call(context, output, 1, "runtime.create", ["name": "rest"])
        _ = call(context, output, 2, "runtime.create", ["name": "moving"])
        let padding = String(repeating: " ", count: 1000)
        for index in 0..<30 {
            _ = call(context, output, 10 + index, "plan.add", ["runtime": "rest", "target": .string("r\(index)"),
                                                              "plan": ["type": "Emit", "plan": .string(#"{"type":"InstantlyInactive"}"# + padding)]])
        }
        #expect(!context.engine.isActive(runtime: "0/rest"))
        for index in 0..<40 {
            let reply = call(context, output, 100 + index, "plan.add", ["runtime": "moving", "target": .string("m\(index)"),
                                                                        "plan": ["type": "Emit", "plan": .string(#"{"type":"Frames","frames":100000}"# + padding)]])
            #expect(reply["performer"] != nil, "\(reply)")
        }
        let kept = Dictionary(uniqueKeysWithValues: context.journal.kept.all.map { ($0.runtime, $0.kept) })
        #expect(kept["0/rest"]?.count == 2, "the resting runtime kept as its creation and values: \(kept["0/rest"]?.count ?? 0)")
        #expect(kept["0/moving"]?.count == 41, "every record of the moving runtime kept: \(kept["0/moving"]?.count ?? 0)")
        #expect((context.journal.kept.ownerBytes[0] ?? 0) <= 64 << 10, "\(context.journal.kept.ownerBytes)")
    }

    @Test func aFailedWriteChangesNothing() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        journal.state.withLock { $0.failing = true }
        #expect(call(context, output, 1, "runtime.create", ["name": "work"])["code"] == "state.write_failed")
        #expect(call(context, output, 2, "plan.add", ["target": "a", "plan": ["type": "ChangeBoolean", "value": true]])["code"] == "state.write_failed")
        #expect(call(context, output, 3, "runtime.state", ["runtime": "work"])["code"] == "runtime.not_found")
        #expect(call(context, output, 4, "runtime.state", [:])["targets"] == [:], "no plan was applied")
        journal.state.withLock { $0.failing = false }
        #expect(call(context, output, 5, "plan.add", ["target": "a", "plan": ["type": "ChangeBoolean", "value": true]])["performer"] != nil)
    }

    /// A change refused after it was written (a quota, a plugin's own check) is written off in the journal:
    /// no start replays it, though a start restores without quotas (one brought back a plan its client had
    /// been told was refused). A staggered plan.add refused at one target keeps the targets before it, in
    /// memory and in the journal alike, and says so.
    @Test func aChangeRefusedAfterItWasWrittenIsNeverReplayed() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        context.settings.quotas.performers = 2
        let frames: JSONValue = ["type": "Frames", "frames": 1000]
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        #expect(call(context, output, 2, "plan.add", ["runtime": "work", "target": "a", "plan": frames])["performer"] != nil)
        #expect(call(context, output, 3, "plan.add", ["runtime": "work", "target": "b", "plan": frames])["performer"] != nil)
        #expect(call(context, output, 4, "plan.add", ["runtime": "work", "target": "c", "plan": frames])["code"] == "quota.exceeded")
        context.settings.quotas.performers = 3
        let partial = call(context, output, 5, "plan.add", ["runtime": "work", "targets": ["d", "e", "f"], "plan": frames])
        #expect(partial["code"] == "quota.exceeded")
        #expect(partial["message"]?.stringValue?.hasPrefix("targets[1]: ") == true, "\(partial)")
        #expect(partial["message"]?.stringValue?.hasSuffix("; the 1 target before it took the plan") == true, "\(partial)")
        let live = { (context: EngineContext) in
            context.engine.runtimes["0/work"]?.targetOrder.filter { !$0.performers.isEmpty }.map(\.name).sorted() ?? []
        }
        #expect(live(context) == ["a", "b", "d"])
        let now = (journal.records.last?["t"]?.doubleValue ?? 0) + 0.1
        let first = TestContext.forJournal()
        let restored = first.journal.restoreRuntimes(from: journal, now: now)
        #expect(restored.problems.isEmpty, "\(restored.problems)")
        #expect(live(first) == ["a", "b", "d"], "the refused ones are not replayed")
        #expect(journal.records.allSatisfy { $0["op"] != "refused" && !["c", "e", "f"].contains($0["target"]) },
                "rewritten at the start without them: \(journal.records)")
        let second = TestContext.forJournal()
        _ = second.journal.restoreRuntimes(from: journal, now: now)
        #expect(live(second) == ["a", "b", "d"])
    }

    /// A change written but never applied (the daemon stopped or crashed between the write and the apply:
    /// a flood of plans past the quota, stopped at the right moment, came back as 261–893 performers on a
    /// quota of 3) is replayed within its uid's quotas, as when it was asked.
    @Test func aStartReplaysWithinTheQuotas() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        context.settings.quotas.performers = 2
        let frames: JSONValue = ["type": "Frames", "frames": 1000]
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        _ = call(context, output, 2, "plan.add", ["runtime": "work", "target": "a", "plan": frames])
        _ = call(context, output, 3, "plan.add", ["runtime": "work", "target": "b", "plan": frames])
        let now = (journal.records.last?["t"]?.doubleValue ?? 0) + 0.1
        // Written, then the process ended before it was applied: no answer, no write-off.
        try journal.append(JournalRecord.add(runtime: "0/work", target: "c", plan: frames, name: nil, t: now - 0.05).line)
        let restarted = TestContext.forJournal()
        restarted.settings.quotas.performers = 2
        let restored = restarted.journal.restoreRuntimes(from: journal, now: now)
        let live = restarted.engine.runtimes["0/work"]?.targetOrder.filter { !$0.performers.isEmpty }.map(\.name).sorted()
        #expect(live == ["a", "b"], "\(String(describing: live))")
        #expect(restored.problems.contains { $0.contains("quota performers") }, "\(restored.problems)")
    }

    /// A plan added 1.5 s before the restart is exactly where it would have been (docs/operations.md#animations-survive-a-restart).
    @Test func aRestartReplaysToThePresent() throws {
        let journal = MemoryJournal()
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output, plugins: ["TweenPlugin"])
        context.journal.use(journal)
        let tween = { (duration: Double) -> JSONValue in
            ["type": "Tween", "property": "x", "from": [0], "to": [1000], "duration": .number(duration), "timing": "linear"]
        }
        _ = call(context, output, 1, "runtime.create", ["name": "work", "shared": true])
        _ = call(context, output, 2, "plan.add", ["runtime": "work", "target": "a", "plan": tween(10)])
        _ = call(context, output, 3, "plan.add", ["runtime": "work", "target": "done", "plan": tween(0.1)])
        let added = try #require(journal.records.last { $0["target"] == "a" }?["t"]?.doubleValue)
        let restarted = try TestContext.greeted(on: RecordingOutput(), plugins: ["TweenPlugin"])
        #expect(restarted.journal.restoreRuntimes(from: journal, now: added + 1.5).problems.isEmpty)
        let a = try #require(restarted.engine.value(of: "x", target: "a", runtime: "0/work")?[0])
        #expect(abs(a - 150) < 1e-6, "1.5 s of 10: \(a)")
        #expect(restarted.engine.value(of: "x", target: "done", runtime: "0/work") == [1000], "a finished plan stays finished")
        #expect(restarted.engine.isActive(runtime: "0/work"))
        #expect(restarted.hub.sharedRuntimes.contains("0/work"), "still shared")
    }

    /// A moving runtime keeps every record its replay needs through a compaction (it kept its newest 1,000:
    /// 25,000 acknowledged springs came back as 2,663).
    @Test func compactionKeepsEveryRecordOfAMovingRuntime() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        for index in 0..<3_000 {
            _ = call(context, output, 10 + index, "plan.add", ["runtime": "work", "target": .string("t\(index)"), "plan": ["type": "Frames", "frames": 100_000]])
        }
        context.journal.compactForTesting()
        #expect(journal.records.count == 3_001, "the creation and every plan: \(journal.records.count)")
        let (restarted, _) = try Self.context(journal: journal, now: (journal.records.last?["t"]?.doubleValue ?? 0) + 1)
        #expect(restarted.engine.timelines.properties(ofRuntime: "0/work").count == 3_000)
    }

    @Test func compactionKeepsRestingRuntimesAsTheirValues() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        for index in 0..<20 {
            _ = call(context, output, 10 + index, "plan.add", ["runtime": "work", "target": "a", "plan": ["type": "ChangeBoolean", "value": .bool(index % 2 == 0)]])
        }
        _ = call(context, output, 99, "plan.add", ["target": "d", "plan": ["type": "ChangeBoolean", "value": true]])
        context.journal.compactForTesting()
        #expect(journal.records.map { "\($0["op"]?.stringValue ?? "") \($0["runtime"]?.stringValue ?? "")" }
            == ["create 0/default", "values 0/default", "create 0/work", "values 0/work"], "a uid's default is kept too")
        // Replayed without a problem (the kept `create 0/default` met the `default` its uid's hello made, was
        // refused as "exists", and every later start logged it and rewrote the journal).
        let rewrites = journal.state.withLock { $0.rewrites }
        let restarted = try TestContext.greeted(on: RecordingOutput())
        let outcome = restarted.journal.restoreRuntimes(from: journal, now: (journal.records.last?["t"]?.doubleValue ?? 0) + 10)
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        #expect(journal.state.withLock { $0.rewrites } == rewrites, "not rewritten at the start")
        #expect(restarted.engine.value(of: "boolean", target: "a", runtime: "0/work") == [0])
        #expect(restarted.engine.value(of: "boolean", target: "d", runtime: "0/default") == [1])
    }

    /// docs/protocol.md#idempotency-keys, across a restart: the keys of records a compaction replaces by a
    /// runtime's values go into that values record (through a second compaction too), and a retry after
    /// the restart is answered `replayed` without being applied again. (They were forgotten: a retry of a
    /// keyed `plan.add` after a compaction and a restart applied it a second time.)
    @Test func compactionKeepsTheKeysOfTheRecordsItReplaces() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        func keyed(_ context: EngineContext, _ output: RecordingOutput, _ id: Int, _ key: String, _ method: String, _ params: JSONValue) -> JSONValue? {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "key": .string(key), "params": params]), from: 1)
            return output.lines.last { $0["id"] == .number(Double(id)) }
        }
        _ = call(context, output, 1, "runtime.create", ["name": "work"])
        let add: JSONValue = ["runtime": "work", "target": "a", "plan": ["type": "ChangeBoolean", "value": true]]
        let first = keyed(context, output, 2, "add-a", "plan.add", add)?["result"]
        #expect(first?["performer"] != nil, "\(first ?? .null)")
        _ = call(context, output, 6, "plan.add", ["runtime": "work", "target": "b", "name": "n", "plan": ["type": "ChangeBoolean", "value": true]])
        let remove: JSONValue = ["runtime": "work", "target": "b", "name": "n"]
        #expect(keyed(context, output, 7, "remove-n", "plan.remove", remove)?["result"]?["removed"] == true)
        context.journal.compactForTesting()
        context.journal.compactForTesting()
        let values = journal.records.first { $0["op"] == "values" && $0["runtime"] == "0/work" }
        #expect(values?["keys"]?.arrayValue?.first?["key"] == "add-a", "\(journal.records)")

        let time = journal.records.last?["t"]?.doubleValue ?? 0
        let (restarted, again) = try Self.context(journal: journal, now: time + 10)
        _ = call(restarted, again, 3, "plan.add", ["runtime": "work", "target": "a", "plan": ["type": "ChangeBoolean", "value": false]])
        let retry = keyed(restarted, again, 4, "add-a", "plan.add", add)
        #expect(retry?["result"]?["replayed"] == true && retry?["result"]?["target"] == "a" && retry?["result"]?["performer"] == first?["performer"],
                "answered as the first time, replayed: \(retry ?? .null)")
        let removedAgain = keyed(restarted, again, 8, "remove-n", "plan.remove", remove)?["result"]
        #expect(removedAgain?["removed"] == true && removedAgain?["replayed"] == true, "\(removedAgain ?? .null)")
        #expect(restarted.engine.value(of: "boolean", target: "a", runtime: "0/work") == [0], "not applied again")

        // Past its 10 minutes the key is gone: the same request is a new one.
        let (late, lateOutput) = try Self.context(journal: journal, now: time + IdempotencyKeys.lifetime + 10)
        #expect(keyed(late, lateOutput, 5, "add-a", "plan.add", add)?["result"]?["replayed"] == nil)
    }

    /// A context whose journal completions wait in `pump` (as if written on another thread) until run.
    static func pumped() throws -> (MemoryJournal, EngineContext, RecordingOutput, SlicedWorkTests.Pump) {
        let journal = MemoryJournal()
        let (context, output) = try context(journal: journal)
        let pump = SlicedWorkTests.Pump()
        context.hooks.offload = { work in work() }
        context.hooks.onEngineThread = { body in pump.queue.withLock { $0.append(body) } }
        return (journal, context, output, pump)
    }

    /// With the journal written on another thread: a runtime created and used at once, an error among
    /// queued changes, and a request behind a sliced dry run are all answered, in order.
    @Test func queuedRequestsAreAnsweredInOrderWhileTheJournalIsWritten() throws {
        let (journal, context, output, pump) = try Self.pumped()
        func send(_ id: Int, _ method: String, _ params: JSONValue) {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        }
        send(1, "runtime.create", ["name": "a"])
        send(2, "plan.add", ["runtime": "a", "target": "t", "plan": ["type": "ChangeBoolean", "value": true]])
        send(3, "plan.add", ["runtime": "a", "target": "t", "plan": ["type": "Nope"]])
        send(4, "runtime.state", ["runtime": "a"])
        let times: JSONValue = .array((0..<10_000).map { .number(Double($0) * 0.06) })
        send(5, "plan.sample", ["plan": ["type": "Frames", "frames": 100_000, "property": "frames"], "times": times])
        send(6, "plan.add", ["runtime": "a", "target": "u", "plan": ["type": "ChangeBoolean", "value": true]])
        send(7, "runtime.state", ["runtime": "a"])
        var rounds = 0
        while let body = pump.next(), rounds < 10_000 {
            context.tick(dt: 1.0 / 120)
            body(context)
            rounds += 1
        }
        let replies = output.lines.filter { ($0["id"]?.doubleValue ?? 0) > 0 }
        #expect(replies.map { $0["id"]?.doubleValue ?? 0 } == [1, 2, 3, 4, 5, 6, 7], "\(replies.map { $0["id"] ?? .null })")
        #expect(replies[1]["result"]?["performer"] != nil, "a runtime created by the request before is usable at once")
        #expect(replies[2]["error"]?["code"] == "plan.unknown_type")
        #expect(replies[3]["result"]?["targets"]?["t"] != nil)
        #expect(replies[6]["result"]?["targets"]?["u"] != nil)
        #expect(journal.records.count == 3, "the create and two adds (not the refused plan, nor the sample): \(journal.records.count)")
    }

    /// A keyed change sent again on its connection before its answer came (docs/protocol.md#idempotency-keys):
    /// answered after the first, with the first's result (it was `request.pending`, answered ahead of it).
    @Test func aKeyedRepeatBehindItsFirstIsAnsweredAfterItWithItsResult() throws {
        let (journal, context, output, pump) = try Self.pumped()
        func send(_ id: Int, _ method: String, _ params: JSONValue, key: String? = nil) {
            var request: JSONValue = ["id": .number(Double(id)), "method": .string(method), "params": params]
            if let key { request["key"] = .string(key) }
            context.receive(line: JSONWriter.bytes(request), from: 1)
        }
        send(1, "runtime.create", ["name": "a"])
        let add: JSONValue = ["runtime": "a", "target": "t", "plan": ["type": "ChangeBoolean", "value": true]]
        send(2, "plan.add", add, key: "once")
        send(3, "plan.add", add, key: "once")
        send(4, "plan.add", ["runtime": "a", "target": "u", "plan": ["type": "ChangeBoolean", "value": true]], key: "once")
        var rounds = 0
        while let body = pump.next(), rounds < 10_000 {
            body(context)
            rounds += 1
        }
        let replies = output.lines.filter { ($0["id"]?.doubleValue ?? 0) > 0 }
        #expect(replies.map { $0["id"]?.doubleValue ?? 0 } == [1, 2, 3, 4], "\(replies)")
        #expect(replies.count == 4 && replies[2]["result"] == replies[1]["result"] && replies[1]["result"]?["performer"] != nil, "\(replies)")
        #expect(replies.count == 4 && replies[3]["error"]?["code"] == "request.invalid", "another request under the key: \(replies)")
        #expect(journal.records.count == 2, "the create and one add: \(journal.records.map { $0["op"] ?? .null })")
    }

    /// A journal group (all that arrived during one sync) is applied a slice of about a millisecond at a
    /// time (a staggered change too, inside it), each next slice queued in the lane of the uid whose entry comes next (applied whole, in the
    /// daemon's own lane, one uid's flood made every other uid wait for it); the replies keep their order.
    @Test func aLargeGroupIsAppliedInSlicesThatTakeTurns() throws {
        let journal = MemoryJournal()
        let (context, output) = try Self.context(journal: journal)
        let writes = SlicedWorkTests.Pump(), applies = SlicedWorkTests.Pump()
        let turns = Mutex(0)
        context.hooks.offload = { work in writes.queue.withLock { $0.append({ _ in work() }) } }
        context.hooks.onEngineThread = { body in applies.queue.withLock { $0.append(body) } }
        context.hooks.onEngineThreadFor = { _, _, body in
            turns.withLock { $0 += 1 }
            applies.queue.withLock { $0.append(body) }
        }
        func send(_ id: Int, _ method: String, _ params: JSONValue) {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        }
        send(1, "runtime.create", ["name": "work"])
        let targets = JSONValue.array((0..<256).map { .string("t\($0)") })
        for id in 2...41 {
            send(id, "plan.add", ["runtime": "work", "targets": targets, "plan": ["type": "ChangeBoolean", "value": .bool(id % 2 == 0)]])
        }
        func replies() -> [Double] { output.lines.compactMap { $0["id"]?.doubleValue }.filter { $0 > 0 } }
        writes.next()?(context)      // the create's group
        applies.next()?(context)
        #expect(replies() == [1])
        writes.next()?(context)      // the 40 plan.adds', one group
        applies.next()?(context)     // its first slice
        // A staggered change is itself applied in slices (`StaggerWork`): the first slice may end inside one.
        let first = replies().count - 1
        #expect(first < 40, "\(first) of 40 in the first slice")
        #expect(context.engine.runtimes["0/work"]?.targetOrder.isEmpty == false, "the first slice applied some")
        #expect(turns.withLock { $0 } == 1, "the next slice waits in the uid's lane")
        while let body = applies.next() { body(context) }
        #expect(replies() == (1...41).map(Double.init))
        #expect(journal.records.count == 1 + 40 * 256)
    }
}
