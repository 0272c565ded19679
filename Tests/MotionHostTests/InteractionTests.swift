import Foundation
import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/vocabulary.md#interactions's shipped interactions, loaded from their `.so` like any plugin and driven by `gesture.push`.
@Suite("Interactions")
struct InteractionTests {
    let output = RecordingOutput()
    let context: EngineContext
    var nextID = 0

    init() throws {
        context = EngineContext(engine: try ShippedPlanSchemaTests.engine(["InteractionsPlugin", "SpringPlugin", "DecayPlugin", "TweenPlugin"]),
                                settings: EngineSettings(), logger: Logger(label: "test"))
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        _ = call("subscribe", ["streams": ["trace"]])
    }

    @discardableResult
    mutating func call(_ method: String, _ params: JSONValue) -> JSONValue {
        nextID += 1
        context.receive(line: JSONWriter.bytes(["id": .number(Double(nextID)), "method": .string(method), "params": params]), from: 1)
        let reply = output.lines.last { $0["id"] == .number(Double(nextID)) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    func value(_ property: String, _ target: String = "card") -> [Double] {
        context.engine.value(of: property, target: target, runtime: "0/default") ?? []
    }

    func velocity(_ property: String, _ target: String = "card") -> [Double] {
        context.engine.velocity(of: property, target: target, runtime: "0/default") ?? []
    }

    /// Samples 8 ms apart from `t0`, moving by `step` each.
    static func moves(from start: [Double], step: [Double], count: Int, t0: Double, began: Bool = true) -> JSONValue {
        .array((0..<count).map { index in
            ["t": .number(t0 + Double(index) * 0.008),
             "position": .array(zip(start, step).map { .number($0 + $1 * Double(index)) }),
             "phase": .string(index == 0 && began ? "began" : "moved")]
        })
    }

    @Test mutating func aDraggableFollowsThePointerAtOnceAndRubberBandsPastItsBounds() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "position", "to": [50, 50], "duration": 0]])
        #expect(call("plan.add", ["target": "card", "plan": ["type": "Draggable", "property": "position", "gesture": "finger",
                                                               "bounds": ["min": [0, 0], "max": [100, 100]]]])["performer"] != nil)
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [10, 10], step: [3, -1], count: 11, t0: 1)])
        // Applied when the samples arrived, no tick needed: 50 + 30, 50 − 10.
        #expect(value("position") == [80, 40], "\(value("position"))")
        #expect(abs(velocity("position")[0] - 375) < 1e-6, "the tracker's velocity: \(velocity("position"))")
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 1.09, "position": [110, 10]]]])
        // 100 past the start in x: 50 past the bound, D = 100, c = 0.55: 100 + (1 − 1/(50·0.55/100 + 1))·100.
        let expected = 100 + (1 - 1 / (50 * 0.55 / 100 + 1)) * 100
        #expect(abs(value("position")[0] - expected) < 1e-9, "\(value("position"))")
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 1.1, "position": [110, 10], "phase": "ended"]]])
        #expect(velocity("position") == [0, 0], "a Draggable rests where it was left")
        #expect(output.lines.last { $0["kind"] == "animation.ended" }?["reason"] == "finished")
        #expect(!context.engine.isActive(runtime: "0/default"))
    }

    /// A finger held still moves nothing: the ticks while it rests write no value (each was a repeated
    /// frame), and the next sample moves the property again.
    @Test mutating func aHeldDragRepeatsNoFrame() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Draggable", "property": "x", "gesture": "finger", "axis": "x"]])
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0, 0], step: [2, 0], count: 6, t0: 1)])
        context.engine.clearFrame()
        for tick in 0..<5 {
            context.engine.advance(by: 1.0 / 120)
            #expect(context.engine.dirtyProperties.isEmpty, "tick \(tick): nothing moved, nothing written")
            context.engine.clearFrame()
        }
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 1.2, "position": [20, 0]]]])
        #expect(value("x") == [20], "\(value("x"))")
    }

    /// Gesture handles are found by runtime and name: interning, a push and a runtime's end look at that
    /// runtime's handles only (a scan of every runtime's made each push cost what all uids interned:
    /// 3.5 ms with 50,000 names). A runtime's end forgets its handles and no other.
    @Test mutating func gestureHandlesBelongToTheirRuntime() throws {
        _ = call("runtime.create", ["name": "other"])
        for (runtime, target) in [("default", "card"), ("other", "card"), ("other", "extra")] {
            _ = call("plan.add", ["runtime": .string(runtime), "target": .string(target), "plan": ["type": "Tween", "property": "x", "to": [50], "duration": 0]])
            #expect(call("plan.add", ["runtime": .string(runtime), "target": .string(target),
                                      "plan": ["type": "Draggable", "property": "x", "gesture": "finger", "axis": "x"]])["performer"] != nil)
        }
        #expect(context.engine.gestureSlots.count == 2, "one handle per runtime and name, shared by its readers")
        _ = call("gesture.push", ["runtime": "other", "gesture": "finger", "samples": Self.moves(from: [0, 0], step: [1, 0], count: 11, t0: 1)])
        #expect(value("x") == [50], "another runtime's gesture of that name moves nothing here")
        #expect(context.engine.value(of: "x", target: "extra", runtime: "0/other") == [60])
        _ = call("runtime.destroy", ["name": "other"])
        #expect(context.engine.gestureSlots.count == 1)
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0, 0], step: [2, 0], count: 11, t0: 2)])
        #expect(value("x") == [70], "\(value("x"))")
    }

    /// docs/vocabulary.md#interactions: `plan.sample` replays a recorded gesture against the plan, deterministically: its samples
    /// apply at their own times (seconds from the plan's start), whatever times are asked.
    @Test mutating func planSampleReplaysARecordedGesture() throws {
        let plan: JSONValue = ["type": "Tossable", "property": "x", "gesture": "finger", "axis": "x",
                               "snap": [[0], [300]], "spring": ["stiffness": 200, "damping": 20]]
        guard case .array(var recorded) = Self.moves(from: [0, 0], step: [8, 0], count: 11, t0: 0) else { return }
        recorded.append(["t": 0.088, "position": [88, 0], "phase": "ended"])
        func sample(_ times: [Double]) -> (values: [Double], settling: Double?) {
            let reply = call("plan.sample", ["plan": plan, "times": .array(times.map(JSONValue.number)),
                                             "gestures": ["finger": .array(recorded)]])
            let values = reply["samples"]?.arrayValue?.map { $0["value"]?.arrayValue?.first?.doubleValue ?? .nan } ?? []
            return (values, reply["settlingDuration"]?.doubleValue)
        }
        let (values, settling) = sample([0.04, 0.08, 0.088, 3])
        #expect(values.count == 4 && values[0] == 40 && values[1] == 80 && values[2] == 88, "the drag follows the pointer: \(values)")
        #expect(abs(values[3] - 300) < 0.5, "the toss springs to the snap point nearest its projection: \(values)")
        #expect(settling.map { $0 > 0.088 && $0 < 3 } == true, "\(String(describing: settling))")
        for time in [0.05, 0.3] {
            let alone = sample([time]).values.first ?? .nan
            let among = sample([0.0131, 0.0437, 0.0901, time]).values.last ?? .nan
            #expect(abs(alone - among) < 1e-9, "t=\(time): \(alone) vs \(among)")
        }
        #expect(value("x").isEmpty, "a dry run touches nothing")
        let bad = call("plan.sample", ["plan": plan, "times": [1], "gestures": ["finger": [["t": 1, "position": "x"]]]])
        #expect(bad["code"] == "request.invalid" && bad["message"]?.stringValue?.contains("position") == true, "\(bad)")
    }

    /// The spring a Tossable hands over to is checked when the plan is added, as a Spring plan would be
    /// (mixed forms, a zero duration, a bounce of 1 were accepted, and the property stopped dead at release).
    @Test mutating func aTossablesSpringIsCheckedWhenItIsAdded() {
        func toss(_ spring: JSONValue) -> JSONValue {
            call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "spring": spring]])
        }
        let mixed = toss(["stiffness": 200, "duration": 0.5])
        #expect(mixed["code"] == "plan.invalid" && mixed["message"]?.stringValue?.hasPrefix("spring.") == true
            && mixed["message"]?.stringValue?.contains("one spring form per plan") == true, "\(mixed)")
        #expect(toss(["duration": 0])["code"] == "plan.invalid")
        #expect(toss(["stiffness": 2e9])["code"] == "plan.invalid", "stiffer than the Spring's schema allows")
        #expect(toss(["stiffness": 1e9, "dampingRatio": 1])["code"] == nil, "the stiffest spring the schema allows (exact motion has no stability limit)")
        #expect(toss(["duration": 0.4, "bounce": 0.2])["code"] == nil, "a valid spring is accepted")
        // Snap points of one dimension (a missing coordinate was taken as 0).
        let mixedSnap = call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "snap": [[0], [1, 2]]]])
        #expect(mixedSnap["code"] == "plan.invalid" && mixedSnap["message"] == "snap[1]: expected 1 number, as snap[0] (every point has one dimension)", "\(mixedSnap)")
    }

    @Test mutating func aTossableSpringsToTheNearestSnapPointWithTheReleaseVelocity() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "axis": "x",
                                                           "snap": [[0], [300]], "spring": ["stiffness": 200, "damping": 20]]])
        // 8 units per 8 ms: 1,000 units per second, from x = 0 to 80.
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0, 0], step: [8, 0], count: 11, t0: 2)])
        #expect(value("x") == [80])
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 2.088, "position": [88, 0], "phase": "ended"]]])
        // Projected rest: 80 + 1000 · 0.998 / (1000 · 0.002) = 579: the nearest snap point is 300.
        let ended = output.lines.last { $0["kind"] == "gesture.ended" }
        #expect(abs((ended?["velocity"]?.arrayValue?.first?.doubleValue ?? 0) - 1000) < 1e-6)
        // The pointer lifted at 88 (the `ended` sample moves the property, though the tracker leaves it out).
        #expect(value("x") == [88] && abs(velocity("x")[0] - 1000) < 1e-6, "the spring starts where the drag left, with its velocity: \(value("x")) \(velocity("x"))")
        let spring = output.lines.last { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }
        #expect(spring?["plan"]?["to"] == [300], "\(String(describing: spring))")
        context.tick(dt: 1.0 / 120)
        #expect(abs(value("x")[0] - (88 + 1000.0 / 120)) < 2, "no jump in value or velocity at the hand-over: \(value("x"))")
        for _ in 0..<600 { context.tick(dt: 1.0 / 120) }
        #expect(abs(value("x")[0] - 300) < 0.5, "it comes to rest at the snap point: \(value("x"))")
    }

    /// A client that batches samples: the whole flick (began … ended) in one `gesture.push` is the same
    /// drag and release as when it comes in two (docs/protocol.md, gesture.push: every sample and phase applied in order).
    @Test mutating func aWholeFlickInOnePushSettlesOnTheSnapPointWithTheReleaseVelocity() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "axis": "x",
                                                           "snap": [[0], [300]], "spring": ["stiffness": 200, "damping": 20]]])
        let flick = (Self.moves(from: [0, 0], step: [8, 0], count: 11, t0: 2).arrayValue ?? [])
            + [["t": 2.088, "position": [88, 0], "phase": "ended"]]
        _ = call("gesture.push", ["gesture": "finger", "samples": .array(flick)])
        let spring = output.lines.last { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }
        #expect(spring?["plan"]?["to"] == [300], "handed over to the snap point nearest the projection: \(String(describing: spring))")
        #expect(value("x") == [88] && abs(velocity("x")[0] - 1000) < 1e-6, "from the release, with its velocity: \(value("x")) \(velocity("x"))")
        for _ in 0..<600 { context.tick(dt: 1.0 / 120) }
        #expect(abs(value("x")[0] - 300) < 0.5, "it comes to rest at the snap point: \(value("x"))")
        // Two whole gestures in one push: the second starts from where the first left the property.
        _ = call("gesture.push", ["gesture": "finger", "samples": .array(
            (Self.moves(from: [0, 0], step: [-8, 0], count: 11, t0: 20).arrayValue ?? []) + [["t": 20.088, "position": [-88, 0], "phase": "ended"]]
            + (Self.moves(from: [0, 0], step: [8, 0], count: 11, t0: 21).arrayValue ?? []) + [["t": 21.088, "position": [88, 0], "phase": "ended"]])])
        let last = output.lines.last { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }
        #expect(last?["plan"]?["to"] == [300], "the second flick's hand-over: \(String(describing: last))")
        let releases = output.lines.filter { $0["kind"] == "gesture.ended" }.suffix(2)
        #expect(releases.count == 2 && releases.allSatisfy { abs(abs($0["velocity"]?.arrayValue?.first?.doubleValue ?? 0) - 1000) < 1e-6 },
                "\(releases)")
    }

    @Test mutating func withoutSnapPointsATossDecaysAndACancelSpringsBack() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "axis": "x"]])
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0, 0], step: [4, 0], count: 11, t0: 3)])
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 3.09, "position": [44, 0], "phase": "ended"]]])
        let decay = output.lines.last { $0["kind"] == "plan.added" && $0["planType"] == "Decay" }
        #expect(abs((decay?["plan"]?["drag"]?.doubleValue ?? 0) - -1000 * log(0.998)) < 1e-9, "\(String(describing: decay))")
        #expect(abs((decay?["plan"]?["velocity"]?.arrayValue?.first?.doubleValue ?? 0) - 500) < 1e-6)

        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0, 0], step: [5, 0], count: 5, t0: 10)])
        let start = value("x")[0] - 20
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 10.05, "position": [20, 0], "phase": "cancelled"]]])
        let back = output.lines.last { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }
        #expect(abs((back?["plan"]?["to"]?.arrayValue?.first?.doubleValue ?? .nan) - start) < 1e-9, "cancelled springs back to where it began")
        #expect(back?["plan"]?["velocity"] == [0])
    }

    @Test mutating func aNewPlanInterruptsADrag() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Draggable", "property": "x", "gesture": "finger"]])
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0], step: [1], count: 3, t0: 1)])
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [0], "duration": 0.1]])
        #expect(output.lines.contains { $0["kind"] == "animation.ended" && $0["reason"] == "interrupted" && $0["property"] == "x" },
                "\(output.lines.compactMap { $0["kind"]?.stringValue })")
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 1.1, "position": [50]]]])
        #expect(value("x") != [52], "the drag no longer writes")
        #expect(call("plan.add", ["target": "card", "plan": ["type": "Draggable", "property": "x", "gesture": "finger", "axis": "z"]])["code"] == "plan.invalid")
    }

    /// Without snap points, a toss that would decay past a bound hands over to a spring where and when it
    /// crosses, with the decay's velocity there: no jump in value or velocity, and it rests at the bound.
    @Test mutating func aTossPastABoundHandsOverToASpringAtTheCrossing() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [50], "duration": 0]])
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "axis": "x",
                                                           "bounds": ["min": [0], "max": [100]], "spring": ["stiffness": 300, "damping": 30]]])
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0], step: [8], count: 2, t0: 4)])
        let afterDrag = value("x")[0]
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 4.016, "position": [8], "phase": "ended"]]])
        // Two samples: fewer than 3, so the release velocity is 0 and it rests in place. Now a real throw:
        #expect(abs(value("x")[0] - afterDrag) < 1e-9)
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0], step: [8], count: 6, t0: 5)])
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 5.048, "position": [40], "phase": "ended"]]])
        let released = value("x")[0]
        let handOver = try #require(output.lines.last { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }?["plan"])
        let drag = -1000 * log(0.998), v = 1000.0
        let crossing = -log(1 - (100 - released) * drag / v) / drag
        #expect(abs((handOver["delay"]?.doubleValue ?? 0) - crossing) < 1e-9, "\(handOver)")
        #expect(abs((handOver["from"]?.arrayValue?.first?.doubleValue ?? 0) - 100) < 1e-6, "it takes over at the bound")
        #expect(abs((handOver["velocity"]?.arrayValue?.first?.doubleValue ?? 0) - v * exp(-drag * crossing)) < 1e-6)
        var previous = released, largestStep = 0.0
        for _ in 0..<240 {
            context.tick(dt: 1.0 / 120)
            let x = value("x")[0]
            largestStep = max(largestStep, abs(x - previous))
            previous = x
        }
        #expect(largestStep <= v / 120 * 1.05, "no jump: the largest step is \(largestStep)")
        #expect(abs(previous - 100) < 1, "it comes back to rest at the bound: \(previous)")
    }

    /// Timeline scrubbing replays the gesture's samples at the times they came: the drag shows where it
    /// was at the offset scrubbed to, the same every time.
    @Test mutating func scrubbingReplaysAGesture() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Draggable", "property": "x", "gesture": "finger", "axis": "x"]])
        for step in 0..<10 {
            _ = call("gesture.push", ["gesture": "finger", "samples": [["t": .number(7 + Double(step) * 0.1), "position": [.number(Double(step) * 10)],
                                                                       "phase": step == 0 ? "began" : "moved"]]])
            for _ in 0..<12 { context.tick(dt: 0.1 / 12) }
        }
        #expect(value("x") == [90])
        let at = call("timeline.attach", ["offset": 0.45])
        #expect(at["attached"] == true, "\(at)")
        // Samples came at runtime times 0, 0.1, …: at 0.45 s the pointer had moved to 40.
        #expect(value("x") == [40], "\(value("x"))")
        _ = call("timeline.scrub", ["offset": 0.05])
        #expect(value("x") == [0])
        _ = call("timeline.detach", [:])
        #expect(value("x") == [90])
    }

    /// Grabbing the card again before a toss reaches its bound: the spring waiting for the crossing is
    /// dropped (the newer claim wins), and the new drag is not interrupted by it.
    @Test mutating func aNewDragCancelsAWaitingHandOver() throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [50], "duration": 0]])
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tossable", "property": "x", "gesture": "finger", "axis": "x",
                                                           "bounds": ["min": [0], "max": [100]]]])
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0], step: [8], count: 6, t0: 5)])
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 5.048, "position": [40], "phase": "ended"]]])
        #expect(output.lines.contains { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }, "a hand-over waits for the crossing")
        context.tick(dt: 1.0 / 120)
        // Pulled back left, inside the bounds (no rubber band in the way).
        _ = call("gesture.push", ["gesture": "finger", "samples": Self.moves(from: [0], step: [-1], count: 3, t0: 6)])
        let start = value("x")[0]
        for _ in 0..<120 { context.tick(dt: 1.0 / 120) }
        _ = call("gesture.push", ["gesture": "finger", "samples": [["t": 6.03, "position": [-5]]]])
        let kinds = output.lines.compactMap { line -> String? in
            guard let kind = line["kind"]?.stringValue else { return nil }
            return kind + " " + (line["planType"]?.stringValue ?? line["reason"]?.stringValue ?? "")
        }
        #expect(abs(value("x")[0] - (start - 3)) < 1e-9, "the new drag still follows the pointer: \(value("x")) from \(start) \(kinds.suffix(25))")
        #expect(kinds.contains("animation.ended Spring"), "the waiting spring was dropped")
    }
}

