@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/vocabulary.md#delay-and-stagger: a staggered `plan.add` over 256 targets is applied in slices, the
/// clock ticking and other clients answered between them; the requester's later requests keep their
/// order; into a journaled runtime the changes after it wait for it, so the journal's order is the order
/// in which they took effect.
@Suite("Staggered plan.add in slices")
struct StaggerSlicesTests {
    let requester = RecordingOutput(), other = RecordingOutput()
    let context: EngineContext
    let pump = SlicedWorkTests.Pump()

    init() throws {
        context = try TestContext.greeted(on: requester, plugins: ["SpringPlugin", "SetPlugin"])
        pump.install(on: context)
        context.openSession(2, output: other)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 2)
    }

    func send(_ session: UInt64, _ id: Int, _ method: String, _ params: JSONValue) {
        context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: session)
    }

    func runSlices() -> Int { pump.run(on: context) }

    static let targets: JSONValue = .array((0..<256).map { .string("r\($0)") })
    static let spring: JSONValue = ["type": "Spring", "property": "x", "to": [1000], "tension": 1, "damping": 0.001]

    func replies(_ output: RecordingOutput) -> [JSONValue] { output.lines.filter { $0["id"] != nil && $0["id"] != 0 } }

    @Test func aStaggerOver256TargetsIsAppliedInSlicesWhileOthersAreAnswered() throws {
        send(1, 1, "plan.add", ["targets": Self.targets, "stagger": 0.001, "plan": Self.spring])
        send(1, 2, "sync", [:])
        #expect(replies(requester).isEmpty, "not answered in its first slice")
        let partly = context.engine.runtimes["0/default"]?.targetOrder.count ?? 0
        #expect(partly > 0 && partly < 256, "some targets took it in the first slice: \(partly)")
        send(2, 1, "status", [:])
        #expect(replies(other).last?["id"] == 1, "another client is answered meanwhile")
        let slices = runSlices()
        #expect(slices >= 1)
        let answered = replies(requester)
        #expect(answered.map { $0["id"] } == [1, 2], "answered in order: \(answered.map { $0["id"] })")
        #expect(answered.first?["result"]?["performers"]?.arrayValue?.count == 256, "\(answered.first ?? .null)")
        #expect(context.engine.runtimes["0/default"]?.targetOrder.count == 256)
    }

    /// Its idempotency key is remembered with the answer the last slice gives: the same request again
    /// is answered with it and adds nothing.
    @Test func itsKeyIsRememberedWithTheAnswer() throws {
        let line: (Int) -> [UInt8] = { id in
            JSONWriter.bytes(["id": .number(Double(id)), "method": "plan.add", "key": "entrance-1",
                              "params": ["targets": Self.targets, "stagger": 0.001, "plan": Self.spring]])
        }
        context.receive(line: line(1), from: 1)
        _ = runSlices()
        let first = replies(requester).first { $0["id"] == 1 }?["result"]
        #expect(first?["performers"]?.arrayValue?.count == 256, "\(first ?? .null)")
        let tokens = context.engine.runtimes["0/default"]?.activeTokens
        context.receive(line: line(2), from: 1)
        #expect(runSlices() == 0, "nothing applied again")
        #expect(replies(requester).first { $0["id"] == 2 }?["result"] == first)
        #expect(context.engine.runtimes["0/default"]?.activeTokens == tokens)
    }

    /// A refusal midway (the performers quota) ends it: the targets before keep the plan, the error says how many.
    @Test func aRefusalMidwayKeepsTheTargetsBefore() throws {
        context.settings.quotas.performers = 100
        send(1, 1, "plan.add", ["targets": Self.targets, "stagger": 0.001, "plan": Self.spring])
        _ = runSlices()
        let error = replies(requester).first?["error"]
        #expect(error?["code"] == "quota.exceeded", "\(error ?? .null)")
        #expect(error?["message"]?.stringValue?.hasSuffix("; the 100 targets before it took the plan") == true, "\(error ?? .null)")
        #expect(context.engine.runtimes["0/default"]?.targetOrder.filter { !$0.performers.isEmpty }.count == 100)
    }

    /// Into a journaled runtime: another client's change sent meanwhile waits for it, and the journal
    /// holds them in the order they took effect (the stagger's 256 records, then the other's).
    @Test func intoAJournaledRuntimeTheChangesAfterItWaitForIt() throws {
        let journal = JournalTests.MemoryJournal()
        context.journal.use(journal)
        send(1, 1, "runtime.create", ["name": "work"])
        _ = runSlices()
        send(1, 2, "plan.add", ["runtime": "work", "targets": Self.targets, "stagger": 0.001, "plan": Self.spring])
        send(2, 1, "plan.add", ["runtime": "work", "target": "r0", "plan": ["type": "Set", "property": "y", "value": [5]]])
        #expect(replies(other).isEmpty, "the other client's change waits for the stagger")
        let slices = runSlices()
        #expect(slices >= 2, "\(slices)")
        #expect(replies(requester).last?["result"]?["performers"]?.arrayValue?.count == 256)
        #expect(replies(other).last?["result"]?["performer"] != nil, "\(replies(other))")
        let targets = journal.records.filter { $0["op"] == "add" }.map { $0["target"]?.stringValue ?? "" }
        #expect(targets == (0..<256).map { "r\($0)" } + ["r0"], "\(targets.suffix(3))")
        #expect(context.engine.value(of: "y", target: "r0", runtime: "0/work") == [5])
    }
}
