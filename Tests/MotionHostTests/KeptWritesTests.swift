@testable import MotionEngine
@testable import MotionHost
import Foundation
import Logging
import MotionWire
import Testing

/// Values no one reads are not written ("motion.unread/1", "motion.kept/1"): with `writesUnread`, the
/// shipped springs and decays step without writing the property store, and every read asks for what they
/// kept. Two engines run the same script, one writing every tick, one keeping; every read must agree.
@Suite("Kept writes")
struct KeptWritesTests {
    /// Targets of each kind in the script (more springs than a kernel chunk, 2,048).
    static let springs = 2_500, sharing = 300, decays = 60, clamped = 20, named = 12, delayed = 10

    static func engine() throws -> Engine { try ShippedPlanSchemaTests.engine(["SpringPlugin", "DecayPlugin", "TweenPlugin", "SetPlugin"]) }

    /// The script's plans: springs of three forces (the kernel's per-lane path) and some of one force
    /// (its shared path), decays, clamped springs, named springs that get removed, and springs that start
    /// after a delay inside a tick (reading the value of a spring they replace).
    static func start(_ engine: Engine) throws {
        for index in 0..<springs {
            let damping = [4.0, 9.0, 30.0][index % 3]
            try engine.addPlan(plan(#"{"type":"Spring","property":"p","from":[0,0],"to":[\#(100 + index),-50],"tension":\#(120 + 40 * (index % 3)),"damping":\#(damping),"threshold":0.01}"#), to: "s\(index)")
        }
        for index in 0..<sharing {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","from":[\#(index)],"to":[500],"tension":200,"damping":12}"#), to: "one\(index)")
        }
        for index in 0..<decays {
            try engine.addPlan(plan(#"{"type":"Decay","property":"x","from":[0],"velocity":[\#(100 + 10 * index)],"drag":\#(2 + index % 4)}"#), to: "d\(index)")
        }
        for index in 0..<clamped {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","from":[0],"to":[50],"tension":300,"damping":5,"overshootClamping":true}"#), to: "c\(index)")
        }
        for index in 0..<named {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","from":[0],"to":[80],"tension":90,"damping":6}"#), to: "n\(index)", named: "wobble")
        }
        for index in 0..<delayed {
            try engine.addPlan(plan(#"{"type":"Spring","property":"p","to":[0,0],"tension":500,"damping":20,"delay":0.05}"#), to: "s\(index)")
        }
    }

    /// Every property's value and velocity, through the engine's reads.
    static func snapshot(_ engine: Engine) -> [String: [Double]] {
        var values: [String: [Double]] = [:]
        func take(_ target: String, _ property: String) {
            values["\(target).\(property)"] = engine.value(of: property, target: target)
            values["\(target).\(property)'"] = engine.velocity(of: property, target: target)
        }
        for index in 0..<springs { take("s\(index)", "p") }
        for index in 0..<sharing { take("one\(index)", "x") }
        for index in 0..<decays { take("d\(index)", "x") }
        for index in 0..<clamped { take("c\(index)", "x") }
        for index in 0..<named { take("n\(index)", "x") }
        return values
    }

    /// The daemon's side of `engine`: its clock and dispatch, with one client that said hello.
    static func daemon(_ engine: Engine) -> (EngineContext, RecordingOutput) {
        let context = EngineContext(engine: engine, settings: EngineSettings(),
                                    logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let output = RecordingOutput()
        context.openLocalSession(1, output: output)
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        return (context, output)
    }

    static func advance(_ engines: [Engine], ticks: Int) {
        for _ in 0..<ticks {
            for engine in engines {
                engine.advance(by: 1.0 / 120)
                engine.clearFrame()
            }
        }
    }

    /// A writing and a keeping engine with the script's plans, 3 ticks in.
    static func startedPair() throws -> (eager: Engine, lazy: Engine) {
        let eager = try engine(), lazy = try engine()
        lazy.unread.writesUnread = true
        for engine in [eager, lazy] { try start(engine) }
        advance([eager, lazy], ticks: 3)
        return (eager, lazy)
    }

    static func mismatches(_ eager: [String: [Double]], _ lazy: [String: [Double]]) -> [String] {
        eager.keys.sorted().filter { eager[$0] != lazy[$0] }.prefix(5).map { "\($0): \(eager[$0] ?? []) vs \(lazy[$0] ?? [])" }
    }

    @Test func everyReadSeesWhatAWritingEngineWrote() throws {
        let (eager, lazy) = try Self.startedPair()

        // The lazy engine really kept them: its store still holds the first values.
        let handle = try #require(lazy.store.handle(for: .init(runtime: Engine.defaultRuntime, target: "s1", property: "p")))
        #expect(lazy.store.isStale)
        #expect(lazy.store.slot(handle)[0] == 0, "the store is not written while no one reads")
        #expect(eager.store.slot(handle)[0] != 0)

        // Reads between ticks; springs replaced by springs and tweens (which read the value they start from).
        #expect(Self.mismatches(Self.snapshot(eager), Self.snapshot(lazy)) == [])
        Self.advance([eager, lazy], ticks: 5)
        for engine in [eager, lazy] {
            for index in 20..<40 {
                try engine.addPlan(plan(#"{"type":"Spring","property":"p","to":[0,\#(index)],"tension":150,"damping":8}"#), to: "s\(index)")
            }
            for index in 40..<60 {
                try engine.addPlan(plan(#"{"type":"Tween","property":"p","to":[1,1],"duration":0.2}"#), to: "s\(index)")
            }
            for index in 0..<Self.named { _ = try engine.removePlan(named: "wobble", from: "n\(index)") }
        }
        // A Set (C, "motion.claim/1") takes springs' properties without reading them: its value stays.
        Self.advance([eager, lazy], ticks: 3)
        for engine in [eager, lazy] {
            for index in 60..<70 { try engine.addPlan(plan(#"{"type":"Set","property":"p","value":[7,\#(index)]}"#), to: "s\(index)") }
        }
        #expect(Self.mismatches(Self.snapshot(eager), Self.snapshot(lazy)) == [])
        // Reads only now and then while springs come to rest chunk by chunk, decays stop, clamped springs
        // reach their target, removed plans hold their value.
        for round in 0..<12 {
            Self.advance([eager, lazy], ticks: 7 + round * 5)
            let probe = "s\(round * 97 % Self.springs)"
            #expect(eager.value(of: "p", target: probe) == lazy.value(of: "p", target: probe), "\(probe) after round \(round)")
        }
        #expect(Self.mismatches(Self.snapshot(eager), Self.snapshot(lazy)) == [])
        #expect(eager.isAnimating == lazy.isAnimating)
        Self.advance([eager, lazy], ticks: 600)
        #expect(!lazy.isAnimating, "everything came to rest")
        #expect(Self.mismatches(Self.snapshot(eager), Self.snapshot(lazy)) == [], "values at rest")
    }

    /// A read of one property asks the plugins for that one only ("motion.kept/1" `write_kept_some`): the
    /// other kept values stay unwritten until something reads them; many reads in one tick are answered by
    /// one refresh of everything.
    @Test func aReadOfOnePropertyAsksForThatOneOnly() throws {
        let (eager, lazy) = try Self.startedPair()
        let other = try #require(lazy.store.handle(for: .init(runtime: Engine.defaultRuntime, target: "s2", property: "p")))
        #expect(lazy.value(of: "p", target: "s1") == eager.value(of: "p", target: "s1"))
        #expect(lazy.store.slot(other)[0] == 0, "another spring's value is still kept")
        #expect(lazy.store.isStale)
        for index in 3..<(3 + KeptFreshness.targetedLimit(live: lazy.store.liveCount) + 1) {
            #expect(lazy.value(of: "p", target: "s\(index)") == eager.value(of: "p", target: "s\(index)"))
        }
        #expect(!lazy.store.isStale, "past the limit, everything at once")
        #expect(KeptFreshness.targetedLimit(live: 600_000) == 2343, "with many properties, more targeted reads first")
        #expect(lazy.store.slot(other)[0] == eager.store.slot(other)[0] && lazy.store.slot(other)[0] != 0)
        // A value written after its spring was written for a read stays, whatever is read next.
        Self.advance([eager, lazy], ticks: 1)
        for engine in [eager, lazy] {
            _ = engine.value(of: "p", target: "s5")
            try engine.addPlan(plan(#"{"type":"Set","property":"p","value":[7,7]}"#), to: "s5")
        }
        #expect(Self.mismatches(Self.snapshot(eager), Self.snapshot(lazy)) == [])
        #expect(lazy.value(of: "p", target: "s5") == [7, 7])
    }

    /// A hot swap takes the springs to another image: the old one's lanes go, and what they kept is
    /// written as they go (the new image's lanes have never stepped, so a read asks them for nothing).
    @Test func aSwapToAnotherImageKeepsTheValuesReadable() throws {
        let eager = try Self.engine(), lazy = try Self.engine()
        lazy.unread.writesUnread = true
        for engine in [eager, lazy] {
            for index in 0..<50 {
                try engine.addPlan(plan(#"{"type":"Spring","property":"x","from":[0],"to":[\#(100 + index)],"tension":120,"damping":4}"#), to: "s\(index)")
            }
        }
        Self.advance([eager, lazy], ticks: 9)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("kept-\(getpid())-libSpringPlugin.so").path
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: PluginLoaderTests.buildDirectory + "/libSpringPlugin.so", toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        var builder = PluginRegistryBuilder(extending: lazy.registry)
        let descriptor = try PluginLoader.load(file: copy, host: lazy.host).get()
        _ = try builder.replace(with: descriptor, hash: "copy").get()
        #expect(try lazy.swaps.swap(to: builder.freeze(), pluginID: descriptor.id).migrated == 50)
        #expect(Self.mismatches(Self.values(eager, count: 50), Self.values(lazy, count: 50)) == [])
    }

    static func values(_ engine: Engine, count: Int) -> [String: [Double]] {
        var values: [String: [Double]] = [:]
        for index in 0..<count {
            values["s\(index)"] = engine.value(of: "x", target: "s\(index)")
            values["s\(index)'"] = engine.velocity(of: "x", target: "s\(index)")
        }
        return values
    }

    /// A subscriber filtered to a few targets reads them at every tick: their values are written (and
    /// sent) as always, a target that gets its first plan later included, while the others are kept.
    @Test func aFilteredSubscriberGetsItsTargetsAtEveryTickWhileTheRestIsKept() throws {
        let eager = try Self.engine(), lazy = try Self.engine()
        let (context, output) = Self.daemon(lazy)
        let spring = plan(#"{"type":"Spring","property":"x","from":[0],"to":[100],"tension":120,"damping":3}"#)
        for engine in [eager, lazy] {
            for index in 0..<100 { try engine.addPlan(spring, to: "s\(index)") }
        }
        context.receive(line: Array(#"{"id":2,"method":"subscribe","params":{"streams":["frames"],"targets":["s7","late"]}}"#.utf8), from: 1)
        var expected: [[String: Double]] = []
        for tick in 0..<20 {
            if tick == 5 {
                for engine in [eager, lazy] { try engine.addPlan(spring, to: "late") }
            }
            context.tick(dt: 1.0 / 120)
            eager.advance(by: 1.0 / 120)
            eager.clearFrame()
            var values = ["s7": eager.store.slot(eager.store.handle(for: .init(runtime: Engine.defaultRuntime, target: "s7", property: "x"))!)[0]]
            if let late = eager.store.handle(for: .init(runtime: Engine.defaultRuntime, target: "late", property: "x")) {
                values["late"] = eager.store.slot(late)[0]
            }
            expected.append(values)
        }
        // The other springs were kept: their slots hold what they had at the last read (a plan's start).
        let other = try #require(lazy.store.handle(for: .init(runtime: Engine.defaultRuntime, target: "s8", property: "x")))
        #expect(lazy.store.slot(other)[0] != eager.store.slot(other)[0], "s8 kept since the last read")
        // That read brought every kept value back, s7's too, without a frame: the subscriber has its values.
        #expect(lazy.value(of: "x", target: "s8") == eager.value(of: "x", target: "s8"))
        context.publishControlFrame()
        let frames = output.lines.compactMap { $0["updates"]?.arrayValue }
        #expect(frames.count == 20, "a frame at every tick, and none repeating values")
        for (index, (frame, values)) in zip(frames, expected).enumerated() {
            var sent: [String: Double] = [:]
            for update in frame { sent[update["target"]?.stringValue ?? "?"] = update["value"]?.arrayValue?.first?.doubleValue }
            #expect(Set(sent.keys) == Set(values.keys), "frame \(index): \(sent.keys.sorted())")
            for (target, value) in values {
                #expect(abs((sent[target] ?? .nan) - value) < 1e-8, "frame \(index), \(target)")
            }
        }
    }

    /// The daemon's own ticks with no subscriber keep the values; `runtime.state` gives them as a writing
    /// engine has them.
    @Test func runtimeStateAfterTicksWithNoSubscriber() throws {
        let eager = try Self.engine(), lazy = try Self.engine()
        // One page of all 20 targets, however slow the machine (a page may end on the engine's time).
        lazy.spread.statePageNanos = .max
        let (context, output) = Self.daemon(lazy)
        for index in 0..<20 {
            let spring = #"{"type":"Spring","property":"x","from":[0],"to":[\#(10 * index)],"tension":120,"damping":3}"#
            try eager.addPlan(plan(spring), to: "s\(index)")
            context.receive(line: Array(#"{"id":\#(100 + index),"method":"plan.add","params":{"target":"s\#(index)","plan":\#(spring)}}"#.utf8), from: 1)
        }
        for _ in 0..<15 {
            context.tick(dt: 1.0 / 120)
            eager.advance(by: 1.0 / 120)
            eager.clearFrame()
        }
        let handle = try #require(lazy.store.handlesByTarget["s3"]?.first)
        #expect(lazy.store.slot(handle)[0] == 0, "kept: the daemon had no subscriber")
        context.receive(line: Array(#"{"id":2,"method":"runtime.state","params":{"runtime":"default"}}"#.utf8), from: 1)
        let reply = try #require(output.lines.first { $0["id"] == 2 })
        for index in 0..<20 {
            let state = reply["result"]?["targets"]?["s\(index)"]?["properties"]?["x"]
            #expect(state?["value"]?.arrayValue?.compactMap(\.doubleValue) == eager.value(of: "x", target: "s\(index)"), "s\(index)")
            #expect(state?["velocity"]?.arrayValue?.compactMap(\.doubleValue) == eager.velocity(of: "x", target: "s\(index)"), "s\(index)")
        }
    }

    @Test func aSubscriberThatArrivesGetsEveryMovingValueAtTheNextTick() throws {
        let lazy = try Self.engine()
        lazy.unread.writesUnread = true
        try lazy.addPlan(plan(#"{"type":"Spring","property":"x","from":[0],"to":[100],"tension":100,"damping":5}"#), to: "card")
        Self.advance([lazy], ticks: 10)
        let handle = try #require(lazy.store.handle(for: .init(runtime: Engine.defaultRuntime, target: "card", property: "x")))
        #expect(lazy.store.slot(handle)[0] == 0)
        // The clock writes every value of a tick that someone will see.
        lazy.unread.writesUnread = false
        lazy.advance(by: 1.0 / 120)
        #expect(lazy.dirtyProperties.contains(handle), "the tick's frame carries the moving property")
        #expect(lazy.store.slot(handle)[0] > 0)
    }
}
