import MotionWire

/// Gestures (docs/vocabulary.md#interactions): a client streams pointer samples into a runtime; the host tracks each gesture's
/// position, phase and release velocity.
/// Gesture requests: stateless, the gestures themselves live in their runtimes (`Engine+Gestures`).
struct GestureRequests: ContextPart {
    unowned let context: EngineContext
    static let maximumGestureSamples = 256
    /// How far past the daemon's `now` a pushed sample may be timed (seconds): clocks read a moment apart.
    static let maximumLead = 10.0

    /// `gesture.push {runtime?, gesture, samples: [{t, position, phase?}]}`: every sample is checked before
    /// any is applied.
    func pushGesture(_ params: Params, in session: Session) throws(EngineError) -> JSONValue {
        let name = try params.optionalName("runtime")
        let runtime = try context.runtimeKey(name, for: session, .change)
        let gestureName = try params.name("gesture")
        guard let scope = engine.runtimes[runtime] else { throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(name ?? "default")\"") }
        // Timed on the daemon's clock (`hello`'s `now`): a sample from far in the future (t: 1e300) would
        // make every later sample of the gesture, a new `began` too, "go back in time" for good.
        let latest = Double(clock.now()) / 1e9 + Self.maximumLead
        let samples = try Self.gestureSamples(params, notAfter: latest)
        let existing = scope.gestures[gestureName]
        if let existing, let first = samples.first, first.sample.time < existing.lastTime {
            throw EngineError(.invalidRequest, "samples[0].t: \(first.sample.time) is before the gesture's last sample (\(existing.lastTime))")
        }
        if let existing, let first = samples.first, first.phase != .began, !existing.position.isEmpty, existing.position.count != first.sample.position.count {
            throw EngineError(.invalidRequest, "samples[0].position: expected \(existing.position.count) coordinate\(existing.position.count == 1 ? "" : "s"), as the gesture's earlier samples (a gesture keeps its dimension; a began starts it afresh)")
        }
        if existing == nil, let owner = scope.owner {
            let held = engine.runtimes.values.reduce(0) { $0 + ($1.owner == owner ? $1.gestures.count : 0) }
            if held >= settings.quotas.gestures { throw context.quotaExceeded("gestures", owner) }
        }
        engine.gestures.apply(samples.map { GestureSample(sample: $0.sample, phase: $0.phase) }, toGesture: gestureName, in: scope)
        let gesture = scope.gestures[gestureName] ?? Gesture()
        let velocity = gesture.isActive ? gesture.tracker.velocity().velocity : gesture.releaseVelocity
        return ["runtime": .string(name ?? Engine.defaultRuntime), "gesture": .string(gestureName), "phase": .string(gesture.phase.rawValue),
                "position": JSONValue(gesture.position), "velocity": JSONValue(velocity)]
    }

    /// Samples one recorded gesture may hold in `plan.sample {gestures}`.
    static let maximumRecordedSamples = 10_000

    /// `plan.sample {…, gestures: {name: [samples]}}`: recorded gestures replayed against the plan, their
    /// samples timed in seconds from its start (docs/vocabulary.md#interactions).
    static func recordedGestures(_ params: Params) throws(EngineError) -> [String: [GestureSample]] {
        guard let value = params["gestures"] else { return [:] }
        guard case .object(let members) = value, members.count <= 16 else {
            throw EngineError(.invalidRequest, "gestures: expected an object of at most 16 gestures, {name: [samples…]}")
        }
        var gestures: [String: [GestureSample]] = [:]
        for (name, samples) in members {
            try Params.check(name: name, "gestures", maximumLength: Params.maximumNameLength)
            let parsed = try gestureSamples(Params(["samples": samples]), field: "gestures.\(name)", limit: maximumRecordedSamples)
            gestures[name] = parsed.map { GestureSample(sample: $0.sample, phase: $0.phase) }
        }
        return gestures
    }

    /// `gesture.velocity {samples}`: the release-velocity estimator as a dry run.
    func gestureVelocity(_ params: Params) throws(EngineError) -> JSONValue {
        var tracker = VelocityTracker()
        let parsed = try Self.gestureSamples(params)
        for (sample, phase) in parsed {
            switch phase {
            case .began?: tracker.reset(); tracker.add(sample)
            case .ended?, .cancelled?:
                // As gesture.push: a release more than 40 ms after the last movement flings nothing.
                if let last = tracker.samples.last, sample.time - last.time > VelocityTracker.maximumGap { tracker.reset() }
            case .moved?, nil: tracker.add(sample)
            }
        }
        // A lone `ended` (nothing to fit) is at rest, in the gesture's dimension.
        let (velocity, used) = tracker.velocity(dimension: parsed.last?.sample.position.count)
        return ["velocity": JSONValue(velocity), "samples_used": .number(Double(used))]
    }

    /// The `samples` of a request: 1 to `limit`, in time order, finite, with 1 or 2 coordinates.
    static func gestureSamples(_ params: Params, field: String = "samples", limit: Int = maximumGestureSamples,
                               notAfter latest: Double = .infinity) throws(EngineError) -> [(sample: VelocityTracker.Sample, phase: Gesture.Phase?)] {
        guard case .array(let elements)? = params["samples"], (1...limit).contains(elements.count) else {
            throw EngineError(.invalidRequest, "\(field): expected an array of 1 to \(limit) samples")
        }
        var samples: [(VelocityTracker.Sample, Gesture.Phase?)] = []
        var previous = -Double.infinity
        for (index, element) in elements.enumerated() {
            guard case .object(let members) = element else { throw EngineError(.invalidRequest, "samples[\(index)]: expected an object") }
            for key in members.keys where !["t", "position", "phase"].contains(key) {
                throw EngineError(.invalidRequest, "samples[\(index)].\(key): unknown key (known: t, position, phase)")
            }
            guard let time = members["t"]?.doubleValue, time.isFinite, time >= 0 else {
                throw EngineError(.invalidRequest, "samples[\(index)].t: expected seconds on CLOCK_MONOTONIC (a finite number ≥ 0)")
            }
            guard time <= latest else {
                throw EngineError(.invalidRequest, "samples[\(index)].t: \(time) is more than \(Int(maximumLead)) s after the daemon's clock (now \(latest - maximumLead); CLOCK_MONOTONIC seconds, as hello's now)")
            }
            guard time >= previous else {
                throw EngineError(.invalidRequest, "samples[\(index)].t: \(time) goes back in time (samples are in time order)")
            }
            previous = time
            guard let coordinates = members["position"]?.arrayValue, (1...2).contains(coordinates.count),
                  case let position = coordinates.compactMap(\.doubleValue), position.count == coordinates.count,
                  position.allSatisfy({ $0.isFinite && abs($0) <= 1e15 })
            else {
                throw EngineError(.invalidRequest, "samples[\(index)].position: expected [x] or [x, y], finite numbers of at most 1e15 in magnitude")
            }
            // One dimension per gesture: a y that comes and goes was taken as 0, and made a velocity up.
            if let first = samples.first, first.0.position.count != position.count {
                throw EngineError(.invalidRequest, "samples[\(index)].position: expected \(first.0.position.count) coordinate\(first.0.position.count == 1 ? "" : "s"), as samples[0] (a gesture keeps its dimension)")
            }
            var phase: Gesture.Phase?
            if let text = members["phase"] {
                guard let name = text.stringValue, let parsed = Gesture.Phase(rawValue: name) else {
                    throw EngineError(.invalidRequest, "samples[\(index)].phase: expected \"began\", \"moved\", \"ended\" or \"cancelled\"")
                }
                phase = parsed
            }
            samples.append((VelocityTracker.Sample(time: time, position: position), phase))
        }
        return samples
    }
}
