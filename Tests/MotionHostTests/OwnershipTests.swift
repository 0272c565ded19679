import Glibc
import Logging
@testable import MotionEngine
import MotionWire
import Synchronization
import Testing

/// docs/protocol.md#ownership-and-quotas in an in-process context: sessions of uid 1000 and 1001 (clients) and of root (admin).
@Suite("Ownership and quotas")
struct OwnershipTests {
    let context: EngineContext
    let alice = RecordingOutput(), bob = RecordingOutput(), admin = RecordingOutput()
    var nextID = 0

    /// The engine's time, moved by hand: nothing here waits for the wall clock.
    let clock = ManualClock()

    init(quotas: Quotas = Quotas()) throws {
        let harness = try EngineHarness()
        var settings = EngineSettings()
        settings.quotas = quotas
        context = EngineContext(engine: harness.engine, settings: settings, logger: Logger(label: "test"), clock: clock)
        for (id, output, uid, role) in [(1, alice, 1000, Role.client), (2, bob, 1001, .client), (3, admin, 0, .admin)] {
            context.openSession(UInt64(id), output: output, peer: PeerCredentials(uid: UInt32(uid), gid: UInt32(uid), pid: 1),
                                role: role)
            context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: UInt64(id))
        }
    }

    /// The reply's result, or its error object.
    mutating func call(_ session: UInt64, _ method: String, _ params: JSONValue = [:]) -> JSONValue {
        nextID += 1
        let output = [alice, bob, admin][Int(session) - 1]
        let line = JSONWriter.bytes(["id": .number(Double(nextID)), "method": .string(method), "params": params])
        context.receive(line: line, from: session)
        let reply = output.lines.last { $0["id"] == .number(Double(nextID)) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    static let flag: JSONValue = ["type": "ChangeBoolean", "value": true]

    @Test mutating func anotherUidCannotReadOrChangeWhatAUidOwns() {
        _ = call(1, "plan.add", ["target": "card", "plan": Self.flag])
        _ = call(1, "runtime.create", ["name": "work"])
        #expect(call(2, "runtime.state")["targets"] == [:], "bob's default is his own")
        for (method, params) in [("runtime.state", ["runtime": "1000/default"]), ("runtime.state", ["runtime": "1000/work"]),
                                 ("plan.add", ["runtime": "1000/default", "target": "card", "plan": Self.flag]),
                                 ("plan.remove", ["runtime": "1000/work", "target": "card", "name": "n"]),
                                 ("runtime.destroy", ["name": "1000/work"]), ("timeline.attach", ["runtime": "1000/default"]),
                                 ("subscribe", ["streams": ["frames"], "runtime": "1000/work"])] as [(String, JSONValue)] {
            #expect(call(2, method, params)["code"] == "runtime.not_found", "\(method) \(params)")
        }
        #expect(call(2, "runtime.state", ["runtime": "1000/nothing"])["message"] == call(2, "runtime.state", ["runtime": "1000/work"])["message"]
            .map { _ in "runtime: no runtime named \"1000/nothing\"" }, "existence is not disclosed")
        #expect(call(2, "runtime.create", ["name": "work"])["runtime"] == "work", "bob has a work of his own")
        #expect(call(1, "runtime.state", ["runtime": "work"])["runtime"] == "work", "alice's is untouched")
        #expect(call(3, "runtime.state", ["runtime": "1000/default"])["targets"]?["card"] != nil, "an admin sees everything")
    }

    @Test mutating func subscribersSeeOnlyWhatTheirUidMaySee() {
        _ = call(2, "subscribe", ["streams": ["frames", "trace"]])
        _ = call(3, "subscribe", ["streams": ["frames"]])
        _ = call(1, "subscribe", ["streams": ["frames"]])
        _ = call(1, "plan.add", ["target": "secret", "plan": Self.flag])
        context.publishControlFrame()
        func runtimes(_ output: RecordingOutput) -> [JSONValue] {
            output.lines.filter { $0["event"] != nil }.flatMap { line -> [JSONValue] in
                line["updates"]?.arrayValue?.compactMap { $0["runtime"] } ?? line["runtime"].map { [$0] } ?? []
            }
        }
        #expect(runtimes(bob) == [], "bob sees none of alice's frames or trace events")
        #expect(runtimes(admin) == ["1000/default"], "an admin sees it, named as it reaches it")
        #expect(runtimes(alice) == ["default"], "alice sees her own, plainly named")
    }

    /// Filtered subscribers are found through indexes (by runtime, by target): the same visibility holds.
    @Test mutating func filteredSubscribersSeeOnlyWhatTheirUidMaySee() {
        _ = call(2, "subscribe", ["streams": ["frames"], "targets": ["card"]])
        _ = call(2, "subscribe", ["streams": ["frames"], "runtime": "default", "targets": ["card"]])
        _ = call(3, "subscribe", ["streams": ["frames"], "targets": ["card"]])
        _ = call(1, "plan.add", ["target": "card", "plan": Self.flag])
        _ = call(2, "plan.add", ["target": "card", "plan": Self.flag])
        _ = call(2, "plan.add", ["target": "other", "plan": Self.flag])
        context.publishControlFrame()
        func updates(_ output: RecordingOutput) -> [String] {
            output.lines.filter { $0["event"] == "frame" }.flatMap { $0["updates"]?.arrayValue ?? [] }
                .map { "\($0["runtime"]?.stringValue ?? "?") \($0["target"]?.stringValue ?? "?")" }.sorted()
        }
        #expect(updates(bob) == ["default card", "default card"], "each of bob's two subscriptions: his card only")
        #expect(updates(admin) == ["1000/default card", "1001/default card"])
        let sub = bob.lines.first { $0["result"]?["sub"] != nil }?["result"]?["sub"] ?? 0
        _ = call(2, "unsubscribe", ["sub": sub])
        _ = call(2, "plan.add", ["target": "card", "plan": ["type": "ChangeBoolean", "value": false]])
        context.publishControlFrame()
        #expect(updates(bob).count == 3, "an unsubscribed filter receives nothing more")
    }

    @Test mutating func aSharedRuntimeIsReadableByAllAndChangedByItsOwnerOnly() {
        #expect(call(1, "runtime.create", ["name": "board", "shared": true])["shared"] == true)
        _ = call(2, "subscribe", ["streams": ["frames"], "runtime": "1000/board"])
        _ = call(1, "plan.add", ["runtime": "board", "target": "score", "plan": Self.flag])
        context.publishControlFrame()
        #expect(bob.lines.last { $0["event"] == "frame" } != nil)
        #expect(bob.lines.last { $0["event"] == "frame" }?["updates"]?.arrayValue?.first?["runtime"] == "1000/board")
        #expect(call(2, "runtime.state", ["runtime": "1000/board"])["targets"]?["score"] != nil)
        #expect(call(2, "plan.add", ["runtime": "1000/board", "target": "score", "plan": Self.flag])["code"] == "runtime.not_found")
        #expect(call(2, "runtime.destroy", ["name": "1000/board"])["code"] == "runtime.not_found")
    }

    @Test mutating func routersBelongToTheirUid() {
        let routes: JSONValue = ["home": ["kind": "stack"], "detail": ["kind": "stack"]]
        #expect(call(1, "router.configure", ["scheme": "app", "routes": routes])["scheme"] == "app")
        #expect(call(2, "route.state", ["scheme": "app"])["code"] == "router.not_found")
        #expect(call(2, "route.go", ["scheme": "app", "to": "app://home"])["code"] == "router.not_found")
        #expect(call(2, "route.state")["routers"] == [], "bob's list holds only his routers")
        #expect(call(2, "router.configure", ["scheme": "app", "routes": routes])["url"] == "app://", "bob's own app://")
        #expect(call(3, "route.state")["routers"]?.arrayValue?.compactMap { $0["owner"] } == [1000, 1001], "an admin sees both")
        #expect(call(1, "plan.add", ["runtime": "motiond.route.app", "target": "x", "plan": Self.flag])["code"] == "runtime.protected",
                "a router's runtime is the daemon's to change")
        #expect(call(1, "runtime.state", ["runtime": "motiond.route.app"])["runtime"] == "motiond.route.app", "and its owner's to read")
        #expect(call(2, "runtime.state", ["runtime": "1000/motiond.route.app"])["code"] == "runtime.not_found")
        #expect(call(2, "router.remove", ["scheme": "app"])["removed"] == true, "bob removes his own app://")
        #expect(call(1, "route.state", ["scheme": "app"])["url"] == "app://", "alice's is still there")
        #expect(call(1, "router.remove", ["scheme": "app"])["removed"] == true)
        #expect(call(1, "route.state", ["scheme": "app"])["code"] == "router.not_found")
        #expect(call(1, "runtime.state", ["runtime": "motiond.route.app"])["code"] == "runtime.not_found", "its runtime ended with it")
    }

    @Test mutating func namesThatAddressAnotherUidCannotBeCreated() {
        #expect(call(1, "runtime.create", ["name": "1001/default"])["code"] == "request.invalid")
        #expect(call(1, "runtime.create", ["name": "2024/plan"])["code"] == "request.invalid")
        #expect(call(1, "runtime.create", ["name": "v2/plan"])["runtime"] == "v2/plan", "only digits then '/' are an address")
        #expect(call(1, "runtime.create", ["name": "1000/own"])["code"] == "request.invalid")
        #expect(call(1, "runtime.state", ["runtime": "1000/default"])["runtime"] == "1000/default", "its own uid's prefix reaches its own")
    }

    /// A plan a performer emits is held to its runtime's owner's quotas like the client's own plans: a
    /// plugin that emits plans was a way past them.
    @Test func plansAPerformerEmitsAreHeldToTheOwnersQuotas() throws {
        var quotas = Quotas()
        quotas.performers = 2
        var test = try OwnershipTests(quotas: quotas)
        #expect(test.call(1, "plan.add", ["target": "a", "plan": ["type": "Frames", "frames": 10]])["performer"] != nil)
        let emitted = test.call(1, "plan.add", ["target": "a", "plan": ["type": "Emit", "plan": #"{"type":"ChangeBoolean","value":true}"#]])
        #expect(emitted["code"] != nil && emitted["message"]?.stringValue?.contains("quota performers") == true, "\(emitted)")
        #expect(test.context.engine.usage[1000]?.performers ?? 0 <= 2, "\(String(describing: test.context.engine.usage[1000]))")
        #expect(test.context.engine.value(of: "boolean", target: "a", runtime: "1000/default") == nil)
    }

    /// The properties quota held only for a plan's `property` (checked before the plan goes in): a plugin
    /// that makes properties of its own (ChangeBoolean writes `boolean`, its plan names none) made as
    /// many as its plans' targets. Now `intern_property` refuses past the quota, and the plan the plugin
    /// refuses for it is answered `quota.exceeded`.
    @Test func propertiesAPluginMakesAreHeldToTheOwnersQuota() throws {
        var quotas = Quotas()
        quotas.properties = 2
        var test = try OwnershipTests(quotas: quotas)
        for target in ["a", "b"] {
            #expect(test.call(1, "plan.add", ["target": .string(target), "plan": ["type": "ChangeBoolean", "value": true]])["performer"] != nil)
        }
        let refused = test.call(1, "plan.add", ["target": "c", "plan": ["type": "ChangeBoolean", "value": true]])
        #expect(refused["code"] == "quota.exceeded", "\(refused)")
        #expect(refused["message"]?.stringValue?.hasPrefix("quota properties: uid 1000 holds 2 properties") == true, "\(refused)")
        #expect(test.context.engine.store.liveByOwner[1000] == 2)
        #expect(test.call(2, "plan.add", ["target": "c", "plan": ["type": "ChangeBoolean", "value": true]])["performer"] != nil,
                "bob's quota is his own")
    }

    @Test mutating func quotasAreEnforcedPerUidAndNothingElseIsDisturbed() throws {
        var quotas = Quotas()
        quotas.runtimes = 3
        quotas.performers = 2
        quotas.routers = 1
        quotas.stateBytes = 400
        var test = try OwnershipTests(quotas: quotas)
        // alice's default is one of her 3 runtimes.
        #expect(test.call(1, "runtime.create", ["name": "a"])["runtime"] == "a")
        #expect(test.call(1, "runtime.create", ["name": "b"])["runtime"] == "b")
        let refused = test.call(1, "runtime.create", ["name": "c"])
        #expect(refused["code"] == "quota.exceeded")
        #expect(refused["message"]?.stringValue?.hasPrefix("quota runtimes: uid 1000 holds 3 runtimes") == true, "\(refused)")
        #expect(test.call(2, "runtime.create", ["name": "c"])["runtime"] == "c", "bob's quota is his own")

        _ = test.call(1, "plan.add", ["target": "one", "plan": Self.flag])
        _ = test.call(1, "plan.add", ["target": "two", "plan": Self.flag])
        #expect(test.call(1, "plan.add", ["target": "three", "plan": Self.flag])["code"] == "quota.exceeded")
        #expect(test.call(1, "plan.add", ["target": "two", "plan": ["type": "ChangeBoolean", "value": false]])["performer"] != nil,
                "a plan for a performer she has still goes in")
        #expect(test.context.engine.value(of: "boolean", target: "two", runtime: "1000/default") == [0])

        #expect(test.call(1, "router.configure", ["scheme": "app", "routes": ["home": ["kind": "stack"]]])["code"] == "quota.exceeded",
                "a router's runtime counts among her runtimes")
        _ = test.call(1, "runtime.destroy", ["name": "b"])
        #expect(test.call(1, "router.configure", ["scheme": "app", "routes": ["home": ["kind": "stack"]]])["scheme"] == "app")
        _ = test.call(1, "runtime.destroy", ["name": "a"])
        let second = test.call(1, "router.configure", ["scheme": "web", "routes": ["home": ["kind": "stack"]]])
        #expect(second["message"]?.stringValue?.hasPrefix("quota routers:") == true, "\(second)")
        let big: JSONValue = .object(Dictionary(uniqueKeysWithValues: (0..<40).map { ("screen\($0)", ["kind": "stack"] as JSONValue) }))
        #expect(test.call(1, "router.configure", ["scheme": "app", "routes": big])["message"]?.stringValue?.hasPrefix("quota stateBytes:") == true)
        #expect(test.call(1, "route.state", ["scheme": "app"])["routes"]?.objectValue?.count == 1, "the refused configuration changed nothing")

        let status = test.call(3, "status")
        let usage = status["usage"]?["uids"]?.arrayValue?.first { $0["uid"] == 1000 }
        #expect(usage?["performers"] == 2 && usage?["routers"] == 1, "\(String(describing: status["usage"]))")
        #expect(status["usage"]?["quotas"]?["runtimes"] == 3)
        #expect(test.call(1, "status")["usage"] == nil, "usage per uid is for admins")
    }

    /// Animations running or waiting for their delay are counted per uid over all its runtimes; at the
    /// quota every plan.add is refused, and what ends (or goes with its runtime) is given back.
    @Test func animationsAreAQuotaPerUid() throws {
        var quotas = Quotas()
        quotas.animations = 3
        var test = try OwnershipTests(quotas: quotas)
        _ = test.call(1, "runtime.create", ["name": "r"])
        #expect(test.call(1, "plan.add", ["runtime": "r", "target": "a", "plan": ["type": "ForeverActive"]])["performer"] != nil)
        #expect(test.call(1, "plan.add", ["runtime": "r", "target": "b", "plan": ["type": "ForeverActive"]])["performer"] != nil)
        #expect(test.call(1, "plan.add", ["target": "c", "plan": ["type": "ForeverActive"]])["performer"] != nil)
        let refused = test.call(1, "plan.add", ["target": "d", "plan": ["type": "ForeverActive"]])
        #expect(refused["code"] == "quota.exceeded", "\(refused)")
        #expect(refused["message"]?.stringValue?.hasPrefix("quota animations: uid 1000 holds 3 animations") == true, "\(refused)")
        #expect(test.call(2, "plan.add", ["target": "d", "plan": ["type": "ForeverActive"]])["performer"] != nil, "bob's quota is his own")
        let usage = test.call(3, "status")["usage"]?["uids"]?.arrayValue?.first { $0["uid"] == 1000 }
        #expect(usage?["animations"] == 3, "\(String(describing: usage))")
        _ = test.call(1, "runtime.destroy", ["name": "r"])
        #expect(test.call(1, "plan.add", ["target": "d", "plan": ["type": "ForeverActive"]])["performer"] != nil, "given back with its runtime")
        #expect(test.context.engine.animations(of: 1000) == 2)
    }

    /// Target names in a uid's subscription filters are counted together, across its connections.
    @Test func filterTargetsAreAQuotaPerUid() throws {
        var quotas = Quotas()
        quotas.filterTargets = 6000
        var test = try OwnershipTests(quotas: quotas)
        let names = JSONValue.array((0..<4000).map { .string("target-\($0)") })
        #expect(test.call(1, "subscribe", ["streams": ["frames"], "targets": names])["sub"] == 1)
        let refused = test.call(1, "subscribe", ["streams": ["frames"], "targets": names])
        #expect(refused["code"] == "quota.exceeded", "\(refused)")
        #expect(refused["message"]?.stringValue?.hasPrefix("quota filterTargets: uid 1000 holds 6000 target names") == true, "\(refused)")
        #expect(test.call(2, "subscribe", ["streams": ["frames"], "targets": names])["sub"] == 1, "bob's quota is his own")
        #expect(test.call(1, "subscribe", ["streams": ["frames"], "targets": ["a", "b"]])["sub"] == 2, "within what is left")
        _ = test.call(1, "unsubscribe", ["sub": 1])
        // Given back once the filter has left the index, a slice at a time between frames.
        var ticks = 0
        while test.context.hub.hasRemovals, ticks < 10_000 {
            test.context.tick(dt: 1.0 / 120)
            ticks += 1
        }
        #expect(test.call(1, "subscribe", ["streams": ["frames"], "targets": names])["sub"] != nil, "given back when unsubscribed")
        let usage = test.call(3, "status")["usage"]?["uids"]?.arrayValue?.first { $0["uid"] == 1000 }
        #expect(usage?["filterTargets"] == 4002, "\(String(describing: usage))")
        // Each name is a name (≤ 256 bytes): the quota's count bounds their memory too.
        let long = test.call(1, "subscribe", ["streams": ["frames"], "targets": [.string(String(repeating: "n", count: 257))]])
        #expect(long["code"] == "request.limit" && long["message"] == "targets[0]: 257 bytes; names are at most 256 bytes", "\(long)")
    }

    /// A uid's many subscribers share a frame budget per step: past it, the rest of its subscribers wait
    /// for the next step (conflated, served in turn), while another uid's subscriber is served every step.
    @Test mutating func aUidsSubscribersShareAFrameBudget() {
        context.hub.uidFrameBudgetNanos = 1  // only each uid's first subscriber of a step fits
        for _ in 0..<4 { _ = call(1, "subscribe", ["streams": ["frames"]]) }
        _ = call(2, "subscribe", ["streams": ["frames"]])
        _ = call(1, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        _ = call(2, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        func frames(_ output: RecordingOutput) -> [Int] {
            output.lines.filter { $0["event"] == "frame" && $0["updates"]?.arrayValue?.isEmpty == false }.compactMap { $0["sub"]?.intValue }
        }
        let (aliceBefore, bobBefore) = (frames(alice).count, frames(bob).count)
        for _ in 0..<8 { context.tick(dt: 1.0 / 120) }
        let aliceSubs = frames(alice).dropFirst(aliceBefore), bobSubs = frames(bob).dropFirst(bobBefore)
        #expect(bobSubs.count == 8, "bob's one subscriber every step: \(bobSubs)")
        #expect(aliceSubs.count == 8, "one of alice's four a step: \(aliceSubs)")
        #expect(Set(aliceSubs) == [1, 2, 3, 4], "each in turn: \(aliceSubs)")
        #expect(context.hub.hasDeferredFrames, "the others wait for the next step")
        let dropped = alice.lines.filter { $0["event"] == "frame" }.compactMap { $0["dropped"]?.intValue }.max() ?? 0
        #expect(dropped > 0, "conflated values are counted as dropped")
    }

    /// Frames with updates in `output`, by subscription.
    static func framesServed(_ output: RecordingOutput) -> [Int] {
        output.lines.filter { $0["event"] == "frame" && $0["updates"]?.arrayValue?.isEmpty == false }.compactMap { $0["sub"]?.intValue }
    }

    /// The budget is a frame interval's: the control frames sent after commands until the next tick draw
    /// on it too (each had a budget of its own, and one uid's commands kept the engine thread serving its
    /// subscribers past the kernel's realtime cap: BENCHMARKS.md, `churn`).
    @Test mutating func controlFramesDrawOnTheIntervalsFrameBudget() {
        context.hub.uidFrameBudgetNanos = 1  // each uid's first subscriber of an interval fits
        for _ in 0..<4 { _ = call(1, "subscribe", ["streams": ["frames"]]) }
        _ = call(3, "subscribe", ["streams": ["frames"]])
        _ = call(1, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        let frames = { (output: RecordingOutput) in Self.framesServed(output).count }
        context.tick(dt: 1.0 / 120)
        let (aliceBefore, adminBefore) = (frames(alice), frames(admin))
        for index in 0..<6 {
            _ = call(1, "plan.add", ["target": .string("flag\(index)"), "plan": Self.flag])
            context.publishControlFrame()
        }
        #expect(frames(alice) == aliceBefore, "alice's interval was spent by the tick: her subscribers wait for the next")
        #expect(frames(admin) == adminBefore + 6, "an admin's subscriber (not budgeted) gets every control frame")
        context.tick(dt: 1.0 / 120)
        #expect(frames(alice) == aliceBefore + 1, "a new interval: one of alice's again")
    }

    /// Subscribers that wait take turns one interval at a time, whatever number of frames go out between
    /// ticks (turns that moved at every frame left two of four subscribers unserved for ever with one
    /// command per tick).
    @Test mutating func aUidsSubscribersTakeTurnsWhateverTheCommandsBetweenTicks() {
        context.hub.uidFrameBudgetNanos = 1
        for _ in 0..<4 { _ = call(1, "subscribe", ["streams": ["frames"]]) }
        _ = call(1, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        let before = Self.framesServed(alice).count
        for index in 0..<8 {
            context.tick(dt: 1.0 / 120, now: UInt64(index + 1) * 8_333_333)  // the daemon's entry
            _ = call(1, "plan.add", ["target": .string("flag\(index)"), "plan": Self.flag])
            context.publishControlFrame()
        }
        let served = Self.framesServed(alice).dropFirst(before)
        #expect(Set(served) == [1, 2, 3, 4], "each in turn: \(Array(served))")
    }

    /// An interval with no tick ends by time (the clock stood still: nothing moved): a command's frame then
    /// is not charged to the last interval's spending.
    @Test mutating func anIntervalWithoutATickEndsByTime() {
        context.hub.uidFrameBudgetNanos = 1
        for _ in 0..<2 { _ = call(1, "subscribe", ["streams": ["frames"]]) }
        _ = call(1, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        context.tick(dt: 1.0 / 120)
        let before = Self.framesServed(alice).count
        _ = call(1, "plan.add", ["target": "flag", "plan": Self.flag])
        context.publishControlFrame()
        #expect(Self.framesServed(alice).count == before, "within the interval: it waits")
        context.hub.frameIntervalNanos = 1  // any time at all is past two intervals
        _ = call(1, "plan.add", ["target": "flag2", "plan": Self.flag])
        context.publishControlFrame()
        #expect(Self.framesServed(alice).count > before, "a new interval by time: one of alice's frames goes out")
    }

    /// A subscriber without a filter marks what changed when it is served: one that waited longer than
    /// the steps kept (`ChangeHistory.depth`) still gets each property written since, at its current value.
    @Test mutating func aSubscriberThatWaitedLongGetsWhatChangedMeanwhile() {
        context.hub.uidFrameBudgetNanos = 1  // one of alice's subscribers a step
        let count = ChangeHistory.depth + 8
        for _ in 0..<count { _ = call(1, "subscribe", ["streams": ["frames"]]) }
        _ = call(1, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        _ = call(1, "plan.add", ["target": "still", "plan": ["type": "ChangeBoolean", "value": true]])
        for _ in 0..<(count + 4) { context.tick(dt: 1.0 / 120) }
        let frames = alice.lines.filter { $0["event"] == "frame" && $0["updates"]?.arrayValue?.isEmpty == false }
        let served = Set(frames.compactMap { $0["sub"]?.intValue })
        #expect(served == Set(1...count), "every subscriber in turn: \(served.count) of \(count)")
        // The last ones waited past the history: their first frame has the still property too (written
        // once, after they subscribed).
        let last = frames.last { $0["sub"]?.intValue == count }
        let targets = Set(last?["updates"]?.arrayValue?.compactMap { $0["target"]?.stringValue } ?? [])
        #expect(targets.contains("still") && targets.contains("card"), "\(targets)")
    }

    /// A dry run's properties (another uid's `plan.sample`, in slices between ticks) never reach a
    /// subscriber, not even one that waited many steps and catches up on everything written since.
    @Test mutating func aDryRunInSlicesNeverReachesASubscriberThatWaitedLong() {
        let pending = Mutex<[@Sendable (EngineContext) -> Void]>([])
        context.hooks.onEngineThreadFor = { _, _, body in pending.withLock { $0.append(body) } }
        context.hub.uidFrameBudgetNanos = 1  // one of bob's subscribers a step: the others wait
        for _ in 0..<(ChangeHistory.depth + 8) { _ = call(2, "subscribe", ["streams": ["frames"]]) }
        _ = call(2, "plan.add", ["target": "card", "plan": ["type": "ForeverActive"]])
        let times = JSONValue.array((0..<10_000).map { .number(Double($0) * 0.06) })
        _ = call(1, "plan.sample", ["plan": ["type": "Frames", "frames": 100_000, "property": "secret"], "times": times])
        var slices = 0
        while let body = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            for _ in 0..<4 { context.tick(dt: 1.0 / 120) }
            body(context)
            slices += 1
        }
        #expect(slices > 1, "the sample ran in slices")
        #expect(alice.lines.contains { $0["result"]?["samples"] != nil }, "\(alice.lines.last ?? .null)")
        let updates = bob.lines.filter { $0["event"] == "frame" }.flatMap { $0["updates"]?.arrayValue ?? [] }
        #expect(!updates.isEmpty)
        #expect(updates.allSatisfy { $0["target"] == "card" }, "\(Set(updates.compactMap { $0["runtime"]?.stringValue }))")
    }

    /// A value written just after a `maxRate` subscriber's frame reaches it when its rate is next due,
    /// though nothing moves any more: the clock keeps running for what it is owed, then stops.
    @Test mutating func aRateLimitedSubscriberGetsTheLastValueOfMotionThatStopped() {
        _ = call(1, "subscribe", ["streams": ["frames"], "maxRate": 10])
        _ = call(1, "plan.add", ["target": "a", "plan": ["type": "ChangeBoolean", "value": true]])
        context.tick(dt: 1.0 / 120)
        _ = call(1, "plan.add", ["target": "b", "plan": ["type": "ChangeBoolean", "value": true]])
        context.publishControlFrame()
        #expect(context.wantsTicks, "b's value is owed")
        // A 10 Hz subscriber is next due 0.1 s on: the clock moves a tick at a time until the context
        // stops wanting ticks (at most 2 s of it).
        for _ in 0..<240 where context.wantsTicks {
            clock.advance(by: 1.0 / 120)
            context.tick(dt: 1.0 / 120)
        }
        let targets = alice.lines.filter { $0["event"] == "frame" }.flatMap { $0["updates"]?.arrayValue ?? [] }
            .compactMap { $0["target"]?.stringValue }
        #expect(targets.contains("b"), "\(targets)")
        #expect(!context.wantsTicks, "and then the clock may stop")
    }

    /// Live properties are a quota per uid: a plan for a new property past it is refused; properties it
    /// has are still animated, and another uid's are its own.
    @Test func propertiesAreAQuotaPerUid() throws {
        var quotas = Quotas()
        quotas.properties = 3
        var test = try OwnershipTests(quotas: quotas)
        let frames: JSONValue = ["type": "Frames", "frames": 100_000, "property": "x"]
        for target in ["a", "b", "c"] {
            #expect(test.call(1, "plan.add", ["target": .string(target), "plan": frames])["performer"] != nil)
        }
        test.context.tick(dt: 1.0 / 120)  // each writes its property
        let refused = test.call(1, "plan.add", ["target": "d", "plan": frames])
        #expect(refused["code"] == "quota.exceeded" && refused["message"] == "quota properties: uid 1000 holds 3 properties (its quota)", "\(refused)")
        #expect(test.call(1, "plan.add", ["target": "a", "plan": frames])["performer"] != nil, "a property it has")
        #expect(test.call(2, "plan.add", ["target": "d", "plan": frames])["performer"] != nil, "bob's quota is his own")
        let usage = test.call(3, "status")["usage"]?["uids"]?.arrayValue?.first { $0["uid"] == 1000 }
        #expect(usage?["properties"] == 3, "\(String(describing: usage))")
    }
}
