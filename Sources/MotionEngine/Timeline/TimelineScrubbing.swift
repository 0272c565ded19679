import MotionWire

/// Timeline scrubbing (docs/protocol.md): attach a scrubber to a runtime, scrub to an offset, detach.
///
/// Attaching pauses the runtime's clock (its performers get no `advance`) and keeps its live values.
/// Scrubbing to an offset replays the runtime's recorded plans from its start in a scratch runtime, in
/// frame-sized steps, and shows the result: tweens land where their curve is at that time, springs and
/// decays where their simulation is — the same numbers every time. Detaching restores the live values
/// and restarts the clock where it stopped. Observers (the `trace` stream) see
/// `timeline.scrubber.attached`, `timeline.scrubber.scrubbed` (only when the offset changed) and
/// `timeline.scrubber.detached`.
struct TimelineScrubbing: ContextPart {
    unowned let context: EngineContext
    static let replayRuntime = EngineContext.reservedRuntimePrefix + "timeline"

    func timelineMethod(_ method: String, _ params: Params, in session: Session,
                        replyingTo id: JSONValue) throws(EngineError) -> JSONValue? {
        let name = try params.optionalName("runtime") ?? Engine.defaultRuntime
        let runtime = try context.runtimeKey(name, for: session, .pace)
        guard let timeline = engine.timelines.timeline(of: runtime) else {
            throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(name)\"")
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
            return scrub(runtime, named: name, to: offset, show: attaching, for: session, replyingTo: id)
        case "timeline.scrub":
            guard timeline.isAttached else {
                throw EngineError(.timelineNotAttached, "runtime: no scrubber is attached to \"\(name)\" (timeline.attach first)")
            }
            return scrub(runtime, named: name, to: try offset(params, default: nil), for: session, replyingTo: id)
        default:
            if timeline.isAttached { detach(runtime) }
            for other in sessions.values { other.scrubbing.remove(runtime) }
            return timelineReply(runtime, named: name)
        }
    }

    func timelineReply(_ runtime: String, named name: String) -> JSONValue {
        guard let now = engine.timelines.timeline(of: runtime) else { return ["runtime": .string(name), "attached": false] }
        return [
            "runtime": .string(name), "attached": .bool(now.isAttached), "offset": .number(now.offset),
            "clock": .number(((engine.timelines.clock(ofRuntime: runtime) ?? 0) * 1e6).rounded() / 1e6),
            "entries": .number(Double(now.entries.count)),
        ]
    }

    func offset(_ params: Params, default fallback: Double?) throws(EngineError) -> Double {
        guard let offset = try params.optionalNumber("offset") ?? fallback else {
            throw EngineError(.invalidRequest, "offset: missing (seconds from the runtime's start)")
        }
        guard offset >= 0, offset <= EngineContext.maximumSampleTime else {
            throw EngineError(.invalidRequest, "offset: expected 0 to \(Int(EngineContext.maximumSampleTime)) seconds")
        }
        return offset
    }

    func attach(_ runtime: String) {
        let live = engine.timelines.properties(ofRuntime: runtime).map { property in
            (property.handle, engine.store.value(property.handle), engine.store.velocity(property.handle))
        }
        engine.timelines.updateTimeline(of: runtime) {
            $0.isAttached = true
            $0.live = live
        }
        pauseRuntime(runtime, true)
        engine.trace(TraceEvent(kind: "timeline.scrubber.attached", runtime: runtime,
                                fields: ["offset": .number(engine.timelines.timeline(of: runtime)?.offset ?? 0)]))
    }

    /// Detaches the scrubber of `runtime` (its session went away).
    func detachScrubber(_ runtime: String) { detach(runtime) }

    func detach(_ runtime: String) {
        let live = engine.timelines.timeline(of: runtime)?.live ?? []
        for (handle, value, velocity) in live where engine.store.isLive(handle) && !value.isEmpty {
            value.withUnsafeBufferPointer { values in
                velocity.withUnsafeBufferPointer { velocities in
                    engine.store.write(handle, value: values.baseAddress!, velocity: velocities.baseAddress, count: value.count)
                }
            }
        }
        engine.timelines.updateTimeline(of: runtime) {
            $0.isAttached = false
            $0.live = []
        }
        pauseRuntime(runtime, false)
        engine.trace(TraceEvent(kind: "timeline.scrubber.detached", runtime: runtime))
    }

    func pauseRuntime(_ runtime: String, _ paused: Bool) {
        guard let scope = engine.runtimes[runtime] else { return }
        engine.timelines.setPaused(paused, runtime: scope)
    }

    /// Shows the runtime as it was (or will be) `offset` seconds after its start, once a replay worked in
    /// slices reaches it (the answer comes then). A scrub to the offset it already shows changes nothing
    /// and says nothing (unless `show`: just attached, the values still are the live ones). A replay
    /// overtaken by a later scrub, or by a detach, shows nothing.
    func scrub(_ runtime: String, named name: String, to offset: Double, show: Bool = false,
                       for session: Session, replyingTo id: JSONValue) -> JSONValue? {
        guard let timeline = engine.timelines.timeline(of: runtime), timeline.offset != offset || show else {
            return timelineReply(runtime, named: name)
        }
        var generation = 0
        engine.timelines.updateTimeline(of: runtime) {
            $0.scrubGeneration += 1
            generation = $0.scrubGeneration
        }
        // The runtime it replays, to tell it from one re-created under the same name meanwhile.
        let scope = engine.runtimes[runtime]
        let context = context
        let isWanted = { [weak scope] (context: EngineContext) -> Bool in
            guard let now = context.engine.runtimes[runtime], now === scope, now.timeline.isAttached else { return false }
            return now.timeline.scrubGeneration == generation
        }
        let work = ReplayWork(entries: Array(timeline.entries), to: offset, runtime: context.dryRuns.nextRuntime(Self.replayRuntime),
                              frame: 1 / settings.rate, isWanted: isWanted) { [weak scope] context, values throws(EngineError) in
            guard let scope, context.engine.runtimes[runtime] === scope else {
                throw EngineError(.runtimeNotFound, "runtime: \"\(name)\" was destroyed during the replay")
            }
            guard isWanted(context) else { return context.scrubbing.timelineReply(runtime, named: name) }
            for (target, property, value, velocity) in values {
                context.engine.timelines.write(value, velocity: velocity, to: property, target: target, runtime: runtime)
            }
            let changed = timeline.offset != offset
            context.engine.timelines.updateTimeline(of: runtime) { $0.offset = offset }
            if changed {
                context.engine.trace(TraceEvent(kind: "timeline.scrubber.scrubbed", runtime: runtime,
                                                fields: ["offset": .number(offset)]))
            }
            return context.scrubbing.timelineReply(runtime, named: name)
        }
        context.dryRuns.perform(work, for: session, replyingTo: id)
        return nil
    }
}
