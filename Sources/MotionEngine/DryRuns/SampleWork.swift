import MotionWire

/// `plan.sample`: performs a plan in a dry-run runtime of its own and reads the animated property at each
/// time asked (seconds from the start), in slices. Nothing a client can see is touched.
final class SampleWork: SlicedWork {
    private let plan: JSONValue
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
    /// When the plan's animation ended (its runtime went idle), sought after the last time asked; nil
    /// while unknown, `.infinity` if it still ran at `maximumSampleTime`.
    private var settlingDuration: Double?

    /// `property` chooses which of a composite's properties is read (default: its first leaf's).
    init(plan: JSONValue, property: String? = nil, times: [Double], runtime: String, frame: Double) throws(EngineError) {
        let driven = Composite.properties(of: plan)
        guard let property = property ?? driven.first else {
            throw EngineError(.invalidRequest, "plan.property: expected a string (the property to sample)")
        }
        guard driven.contains(property) else {
            throw EngineError(.invalidRequest, "property: the plan does not animate \"\(property)\" (it animates \(driven.joined(separator: ", ")))")
        }
        self.plan = plan
        self.property = property
        self.times = times
        self.order = times.indices.sorted { times[$0] < times[$1] }
        self.runtime = runtime
        self.frame = frame
        self.samples = Array(repeating: [], count: times.count)
    }

    func work(in context: EngineContext, until deadline: UInt64) throws(EngineError) -> Bool {
        let engine = context.engine
        if !started {
            started = true
            try engine.createRuntime(runtime, dryRun: true)
            try engine.addPlan(plan, to: "sample", in: runtime)
            if !engine.isActive(runtime: runtime) { settlingDuration = 0 }
        }
        var steps = 0
        while position < order.count {
            let index = order[position]
            // Advance in frame-sized steps, as the clock would: a tween's velocity is a per-frame
            // difference, and simulations are step-size independent anyway.
            while times[index] - now > 1e-12 {
                let dt = min(frame, times[index] - now)
                engine.advance(runtime: runtime, by: dt)
                now += dt
                steps += 1
                if settlingDuration == nil, !engine.isActive(runtime: runtime) { settlingDuration = now }
                if steps & 63 == 0, MonotonicClock.now() >= deadline { return false }
            }
            let value = engine.value(of: property, target: "sample", runtime: runtime) ?? []
            let velocity = engine.velocity(of: property, target: "sample", runtime: runtime) ?? []
            samples[index] = JSONWriter.bytes(["t": .number(times[index]), "value": JSONValue(value), "velocity": JSONValue(velocity)])
            position += 1
        }
        // How long until it rests (SPEC §10 `settlingDuration`): stepped on past the last time asked.
        while settlingDuration == nil {
            guard engine.isActive(runtime: runtime) else {
                settlingDuration = now
                break
            }
            guard now < EngineContext.maximumSampleTime else {
                settlingDuration = .infinity
                break
            }
            engine.advance(runtime: runtime, by: frame)
            now += frame
            steps += 1
            if steps & 63 == 0, MonotonicClock.now() >= deadline { return false }
        }
        // The answer is assembled in slices too: 10,000 samples are about half a megabyte of text.
        if encoded.isEmpty {
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
            if written & 255 == 0, MonotonicClock.now() >= deadline { return false }
        }
        return true
    }

    func finish(in context: EngineContext) throws(EngineError) -> SlicedAnswer {
        .encoded(encoded + "]}".utf8)
    }

    func end(in context: EngineContext) {
        if started { try? context.engine.destroyRuntime(runtime) }
    }
}
