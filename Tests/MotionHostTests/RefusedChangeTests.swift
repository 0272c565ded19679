@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Synchronization
import Testing

/// A refused change changes nothing (issue #17's rule, for named plans and the journal): a named plan's
/// replacement that its plugin refuses leaves the old plan running, and a journaled change refused after
/// it was written is answered only once its write-off is written.
@Suite("Refused changes")
struct RefusedChangeTests {
    let output = RecordingOutput()
    let context: EngineContext
    var nextID = 0

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["InteractionsPlugin", "TweenPlugin"])
        _ = call("subscribe", ["streams": ["trace"]])
    }

    @discardableResult
    mutating func call(_ method: String, _ params: JSONValue) -> JSONValue {
        nextID += 1
        context.receive(line: JSONWriter.bytes(["id": .number(Double(nextID)), "method": .string(method), "params": params]), from: 1)
        let reply = output.lines.last { $0["id"] == .number(Double(nextID)) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    func x() -> [Double] { context.engine.value(of: "x", target: "card", runtime: "0/default") ?? [] }

    /// The shipped Draggable refuses bounds whose min exceeds their max: a check of its own, past the
    /// schema. Replacing the named Draggable with such a plan used to remove the old one first (the card
    /// stopped following the pointer) and a restart, replaying only what was applied, brought it back.
    @Test mutating func aNamedReplacementItsPluginRefusesLeavesTheOldPlan() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [50], "duration": 0]])
        let drag: JSONValue = ["type": "Draggable", "property": "x", "gesture": "finger", "axis": "x"]
        #expect(call("plan.add", ["target": "card", "name": "drag", "plan": drag])["performer"] != nil)
        let traced = output.lines.count
        var bad = drag
        bad["bounds"] = ["min": [100], "max": [0]]
        let refused = call("plan.add", ["target": "card", "name": "drag", "plan": bad])
        #expect(refused["code"] == "plan.invalid", "\(refused)")
        #expect(refused["message"]?.stringValue?.hasPrefix("bounds:") == true, "the plugin's own reason: \(refused)")
        let events = output.lines[traced...].compactMap { $0["kind"]?.stringValue }
        #expect(events.isEmpty, "nothing traced: not the old plan's removal, nor the scratch performer's creation: \(events)")
        #expect(context.engine.runtimes["0/default"]?.targets["card"]?.named["drag"] != nil, "the old plan keeps its name")
        #expect(context.engine.runtimeNames.allSatisfy { !$0.contains("replacement") }, "no scratch runtime left")
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 1, "position": [0, 0], "phase": "began"],
                                                                  ["t": 1.008, "position": [30, 0], "phase": "moved"]]])
        #expect(x() == [80], "the old Draggable still moves the card: \(x())")

        // An accepted replacement is remove-then-add as ever (docs/protocol.md), with no trace of the check.
        let before = output.lines.count
        var good = drag
        good["bounds"] = ["min": [0], "max": [100]]
        #expect(call("plan.add", ["target": "card", "name": "drag", "plan": good])["performer"] != nil)
        let planEvents = output.lines[before...].compactMap { $0["kind"]?.stringValue }.filter { $0.hasPrefix("plan.") || $0 == "performer.created" }
        #expect(planEvents == ["plan.named.removed", "plan.named.added"], "\(planEvents)")
    }

    /// With the journal written on its own queue (as in the daemon), a refused change's write-off goes
    /// with the next group, behind a change the same connection sent after it: that change is applied
    /// first, and its reply used to go out first too. Replies keep their order: the later one waits for
    /// the refusal's place in line.
    @Test func aRefusalAnsweredAfterItsWriteOffKeepsItsPlaceBeforeLaterReplies() throws {
        final class Queues: @unchecked Sendable {
            let saves = Mutex<[@Sendable () -> Void]>([])
            let engine = Mutex<[@Sendable (EngineContext) -> Void]>([])
            /// Runs what is queued, writes and their continuations, until nothing is.
            func drain(_ context: EngineContext) {
                while true {
                    if let work = saves.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { work(); continue }
                    if let body = engine.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { body(context); continue }
                    return
                }
            }
        }
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output)
        let queues = Queues()
        context.journal.use(JournalTests.MemoryJournal())
        context.hooks.offload = { work in queues.saves.withLock { $0.append(work) } }
        context.hooks.onEngineThread = { body in queues.engine.withLock { $0.append(body) } }
        context.hooks.onEngineThreadFor = { _, _, body in queues.engine.withLock { $0.append(body) } }
        func send(_ id: Int, _ method: String, _ params: JSONValue) {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        }
        send(1, "runtime.create", ["name": "work"])
        queues.drain(context)
        send(2, "plan.add", ["runtime": "work", "target": "b", "plan": ["type": "Emit", "plan": "{"]])
        send(3, "plan.add", ["runtime": "work", "target": "c", "plan": ["type": "Frames", "frames": 10]])
        send(4, "status", [:])
        queues.drain(context)
        let replies = output.lines.compactMap { $0["id"]?.doubleValue }.filter { $0 > 0 }
        #expect(replies == [1, 2, 3, 4], "in the order asked: \(replies)")
        #expect(output.lines.first { $0["id"] == 2 }?["error"]?["code"] == "plan.invalid")
        #expect(output.lines.first { $0["id"] == 3 }?["result"]?["performer"] != nil)
        #expect(context.engine.runtimes["0/work"]?.targets["c"] != nil)
    }

    /// A write-off that a full disk kept out (the plan's own line fitted, its write-off did not) used
    /// to be lost: the next start replayed the refused plan. It now goes with the next write, or is
    /// written at a graceful stop.
    @Test func aWriteOffThatCouldNotBeWrittenGoesWithTheNextWriteOrAtTheStop() throws {
        final class FillingJournal: JournalStorage, @unchecked Sendable {
            let inner = JournalTests.MemoryJournal()
            /// Appends that still fit; nil: all do.
            let room = Mutex<Int?>(nil)
            func append(_ lines: [UInt8]) throws(EngineError) {
                let full = room.withLock { room -> Bool in
                    guard let left = room else { return false }
                    if left == 0 { return true }
                    room = left - 1
                    return false
                }
                if full { throw EngineError(.stateWriteFailed, "the runtime journal could not be written: no space left on device") }
                try inner.append(lines)
            }
            func rewrite(_ lines: [UInt8]) throws(EngineError) { try inner.rewrite(lines) }
            func load() -> (records: [JSONValue], problems: [String]) { inner.load() }
            var size: Int { inner.size }
            var ops: [String] { inner.records.map { $0["op"]?.stringValue ?? "" } }
        }
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output)
        let journal = FillingJournal()
        context.journal.use(journal)
        func send(_ id: Int, _ method: String, _ params: JSONValue) -> JSONValue? {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
            return output.lines.last { $0["id"] == .number(Double(id)) }
        }
        _ = send(1, "runtime.create", ["name": "work"])
        journal.room.withLock { $0 = 1 }
        #expect(send(2, "plan.add", ["runtime": "work", "target": "b", "plan": ["type": "Emit", "plan": "{"]])?["error"]?["code"] == "plan.invalid")
        #expect(journal.ops == ["create", "add"], "its write-off did not fit")
        journal.room.withLock { $0 = nil }
        _ = send(3, "runtime.create", ["name": "next"])
        #expect(journal.ops == ["create", "add", "refused", "create"], "written off with the next write, first")

        journal.room.withLock { $0 = 1 }
        _ = send(4, "plan.add", ["runtime": "work", "target": "c", "plan": ["type": "Emit", "plan": "{"]])
        #expect(journal.ops.last == "add")
        journal.room.withLock { $0 = nil }
        _ = context.closeAllSessions(reason: "stopping")
        #expect(journal.ops.suffix(2) == ["add", "refused"], "written at a graceful stop: \(journal.ops)")
        let restored = TestContext.forJournal()
        #expect(restored.journal.restoreRuntimes(from: journal, now: SystemClock.shared.wallNow() + 1).problems.isEmpty)
        #expect(restored.engine.runtimes["0/work"]?.targets.isEmpty == true, "neither refused plan comes back")
    }

    /// A journaled plan refused after it was written (its plugin checks more than the schema) is written
    /// off in the journal. The refusal used to be answered first and the write-off appended after it,
    /// unsynced: a `kill -9` right after the answer replayed the refused plan at the next start. Now the
    /// answer waits for the write-off, and the connection's next request waits for the answer.
    @Test func aRefusalOfAWrittenChangeIsAnsweredOnceItsWriteOffIsWritten() throws {
        final class WatchedJournal: JournalStorage, @unchecked Sendable {
            let inner = JournalTests.MemoryJournal()
            let output: RecordingOutput
            /// For each append: whether it held a write-off, and the replies sent before it.
            let appends = Mutex<[(refused: Bool, repliesBefore: [JSONValue])]>([])
            init(output: RecordingOutput) { self.output = output }
            func append(_ lines: [UInt8]) throws(EngineError) {
                let refused = String(decoding: lines, as: UTF8.self).contains(#""op":"refused""#)
                let replies = output.lines.compactMap { $0["id"] }
                appends.withLock { $0.append((refused, replies)) }
                try inner.append(lines)
            }
            func rewrite(_ lines: [UInt8]) throws(EngineError) { try inner.rewrite(lines) }
            func load() -> (records: [JSONValue], problems: [String]) { inner.load() }
            var size: Int { inner.size }
        }
        let output = RecordingOutput()
        let context = try TestContext.greeted(on: output)
        let journal = WatchedJournal(output: output)
        context.journal.use(journal)
        func send(_ id: Int, _ method: String, _ params: JSONValue) {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: 1)
        }
        send(1, "runtime.create", ["name": "work"])
        send(2, "plan.add", ["runtime": "work", "target": "b", "plan": ["type": "Emit", "plan": "{"]])
        send(3, "status", [:])
        let writeOff = try #require(journal.appends.withLock { $0.first { $0.refused } })
        #expect(!writeOff.repliesBefore.contains(2), "the refusal is answered after its write-off is written: \(writeOff.repliesBefore)")
        let replies = output.lines.compactMap { $0["id"]?.doubleValue }.filter { $0 > 0 }
        #expect(replies == [1, 2, 3], "replies keep their order: \(replies)")
        #expect(output.lines.first { $0["id"] == 2 }?["error"]?["code"] == "plan.invalid")
    }
}
