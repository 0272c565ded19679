import Logging
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// docs/protocol.md, display-timed frames with a manual clock: the engine loop's ticks and wake-ups are simulated with chosen
/// CLOCK_MONOTONIC times, so the schedule maths is checked to the nanosecond.
@Suite("Display-timed frames")
struct DisplayFramesTests {
    let output = RecordingOutput()
    /// The engine's clock, moved by hand to each simulated tick and wake-up: event times and a display's
    /// default vblank are read from it, as the daemon reads CLOCK_MONOTONIC.
    let clock = ManualClock(monotonic: 1_000_000_000)
    let context: EngineContext
    var nextID = 0
    /// When each line appeared (the simulated clock), by line index.
    var appeared: [UInt64] = []

    init() throws {
        context = EngineContext(engine: try ShippedPlanSchemaTests.engine(["TweenPlugin"]),
                                settings: EngineSettings(), logger: Logger(label: "test"), clock: clock)
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
    }

    @discardableResult
    mutating func call(_ method: String, _ params: JSONValue) -> JSONValue {
        nextID += 1
        context.receive(line: JSONWriter.bytes(["id": .number(Double(nextID)), "method": .string(method), "params": params]), from: 1)
        let reply = output.lines.last { $0["id"] == .number(Double(nextID)) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    /// Runs the clock from `start` for `seconds` as the engine loop would: a tick every 1/120 s (only
    /// while the context wants ticks, as the loop does, when `idles`), and in between a wake-up at each
    /// held frame's send time.
    mutating func run(from start: UInt64, seconds: Double, idles: Bool = false) {
        let tick: UInt64 = 8_333_333
        var now = start
        let end = start + UInt64(seconds * 1e9)
        var nextTick = start
        while now < end {
            if now > clock.now() { clock.advance(nanoseconds: now - clock.now()) }
            if now >= nextTick {
                if !idles || context.wantsTicks { context.tick(dt: 1.0 / 120, now: now) }
                nextTick += tick
            }
            record(until: now)
            let held = context.nextHeldFrame ?? .max
            now = min(nextTick, held)
            if held <= now { context.releaseHeldFrames(now: now) }
            record(until: now)
        }
    }

    mutating func record(until now: UInt64) {
        while appeared.count < output.lines.count { appeared.append(now) }
    }

    func frames(_ sub: Int) -> [(present: Double, value: Double, at: UInt64)] {
        output.lines.indices.compactMap { index in
            let line = output.lines[index]
            guard line["event"] == "frame", line["sub"]?.intValue == sub, let present = line["present"]?.doubleValue,
                  let value = line["updates"]?.arrayValue?.first?["value"]?.arrayValue?.first?.doubleValue else { return nil }
            return (present, value, appeared[index])
        }
    }

    @Test mutating func eachDisplayGetsOneFramePerVblankWithValuesExactAtPresent() throws {
        let start: UInt64 = 1_000_000_000
        let sixty = call("subscribe", ["streams": ["frames"], "display": ["period": .number(1.0 / 60), "vblank": 1.0]])
        let fast = call("subscribe", ["streams": ["frames"], "display": ["period": .number(1.0 / 144), "vblank": 1.001, "latency": 0.004, "lead": 0.001]])
        let rate = call("subscribe", ["streams": ["frames"]])
        let filtered = call("subscribe", ["streams": ["frames"], "targets": ["a"]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 10, "timing": "linear"]])
        record(until: start)
        run(from: start, seconds: 2)
        for (sub, period, latency, lead, phase) in [(sixty, 1.0 / 60, 1.0 / 60, 0.002, 1.0), (fast, 1.0 / 144, 0.004, 0.001, 1.001)] {
            let received = frames(sub["sub"]?.intValue ?? -1)
            #expect(Double(received.count) >= 2 * (1 / period) - 3, "\(received.count) frames in 2 s at \(1 / period) Hz")
            for (previous, frame) in zip(received, received.dropFirst()) {
                #expect(abs(frame.present - previous.present - period) < 1e-8, "one frame per vblank: \(previous.present) → \(frame.present)")
                #expect(frame.value > previous.value, "never a repeated value")
            }
            for frame in received {
                // The tween started at the engine state's time at the first tick (one horizon ahead of the
                // wall clock: 1 s + 18.7 ms lookahead + one 8.3 ms tick): value = present − that, exactly.
                let origin = 1.0 + (1.0 / 60 + 0.002) + 0.008333333
                #expect(abs(frame.value - (frame.present - origin)) < 1e-8, "exact at present: \(frame.value) at \(frame.present)")
                let vblank = frame.present - latency
                // Periods are whole nanoseconds: 1/60 s drifts 0.33 ns per frame from the exact fraction.
                #expect(abs((vblank - phase) / period - ((vblank - phase) / period).rounded()) < 1e-4, "in phase with its vblanks")
                let sendAt = vblank - lead
                #expect(Double(frame.at) / 1e9 >= sendAt - 1e-9, "not before its send time")
                #expect(Double(frame.at) / 1e9 <= sendAt + 1e-6, "not after it: sent at \(Double(frame.at) / 1e9), due \(sendAt)")
            }
        }
        let rateFrames = output.lines.filter { $0["event"] == "frame" && $0["sub"] == rate["sub"] }
        #expect(rateFrames.count >= 238 && rateFrames.allSatisfy { $0["present"] == nil }, "the --rate subscriber is unchanged: \(rateFrames.count)")
        // Values written at the displays' steps were never the --rate subscribers' to see: not counted as
        // dropped (a reader that keeps up saw `dropped` rise with another uid's displays).
        for sub in [rate, filtered] {
            let lines = output.lines.filter { $0["event"] == "frame" && $0["sub"] == sub["sub"] }
            #expect(lines.count >= 238 && lines.allSatisfy { $0["dropped"] == 0 }, "\(lines.compactMap { $0["dropped"]?.intValue }.reduce(0, +)) dropped")
        }
    }

    @Test mutating func displaySyncRephasesAndBadDisplaysAreRefused() throws {
        let sub = call("subscribe", ["streams": ["frames"], "display": ["period": 0.02, "vblank": 1.0]])["sub"]?.intValue ?? -1
        _ = call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 10, "timing": "linear"]])
        run(from: 1_000_000_000, seconds: 0.5)
        #expect(call("display.sync", ["sub": .number(Double(sub)), "vblank": 1.505])["sub"] != nil)
        let before = frames(sub).count
        run(from: 1_500_000_000, seconds: 0.5)
        let after = frames(sub).dropFirst(before + 2)
        #expect(!after.isEmpty && after.allSatisfy { abs(($0.present - 0.02 - 1.505) / 0.02 - (($0.present - 0.02 - 1.505) / 0.02).rounded()) < 1e-4 },
                "frames follow the new phase: \(after.map(\.present))")
        #expect(call("subscribe", ["streams": ["frames"], "display": ["period": 0]])["code"] == "request.invalid")
        #expect(call("subscribe", ["streams": ["trace"], "display": ["period": 0.01]])["code"] == "request.invalid")
        #expect(call("subscribe", ["streams": ["frames"], "display": ["period": 0.01, "phase": 1]])["code"] == "request.invalid")
        #expect(call("display.sync", ["sub": 99, "vblank": 1])["code"] == "subscription.not_found")
        for index in 0..<3 { _ = call("subscribe", ["streams": ["frames"], "display": ["period": .number(0.01 + Double(index) * 0.001)]]) }
        #expect(call("subscribe", ["streams": ["frames"], "display": ["period": 0.05]])["code"] == "request.limit", "four distinct displays per uid")
    }

    /// The engine's one state runs ahead by the largest `latency + lead` of any display, and every display
    /// subscriber's changes show that much later: one with a 1 s latency delayed everyone's plan.add by 1 s.
    /// Latency is at most 0.1 s (its default, one period, too) and lead at most 0.05 s.
    @Test mutating func latencyAndLeadAreBounded() throws {
        let latency = call("subscribe", ["streams": ["frames"], "display": ["period": 0.02, "latency": 0.5]])
        #expect(latency["code"] == "request.invalid" && latency["message"] == "display.latency: expected 0.0 to 0.1 seconds", "\(latency)")
        let lead = call("subscribe", ["streams": ["frames"], "display": ["period": 0.02, "lead": 0.08]])
        #expect(lead["code"] == "request.invalid" && lead["message"] == "display.lead: expected 0.0 to 0.05 seconds", "\(lead)")
        let slow = call("subscribe", ["streams": ["frames"], "display": ["period": 0.5, "vblank": 1.0]])["sub"]?.intValue ?? -1
        _ = call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 10, "timing": "linear"]])
        run(from: 1_000_000_000, seconds: 2)
        let presents = frames(slow).map(\.present)
        #expect(!presents.isEmpty && presents.allSatisfy { abs(($0 - 1.1) / 0.5 - (($0 - 1.1) / 0.5).rounded()) < 1e-6 },
                "a 2 Hz display's default latency is 0.1 s, not one period: \(presents)")
    }

    /// An animation's last value, written at a step that was not a present, and a `Set` on a runtime where
    /// nothing moves, both reach the display subscriber at its next present (they were kept pending
    /// until something else moved); then the clock stops.
    @Test mutating func theLastValueAndASetOnAnIdleRuntimeReachTheDisplay() throws {
        let sub = call("subscribe", ["streams": ["frames"], "display": ["period": 0.1, "vblank": 1.0]])["sub"]?.intValue ?? -1
        _ = call("plan.add", ["target": "d", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 0.3, "timing": "linear"]])
        context.publishControlFrame()
        record(until: 1_000_000_000)
        run(from: 1_000_000_000, seconds: 1, idles: true)
        let tween = frames(sub)
        #expect(tween.last?.value == 1, "the tween's final value: \(tween.map(\.value))")
        #expect(!context.wantsTicks, "nothing left to send")
        _ = call("plan.add", ["target": "e", "plan": ["type": "Tween", "property": "x", "from": [0.5], "to": [0.5], "duration": 0]])
        context.publishControlFrame()
        #expect(context.wantsTicks, "a value waits for the display")
        run(from: 2_000_000_000, seconds: 0.5, idles: true)
        let set = output.lines.filter { $0["event"] == "frame" && $0["sub"]?.intValue == sub }
            .compactMap { $0["updates"]?.arrayValue?.first { $0["target"] == "e" } }
        #expect(set.count == 1 && set.first?["value"] == [0.5], "the idle runtime's value, once: \(set)")
        #expect(!context.wantsTicks)
    }

    /// Issue #22: a control frame carries only what changed: a plan that starts where its property is
    /// sends no frame repeating the value.
    @Test mutating func aPlanThatStartsWhereItsPropertyIsRepeatsNothing() throws {
        _ = call("subscribe", ["streams": ["frames"]])
        _ = call("plan.add", ["target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 1, "timing": "linear"]])
        context.publishControlFrame()
        for _ in 0..<12 { context.tick(dt: 1.0 / 120) }
        let before = output.lines.filter { $0["event"] == "frame" }.count
        let x = context.engine.value(of: "x", target: "a", runtime: "0/default") ?? []
        _ = call("plan.add", ["target": "c", "plan": ["type": "Tween", "property": "z", "from": [5], "to": [5], "duration": 0]])
        context.publishControlFrame()
        _ = call("plan.add", ["target": "c", "plan": ["type": "Tween", "property": "z", "from": [5], "to": [5], "duration": 0]])
        _ = call("plan.add", ["target": "b", "plan": ["type": "Tween", "property": "y", "from": [0], "to": [1], "duration": 1]])
        context.publishControlFrame()
        let control = output.lines.filter { $0["event"] == "frame" }.dropFirst(before)
        #expect(control.count == 2 && control.last?["updates"]?.arrayValue?.count == 1, "the same value again sends nothing: \(Array(control))")
        #expect(control.last?["updates"]?.arrayValue?.first?["target"] == "b" && !x.isEmpty)
        for _ in 0..<3 { context.tick(dt: 1.0 / 120) }
        let values = output.lines.filter { $0["event"] == "frame" }.compactMap { line in
            line["updates"]?.arrayValue?.first { $0["target"] == "a" }?["value"]?.arrayValue?.first?.doubleValue
        }
        for (previous, value) in zip(values, values.dropFirst()) { #expect(value != previous, "no repeated value: \(values)") }
    }

    /// An animation that ends between two vblanks (its last value written at a `--rate` step) reaches a
    /// display subscriber before `runtime.idle`: the event waits for the frame that carries the value
    /// (before, 6 of 10 springs on a 60 Hz display ended 0.01 short in the last frame before the idle).
    @Test mutating func theLastValueComesBeforeRuntimeIdleOnADisplay() throws {
        let start: UInt64 = 1_000_000_000
        for (index, duration) in [0.1234, 0.2, 0.0917, 0.15, 0.3333].enumerated() {
            let runtime = "r\(index)"
            _ = call("runtime.create", ["name": .string(runtime)])
            let sub = call("subscribe", ["streams": ["frames", "trace"], "runtime": .string(runtime),
                                         "display": ["period": .number(1.0 / 60), "vblank": 1.0]])["sub"]
            _ = call("plan.add", ["runtime": .string(runtime), "target": "a",
                                  "plan": ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": .number(duration)]])
            let from = clock.now()
            record(until: from)
            run(from: from, seconds: 1)
            let lines = output.lines.filter { $0["sub"] == sub }
            guard let idle = lines.firstIndex(where: { $0["kind"] == "runtime.idle" }) else {
                Issue.record("no runtime.idle for a tween of \(duration) s")
                continue
            }
            let last = lines[..<idle].last { $0["event"] == "frame" }
            #expect(last?["updates"]?.arrayValue?.first?["value"] == [10], "duration \(duration): \(String(describing: last))")
            _ = start
        }
    }
}
