import MotionWire

/// `plan.sample`: performs a plan in a dry-run runtime of its own and reads the animated property at each
/// time asked (seconds from the start), in slices. Nothing a client can see is touched.
final class SampleWork: SlicedWork {
    private let plan: JSONValue
    /// The tokens that filled the plan in: a refusal names them, as `plan.add`'s does.
    private let tokens: Set<String>
    private let property: String
    private let times: [Double]
    /// Indices of `times`, earliest first.
    private let order: [Int]
    private let runtime: String
    private let frame: Double
    private var position = 0
    private var now = 0.0
    private var started = false
    /// `{"t":…,"value":…,"velocity":…}` per time asked, in the order asked: encoded as they are read.
    private var samples: [[UInt8]]
    private var encoded: [UInt8] = []
    private var written = 0
    /// Recorded gestures to replay (docs/vocabulary.md#interactions): samples timed from the plan's start, applied at their exact
    /// times in time order (samples of one gesture with one time together).
    private let gestureEvents: [(time: Double, gesture: String, samples: [GestureSample])]
    private var nextGestureEvent = 0
    /// When the plan's animation ended (its runtime went idle), sought after the last time asked; nil
    /// while unknown, `.infinity` if it still ran at `maximumSampleTime`.
    private var settlingDuration: Double?
    /// Each step's length, as taken (without gestures): replayed to find the exact settling time.
    private var taken: [Double] = []
    /// The step in which the runtime went idle: `settlingDuration` is narrowed inside it (`Settling`).
    private var settling: Settling?
    /// The plan as written (speed 1, no reduce motion: `.off`, 1), or under the daemon's settings
    /// (`"applySettings": true`, docs/vocabulary.md#speed-and-reduce-motion): which plans complete at once, and animation seconds per second.
    private let instantMotion: InstantMotion
    private let speed: Double
    /// `property` is not one the plan names: whether the plan's plugin animated it is seen once it has run
    /// (a plugin may make its property at its first step).
    private let checksAnimated: Bool

    /// `property` chooses which of a composite's properties is read (default: its first leaf's).
    init(plan: JSONValue, tokens: Set<String> = [], property: String? = nil, times: [Double], runtime: String, frame: Double,
         gestures: [String: [GestureSample]] = [:], settings: EngineSettings? = nil) throws(EngineError) {
        instantMotion = settings?.instantMotion ?? .off
        speed = settings?.tickScale ?? 1
        let driven = Composite.properties(of: plan)
        // A leaf with no `property` key animates what its plugin chooses (docs/plugins.md's Wobble): which
        // of them to read is asked for, and checked once the plan runs (`checkAnimated`).
        let choosesItsOwn = driven.count < Composite.leafCount(of: plan)
        guard let property = property ?? driven.first else {
            throw EngineError(.invalidRequest, choosesItsOwn
                ? "property: expected a string (the plan names no property: its plugin chooses what it animates; say which to sample)"
                : "plan.property: expected a string (the property to sample)")
        }
        guard driven.contains(property) || choosesItsOwn else {
            throw EngineError(.invalidRequest, "property: the plan does not animate \"\(property)\" (it animates \(driven.joined(separator: ", ")))")
        }
        checksAnimated = !driven.contains(property)
        // With recorded gestures, every gesture the plan reads must be among them: a name that is not
        // sampled a plan that never moved, answered as if it had settled.
        if !gestures.isEmpty, let missing = Self.gestureNames(in: plan).subtracting(gestures.keys).sorted().first {
            throw EngineError(.invalidRequest, "gestures: the plan reads gesture \"\(missing)\", which gestures does not hold (it holds \(gestures.keys.sorted().joined(separator: ", ")))")
        }
        self.plan = plan
        self.tokens = tokens
        self.property = property
        self.times = times
        self.order = times.indices.sorted { times[$0] < times[$1] }
        self.runtime = runtime
        self.frame = frame
        self.samples = Array(repeating: [], count: times.count)
        var events: [(time: Double, gesture: String, samples: [GestureSample])] = []
        for (name, recorded) in gestures.sorted(by: { $0.key < $1.key }) {
            for sample in recorded {
                if let last = events.last, last.gesture == name, last.time == sample.sample.time {
                    events[events.count - 1].samples.append(sample)
                } else {
                    events.append((sample.sample.time, name, [sample]))
                }
            }
        }
        // Stable: one gesture's samples keep their order; gestures sorted by name at equal times.
        gestureEvents = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// The gestures a plan reads: its leaves' `gesture` names, composites' steps included.
    static func gestureNames(in plan: JSONValue) -> Set<String> {
        switch plan {
        case .object(let members):
            var names = members.values.reduce(into: Set<String>()) { $0.formUnion(gestureNames(in: $1)) }
            if case .string(let name)? = members["gesture"] { names.insert(name) }
            return names
        case .array(let elements):
            return elements.reduce(into: Set<String>()) { $0.formUnion(gestureNames(in: $1)) }
        default:
            return []
        }
    }

    /// Advances the dry run by `dt`, applying the recorded gesture samples due on the way at their
    /// exact times (so a sample never depends on the times asked for).
    private func advance(_ engine: Engine, by dt: Double) {
        var target = now + dt
        while nextGestureEvent < gestureEvents.count, gestureEvents[nextGestureEvent].time <= target + 1e-12 {
            let event = gestureEvents[nextGestureEvent]
            if event.time - now > 1e-12 {
                engine.advance(runtime: runtime, by: (event.time - now) * speed)
                now = event.time
            }
            if let scope = engine.runtimes[runtime] { engine.gestures.apply(event.samples, toGesture: event.gesture, in: scope) }
            nextGestureEvent += 1
            target = max(target, now)
        }
        if target - now > 1e-12 {
            engine.advance(runtime: runtime, by: (target - now) * speed)
            if gestureEvents.isEmpty { taken.append((target - now) * speed) }
        }
        now = target
    }

    /// The runtime just went idle at `now`: the rule first held inside the step just taken.
    private func wentIdle() {
        settlingDuration = now
        guard gestureEvents.isEmpty, let last = taken.last else { return }
        settling = Settling(steps: taken.count - 1, low: (now - last / speed) * speed, high: now * speed)
    }

    func work(in context: EngineContext, until deadline: UInt64) throws(EngineError) -> Bool {
        // Plans added in this slice (the plan, a sequence's next step) complete at once or not as the
        // sample asks, whatever the daemon's settings are for everyone else.
        let engine = context.engine, shared = engine.composition.instantMotion
        engine.composition.instantMotion = instantMotion
        defer { engine.composition.instantMotion = shared }
        if !started {
            started = true
            try engine.createRuntime(runtime, dryRun: true)
            try Themes.namingTokens(tokens) { () throws(EngineError) in try engine.addPlan(plan, to: "sample", in: runtime) }
            // A gesture sample at 0 applies before the first value is read.
            advance(engine, by: 0)
            if !engine.isActive(runtime: runtime), gestureEvents.isEmpty { settlingDuration = 0 }
        }
        var steps = 0
        while position < order.count {
            let index = order[position]
            // Advance in frame-sized steps, as the clock would: a tween's velocity is a per-frame
            // difference, and simulations are step-size independent anyway.
            while times[index] - now > 1e-12 {
                let dt = min(frame, times[index] - now)
                advance(engine, by: dt)
                steps += 1
                if settlingDuration == nil, !engine.isActive(runtime: runtime), nextGestureEvent == gestureEvents.count {
                    wentIdle()
                }
                if steps & 7 == 0, WorkClock.now() >= deadline { return false }
            }
            let value = engine.value(of: property, target: "sample", runtime: runtime) ?? []
            let velocity = (engine.velocity(of: property, target: "sample", runtime: runtime) ?? []).map { $0 * speed }
            samples[index] = JSONWriter.bytes(["t": .number(times[index]), "value": JSONValue(value), "velocity": JSONValue(velocity)])
            position += 1
            // Reading takes time too: 10,000 equal times need no step between them.
            if position & 63 == 0, WorkClock.now() >= deadline { return false }
        }
        // How long until it rests (docs/vocabulary.md `settlingDuration`): stepped on past the last time asked.
        while settlingDuration == nil {
            guard engine.isActive(runtime: runtime) || nextGestureEvent < gestureEvents.count else {
                wentIdle()
                break
            }
            guard now < EngineContext.maximumSampleTime else {
                settlingDuration = .infinity
                break
            }
            advance(engine, by: frame)
            steps += 1
            if steps & 7 == 0, WorkClock.now() >= deadline { return false }
        }
        if var narrowing = settling, !narrowing.isExact {
            let done = try narrowing.narrow(replaying: taken, of: plan, in: runtime, engine: engine, until: deadline)
            settling = narrowing
            guard done else { return false }
            settlingDuration = narrowing.high / speed
        }
        // The answer is assembled in slices too: 10,000 samples are about half a megabyte of text.
        if encoded.isEmpty {
            if checksAnimated { try checkAnimated(in: engine) }
            encoded = Array(#"{"property":"#.utf8)
            JSONWriter.writeString(property, into: &encoded)
            encoded += #","settlingDuration":"#.utf8
            if let settling = settlingDuration, settling.isFinite {
                JSONWriter.writeNumber((settling * 1e6).rounded() / 1e6, into: &encoded)
            } else {
                encoded += "null".utf8
            }
            encoded += #","samples":["#.utf8
        }
        while written < samples.count {
            if written > 0 { encoded.append(UInt8(ascii: ",")) }
            encoded += samples[written]
            samples[written] = []
            written += 1
            if written & 255 == 0, WorkClock.now() >= deadline { return false }
        }
        return true
    }

    /// A property the plan does not name must be one its plugin made for the target while it ran.
    private func checkAnimated(in engine: Engine) throws(EngineError) {
        let animated = engine.timelines.properties(ofRuntime: runtime).filter { $0.target == "sample" }.map(\.property).sorted()
        guard animated.contains(property) else {
            throw EngineError(.invalidRequest, "property: the plan does not animate \"\(property)\" (it animates \(animated.joined(separator: ", ")))")
        }
    }

    func finish(in context: EngineContext) throws(EngineError) -> SlicedAnswer {
        .encoded(encoded + "]}".utf8)
    }

    func end(in context: EngineContext) {
        if started { try? context.engine.destroyRuntime(runtime) }
    }
}
