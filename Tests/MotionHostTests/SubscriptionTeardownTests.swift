import Logging
@testable import MotionEngine
import MotionWire
import Testing

/// docs/protocol.md#ownership-and-quotas: what a leaving connection held is taken down off the frame
/// clock's deadline. Its filtered subscriptions with many targets leave the filter index a slice at a
/// time between frames (16 of 4,096 targets taken out at once held every uid's frames ~55 ms), and
/// another uid's frames go on meanwhile.
@Suite("Subscription teardown")
struct SubscriptionTeardownTests {
    @Test func aClosedConnectionsLargeFiltersLeaveInSlicesAndOthersFramesGoOn() throws {
        let context = EngineContext(engine: try EngineHarness().engine, settings: EngineSettings(), logger: Logger(label: "test"),
                                    clock: ManualClock())
        let attacker = RecordingOutput(), victim = RecordingOutput()
        for (id, uid, output) in [(UInt64(1), UInt32(65534), attacker), (2, 1000, victim)] {
            context.openSession(id, output: output, peer: PeerCredentials(uid: uid, gid: uid, pid: 1))
            context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: id)
        }
        func call(_ session: UInt64, _ output: RecordingOutput, _ id: Int, _ method: String, _ params: JSONValue) -> JSONValue {
            context.receive(line: JSONWriter.bytes(["id": .number(Double(id)), "method": .string(method), "params": params]), from: session)
            let reply = output.lines.last { $0["id"] == .number(Double(id)) }
            return reply?["result"] ?? reply?["error"] ?? .null
        }
        // The victim's own moving property, and the attacker's 16 filters of 4,096 targets (its own among them).
        #expect(call(2, victim, 1, "subscribe", ["streams": ["frames"], "targets": ["card"]])["sub"] != nil)
        #expect(call(2, victim, 2, "plan.add", ["target": "card", "plan": ["type": "Frames", "frames": 100_000]])["performer"] != nil)
        #expect(call(1, attacker, 1, "plan.add", ["target": "t0-0", "plan": ["type": "Frames", "frames": 100_000]])["performer"] != nil)
        for index in 0..<16 {
            let targets = JSONValue.array((0..<4096).map { .string("t\(index)-\($0)") })
            #expect(call(1, attacker, 10 + index, "subscribe", ["streams": ["frames"], "targets": targets])["sub"] != nil)
        }
        context.tick(dt: 1.0 / 120)
        #expect(attacker.lines.contains { $0["event"] == "frame" }, "the attacker's filter saw its own target")
        context.closeSession(1)
        #expect(context.hub.hasRemovals && context.wantsTicks, "taken out later, and the clock ticks for it")
        // Until they have left, their names count against the uid's quota: closing connections faster than
        // their filters leave cannot pile them up.
        let observer = RecordingOutput()
        context.openSession(3, output: observer, peer: PeerCredentials(uid: 65534, gid: 65534, pid: 1))
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 3)
        #expect(call(3, observer, 1, "subscribe", ["streams": ["frames"], "targets": ["t0-0"]])["code"] == "quota.exceeded")
        var ticks = 0, framesMeanwhile = 0
        while context.hub.hasRemovals, ticks < 100_000 {
            let before = victim.lines.count
            context.tick(dt: 1.0 / 120)
            framesMeanwhile += victim.lines[before...].filter { $0["event"] == "frame" }.count
            ticks += 1
        }
        #expect(!context.hub.hasRemovals, "all taken out after \(ticks) ticks")
        #expect(framesMeanwhile == ticks, "the victim's frame at every tick meanwhile: \(framesMeanwhile) of \(ticks)")
        // The index is as if the attacker had never been: a new filter on one of its names starts afresh.
        #expect(call(3, observer, 2, "subscribe", ["streams": ["frames"], "targets": ["t0-0"]])["sub"] != nil)
        context.tick(dt: 1.0 / 120)
        #expect(observer.lines.contains { $0["event"] == "frame" }, "its property still moves, and a new filter sees it")
    }
}
