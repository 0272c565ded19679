import MotionWire

/// Timeline scrubbing (SPEC §2): attach a scrubber to a runtime, scrub to an offset, detach.
///
/// Attaching pauses the runtime's clock (its performers get no `advance`) and keeps its live values.
/// Scrubbing to an offset replays the runtime's recorded plans from its start in a scratch runtime, in
/// frame-sized steps, and shows the result: tweens land where their curve is at that time, springs and
/// decays where their simulation is — the same numbers every time. Detaching restores the live values
/// and restarts the clock where it stopped. Observers (the `trace` stream) see
/// `timeline.scrubber.attached`, `timeline.scrubber.scrubbed` (only when the offset changed) and
/// `timeline.scrubber.detached`.
extension EngineContext {
    static let replayRuntime = reservedRuntimePrefix + "timeline"

    func timelineMethod(_ method: String, _ params: Params, in session: Session) throws(EngineError) -> JSONValue {
        let name = try params.optionalName("runtime")
        let runtime = try runtimeKey(name, for: session, .change)
        guard let timeline = engine.timeline(of: runtime) else {
            throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(name ?? Engine.defaultRuntime)\"")
        }
        switch method {
        case "timeline.attach":
            let offset = try self.offset(params, default: timeline.isAttached ? timeline.offset : 0)
            let attaching = !timeline.isAttached
            if attaching {
                attach(runtime)
                // A scrubber ends with the session that attached it: a client that goes away does not
                // leave the runtime frozen for everyone.
                session.scrubbing.insert(runtime)
            }
            try scrub(runtime, to: offset, show: attaching)
        case "timeline.scrub":
            guard timeline.isAttached else {
                throw EngineError(.timelineNotAttached, "runtime: no scrubber is attached to \"\(runtime)\" (timeline.attach first)")
            }
            try scrub(runtime, to: try offset(params, default: nil))
        default:
            if timeline.isAttached { detach(runtime) }
            for other in sessions.values { other.scrubbing.remove(runtime) }
        }
        let now = engine.timeline(of: runtime)!
        return [
            "runtime": .string(name ?? Engine.defaultRuntime), "attached": .bool(now.isAttached), "offset": .number(now.offset),
            "clock": .number(((engine.clock(ofRuntime: runtime) ?? 0) * 1e6).rounded() / 1e6),
            "entries": .number(Double(now.entries.count)),
        ]
    }

    private func offset(_ params: Params, default fallback: Double?) throws(EngineError) -> Double {
        guard let offset = try params.optionalNumber("offset") ?? fallback else {
            throw EngineError(.invalidRequest, "offset: missing (seconds from the runtime's start)")
        }
        guard offset >= 0, offset <= Self.maximumSampleTime else {
            throw EngineError(.invalidRequest, "offset: expected 0 to \(Int(Self.maximumSampleTime)) seconds")
        }
        return offset
    }

    private func attach(_ runtime: String) {
        let live = engine.properties(ofRuntime: runtime).map { property in
            (property.handle, engine.store.value(property.handle), engine.store.velocity(property.handle))
        }
        engine.updateTimeline(of: runtime) {
            $0.isAttached = true
            $0.live = live
        }
        pauseRuntime(runtime, true)
        engine.trace(TraceEvent(kind: "timeline.scrubber.attached", runtime: runtime,
                                fields: ["offset": .number(engine.timeline(of: runtime)?.offset ?? 0)]))
    }

    /// Detaches the scrubber of `runtime` (its session went away).
    func detachScrubber(_ runtime: String) { detach(runtime) }

    private func detach(_ runtime: String) {
        let live = engine.timeline(of: runtime)?.live ?? []
        for (handle, value, velocity) in live where engine.store.isLive(handle) && !value.isEmpty {
            value.withUnsafeBufferPointer { values in
                velocity.withUnsafeBufferPointer { velocities in
                    engine.store.write(handle, value: values.baseAddress!, velocity: velocities.baseAddress, count: value.count)
                }
            }
        }
        engine.updateTimeline(of: runtime) {
            $0.isAttached = false
            $0.live = []
        }
        pauseRuntime(runtime, false)
        engine.trace(TraceEvent(kind: "timeline.scrubber.detached", runtime: runtime))
    }

    private func pauseRuntime(_ runtime: String, _ paused: Bool) {
        guard let scope = engine.runtimes[runtime] else { return }
        engine.setPaused(paused, runtime: scope)
    }

    /// Shows the runtime as it was (or will be) `offset` seconds after its start. A scrub to the offset
    /// it already shows changes nothing and says nothing (unless `show`: just attached, the values still
    /// are the live ones).
    private func scrub(_ runtime: String, to offset: Double, show: Bool = false) throws(EngineError) {
        guard let timeline = engine.timeline(of: runtime) else { return }
        let changed = timeline.offset != offset
        guard changed || show else { return }
        let values = try replay(timeline.entries, to: offset)
        for (target, property, value, velocity) in values {
            engine.write(value, velocity: velocity, to: property, target: target, runtime: runtime)
        }
        engine.updateTimeline(of: runtime) { $0.offset = offset }
        if changed {
            engine.trace(TraceEvent(kind: "timeline.scrubber.scrubbed", runtime: runtime, fields: ["offset": .number(offset)]))
        }
    }

    /// Performs `entries` from time 0 to `offset` in a scratch runtime, in frame-sized steps, and reads
    /// every property it produced. Nothing a client can see is touched and no event is published.
    func replay(_ entries: [TimelineEntry], to offset: Double) throws(EngineError)
        -> [(target: String, property: String, value: [Double], velocity: [Double])] {
        let scratch = Self.replayRuntime
        isSampling = true
        defer {
            try? engine.destroyRuntime(scratch)
            isSampling = false
        }
        try engine.createRuntime(scratch, recordsTimeline: false)
        let frame = 1 / settings.rate
        var now = 0.0
        func advance(to time: Double) {
            while time - now > 1e-12 {
                let dt = min(frame, time - now)
                engine.advance(runtime: scratch, by: dt)
                now += dt
            }
        }
        for entry in entries where entry.time <= offset {
            advance(to: entry.time)
            switch entry.change {
            case .add(let plan, let name): _ = try? engine.addPlan(plan, to: entry.target, in: scratch, named: name)
            case .remove(let name): _ = try? engine.removePlan(named: name, from: entry.target, in: scratch)
            }
        }
        advance(to: offset)
        return engine.properties(ofRuntime: scratch).map { property in
            (property.target, property.property, engine.store.value(property.handle), engine.store.velocity(property.handle))
        }
    }
}
