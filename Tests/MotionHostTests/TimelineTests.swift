import Logging
@testable import MotionEngine
import MotionAnimation
import MotionPluginKit
import MotionWire
import Testing

/// The shipped animation performers, linked in-process (no dlopen) for engine tests.
enum InProcessAnimations: MotionPlugin {
    static let id = "test.animations"
    static let version = "1"
    static var performers: [any Performer.Type] {
        [AnimationPerformer<SpringAnimation>.self, AnimationPerformer<TweenAnimation>.self, AnimationPerformer<DecayAnimation>.self]
    }
    static var descriptor: UnsafeRawPointer { PluginEntry.descriptor(for: InProcessAnimations.self) }
}

/// docs/protocol.md timeline, on an in-process engine context: `material_motion_runtime.json`'s timeline cases
/// (develop API) mapped to `timeline.attach/scrub/detach` and the trace stream, and scrubbing physics.
@Suite("Timeline")
struct TimelineTests {
    let context: EngineContext
    let output = RecordingOutput()
    var nextID = 0

    init() throws {
        let harness = try EngineHarness(plugins: [InProcessAnimations.descriptor])
        context = EngineContext(engine: harness.engine, settings: EngineSettings(),
                                logger: Logger(label: "test"))
        context.openSession(1, output: output)
        try call("hello", ["protocol": 1])
    }

    @discardableResult
    mutating func send(_ method: String, _ params: JSONValue = [:]) -> JSONValue? {
        nextID += 1
        let id = JSONValue.number(Double(nextID))
        context.handle(.success(Request(id: id, method: method, params: Params(params.objectValue ?? [:]))), from: 1)
        return output.lines.last { $0["id"] == id }
    }

    @discardableResult
    mutating func call(_ method: String, _ params: JSONValue = [:]) throws -> JSONValue {
        let reply = send(method, params)
        #expect(reply?["error"] == nil, "\(method): \(String(describing: reply))")
        return reply?["result"] ?? .null
    }

    var timelineEvents: [String] {
        output.lines.filter { ($0["kind"]?.stringValue ?? "").hasPrefix("timeline.") }.map { event in
            let kind = (event["kind"]?.stringValue ?? "").replacingOccurrences(of: "timeline.scrubber.", with: "")
            return kind == "scrubbed" ? "scrubbed(\(event["offset"]?.doubleValue ?? -1))" : kind
        }
    }

    mutating func observe() throws { try call("subscribe", ["streams": ["trace"]]) }

    // The eight develop-API cases, in file order.

    @Test mutating func aScrubberEndsWithTheSessionThatAttachedIt() throws {
        try observe()
        let other = RecordingOutput()
        context.openSession(2, output: other)
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1}}"#.utf8), from: 2)
        context.receive(line: Array(#"{"id":2,"method":"timeline.attach","params":{"offset":0}}"#.utf8), from: 2)
        #expect(context.engine.timelines.timeline(of: "0/default")?.isAttached == true)
        context.closeSession(2)
        #expect(context.engine.timelines.timeline(of: "0/default")?.isAttached == false, "the runtime is not left frozen")
        #expect(timelineEvents == ["attached", "detached"])
    }

    @Test mutating func attachThenDetach() throws {
        try observe()
        try call("timeline.attach", ["offset": 0])
        try call("timeline.detach")
        #expect(timelineEvents == ["attached", "detached"])
    }

    @Test mutating func anObserverRemovedHearsNothingMore() throws {
        try observe()
        try call("timeline.attach", ["offset": 0])
        try call("unsubscribe", ["sub": 1])
        try call("timeline.detach")
        #expect(timelineEvents == ["attached"])
    }

    @Test mutating func attachingAgainOnlyScrubs() throws {
        try observe()
        try call("timeline.attach", ["offset": 0])
        try call("timeline.attach", ["offset": 0.5])
        #expect(timelineEvents == ["attached", "scrubbed(0.5)"])
    }

    @Test mutating func reattachingToAnotherOffsetScrubs() throws {
        try observe()
        try call("timeline.attach", ["offset": 0])
        try call("timeline.detach")
        try call("timeline.attach", ["offset": 0.5])
        #expect(timelineEvents == ["attached", "detached", "attached", "scrubbed(0.5)"])
    }

    @Test mutating func reattachingToTheSameOffsetDoesNotScrub() throws {
        try observe()
        try call("timeline.attach", ["offset": 0])
        try call("timeline.detach")
        try call("timeline.attach", ["offset": 0])
        #expect(timelineEvents == ["attached", "detached", "attached"])
    }

    @Test mutating func scrubbedOnlyWhenTheOffsetChanges() throws {
        try call("timeline.attach", ["offset": 0])
        try observe()
        for offset in [10, 0, 0.5, 0.5] { try call("timeline.scrub", ["offset": .number(offset)]) }
        #expect(timelineEvents == ["scrubbed(10.0)", "scrubbed(0.0)", "scrubbed(0.5)"])
    }

    @Test mutating func aDetachedScrubberScrubsNothing() throws {
        try call("timeline.attach", ["offset": 0])
        try call("timeline.detach")
        try observe()
        for offset in [10, 0, 0.5] {
            #expect(send("timeline.scrub", ["offset": .number(offset)])?["error"]?["code"] == "timeline.not_attached")
        }
        #expect(timelineEvents == [])
    }

    /// Case 8 (`begin()` / `beginTime`): a runtime's timeline begins when the runtime is created and
    /// cannot be begun twice; its clock is reported by every timeline method.
    @Test mutating func theClockStartsWithTheRuntimeAndStopsWhileAttached() throws {
        for _ in 0..<12 { context.tick(dt: 0.01) }
        let attached = try call("timeline.attach", ["offset": 0])
        #expect(abs((attached["clock"]?.doubleValue ?? 0) - 0.12) < 1e-9)
        for _ in 0..<10 { context.tick(dt: 0.01) }
        #expect(abs((try call("timeline.scrub", ["offset": 0])["clock"]?.doubleValue ?? 0) - 0.12) < 1e-9, "paused")
        let detached = try call("timeline.detach")
        for _ in 0..<5 { context.tick(dt: 0.01) }
        #expect(abs((detached["clock"]?.doubleValue ?? 0) - 0.12) < 1e-9)
        #expect(abs((context.engine.timelines.clock(ofRuntime: "0/default") ?? 0) - 0.17) < 1e-9)
    }

    // Scrubbing physics: springs replay deterministically from their start state.

    @Test mutating func scrubbingASpringShowsWhereItWasAtThatTime() throws {
        let spring: JSONValue = ["type": "Spring", "property": "p", "from": [0, 0], "to": [100, -50], "tension": 150, "damping": 8]
        try call("plan.add", ["target": "ball", "plan": spring])
        for _ in 0..<120 { context.tick(dt: 1.0 / 120) }
        let live = try #require(context.engine.value(of: "p", target: "ball", runtime: "0/default"))
        let samples = try call("plan.sample", ["plan": spring, "times": [0.25, 0.6, 0.1]])["samples"]?.arrayValue ?? []
        try call("timeline.attach", ["offset": 0.25])
        for (index, offset) in [0.25, 0.6, 0.1].enumerated() {
            try call("timeline.scrub", ["offset": .number(offset)])
            let shown = try #require(context.engine.value(of: "p", target: "ball", runtime: "0/default"))
            let expected = (samples[index]["value"]?.arrayValue ?? []).compactMap(\.doubleValue)
            #expect(zip(shown, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "at \(offset): \(shown) vs \(expected)")
        }
        for _ in 0..<30 { context.tick(dt: 1.0 / 120) }
        let stillScrubbed = try #require(context.engine.value(of: "p", target: "ball", runtime: "0/default"))
        #expect(zip(stillScrubbed, (samples[2]["value"]?.arrayValue ?? []).compactMap(\.doubleValue)).allSatisfy { abs($0 - $1) < 1e-9 },
                "paused: ticks do not move a scrubbed runtime")
        try call("timeline.detach")
        #expect(context.engine.value(of: "p", target: "ball", runtime: "0/default") == live, "detach shows the live state again")
        context.tick(dt: 1.0 / 120)
        let moved = try #require(context.engine.value(of: "p", target: "ball", runtime: "0/default"))
        #expect(moved != live && abs(moved[0] - live[0]) < 5, "and the spring carries on from where it paused")
    }

    /// The shipped performers advance in one batch per factory (`motion.batch/1`): a paused runtime's
    /// performers are left out of the batch while the others move exactly as they would on their own.
    @Test mutating func aPausedRuntimeStaysWhileTheOthersInTheBatchMove() throws {
        let spring: JSONValue = ["type": "Spring", "property": "p", "from": [0, 0], "to": [100, -50], "tension": 150, "damping": 8]
        try call("runtime.create", ["name": "held"])
        try call("plan.add", ["target": "alone", "plan": spring])
        try call("plan.add", ["target": "moving", "plan": spring])
        try call("plan.add", ["runtime": "held", "target": "held", "plan": spring])
        for _ in 0..<12 { context.tick(dt: 1.0 / 120) }
        try call("timeline.attach", ["runtime": "held", "offset": 0.05])
        let held = try #require(context.engine.value(of: "p", target: "held", runtime: "0/held"))
        for _ in 0..<24 { context.tick(dt: 1.0 / 120) }
        #expect(context.engine.value(of: "p", target: "held", runtime: "0/held") == held, "left out of the batch")
        let moving = try #require(context.engine.value(of: "p", target: "moving", runtime: "0/default"))
        #expect(moving == context.engine.value(of: "p", target: "alone", runtime: "0/default"), "two springs in one batch, each as on its own")
        let samples = try call("plan.sample", ["plan": spring, "times": [0.3]])["samples"]?.arrayValue ?? []
        let expected = (samples.first?["value"]?.arrayValue ?? []).compactMap(\.doubleValue)
        #expect(expected.count == 2 && zip(moving, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(moving) vs \(expected)")
        try call("timeline.detach", ["runtime": "held"])
        context.tick(dt: 1.0 / 120)
        #expect(context.engine.value(of: "p", target: "held", runtime: "0/held") != held, "back in the batch")
    }

    @Test mutating func scrubbingReplaysPlansInTheOrderTheyCame() throws {
        try call("plan.add", ["target": "box", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 1, "timing": "linear"]])
        for _ in 0..<60 { context.tick(dt: 1.0 / 120) }  // 0.5 s: x = 5, then retarget
        try call("plan.add", ["target": "box", "plan": ["type": "Tween", "property": "x", "to": [0], "duration": 1, "timing": "linear"]])
        for _ in 0..<60 { context.tick(dt: 1.0 / 120) }
        try call("timeline.attach", ["offset": 0.25])
        #expect(abs((context.engine.value(of: "x", target: "box", runtime: "0/default")?[0] ?? -1) - 2.5) < 1e-6)
        try call("timeline.scrub", ["offset": 1.0])
        #expect(abs((context.engine.value(of: "x", target: "box", runtime: "0/default")?[0] ?? -1) - 2.5) < 1e-6,
                "at 1.0 the second tween (from 5 at 0.5 s, to 0 over 1 s) is half way")
        #expect(send("timeline.scrub", ["offset": -1])?["error"]?["code"] == "request.invalid")
        #expect(send("timeline.attach", ["runtime": "nope"])?["error"]?["code"] == "runtime.not_found")
    }

    /// Composites scrub as they ran: a Sequence replayed to any offset shows its step of that moment, as
    /// `plan.sample` computes it (docs/vocabulary.md: deterministic evaluation of composites).
    @Test mutating func scrubbingReplaysASequence() throws {
        let sequence: JSONValue = ["type": "Sequence", "steps": [
            ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 0.5, "timing": "linear"],
            ["type": "Tween", "property": "x", "to": [30], "duration": 0.5, "timing": "linear"]]]
        try call("plan.add", ["target": "box", "plan": sequence])
        for _ in 0..<150 { context.tick(dt: 1.0 / 120) }
        for (offset, expected) in [(0.25, 5.0), (0.75, 20.0), (0.5, 10.0), (1.2, 30.0)] {
            try call("timeline.attach", ["offset": .number(offset)])
            let scrubbed = context.engine.value(of: "x", target: "box", runtime: "0/default")?[0] ?? -1
            let sampled = (try call("plan.sample", ["plan": sequence, "times": [.number(offset)]])["samples"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue) ?? -2
            #expect(abs(scrubbed - expected) < 1e-6 && abs(scrubbed - sampled) < 1e-6, "at \(offset): scrubbed \(scrubbed), sampled \(sampled)")
        }
        try call("timeline.detach")
    }
}
