import MotionWire

/// The frame clock's ticks (driven by the daemon's `EngineLoop`, or by hand in tests): advance the
/// engine, send what changed, then the trace events raised meanwhile, and what every tick ends with.
/// With display-timed subscribers a tick steps through their present times (`DisplayFrames`).
package final class FrameTicks: ContextPart {
    unowned let context: EngineContext
    package var statistics = TickStatistics(window: 600)
    /// Tick nanoseconds attributed to each uid (`shareOut`).
    package var shares: [UInt32: UInt64] = [:]
    /// The scheduling class the thread running the ticks got (`SCHED_OTHER nice 0`; the host reads it
    /// on that thread at start), for `status` and `motionctl top`.
    package var schedulingClass = "unknown"
    /// Trace events raised while a tick advances wait here, so each tick's frame goes out before the
    /// events that describe it (a client that sees `runtime.idle` has already seen the final values).
    var events: [TraceEvent] = []
    /// Route events held with them (outside a tick: a request that ended motion at once).
    var routeEvents: [(name: String, fields: [String: JSONValue])] = []
    var isTicking = false
    /// When the last `--rate` tick ran (CLOCK_MONOTONIC ns): the engine's state is that instant's (nil
    /// after a display-timed one, whose state is a present time ahead).
    private(set) var lastTickAt: UInt64?

    /// The kinds that report an end (README.md's protocol section: the frame with the final values goes
    /// first, also when a plan completes at once — reduce motion, speed 0, an unanimated route).
    static let endKinds: Set<String> = ["animation.ended", "runtime.idle"]

    /// Whether an event raised outside a tick waits for the frame: it reports an end while values wait
    /// to be sent, or events already wait (the order of events is kept).
    func holds(_ kind: String?) -> Bool {
        !events.isEmpty || !routeEvents.isEmpty || (engine.hasPendingFrame && (kind.map(Self.endKinds.contains) ?? true))
    }

    init(context: EngineContext) {
        self.context = context
    }

    /// Sends the trace events the tick raised, after its frame.
    func publishEvents(time: Double) {
        for event in events { hub.publish(event, time: time) }
        events.removeAll(keepingCapacity: true)
        guard !routeEvents.isEmpty else { return }
        for (name, fields) in routeEvents { hub.publishRoute(name, fields, time: time) }
        routeEvents.removeAll(keepingCapacity: true)
    }

    /// Values that requests wrote (a plan's first values, a Set) go out as soon as the batch of requests
    /// is applied, not at the next tick: a new plan's first frame does not wait up to a frame interval.
    /// A burst of requests still makes one frame.
    package func publishControlFrame() {
        // Slots of properties gone are marked in a frame too (`GoneProperties`).
        guard engine.hasPendingFrame || !engine.store.gone.isEmpty else { return publishEvents(time: time) }
        hub.endIntervalIfStale()
        hub.publishFrame(dirty: engine.dirtyProperties, store: engine.store, time: time)
        engine.clearFrame()
        // Then the ends that requests reported meanwhile (`holds`).
        publishEvents(time: time)
    }

    /// One frame at CLOCK_MONOTONIC time `now`, `dt` seconds after the previous one: on the `--rate`
    /// clock alone as `tick(dt:)`; with display-timed subscribers, every present time they need up to
    /// the horizon (`displayTick`).
    package func tick(dt: Double, now: UInt64) {
        guard !hub.displaySubscriptions.isEmpty else {
            context.display.stateTime = nil
            lastTickAt = now
            return tick(dt: dt)
        }
        // Display-timed steps run to present times ahead of `now`: the state is not `now`'s.
        lastTickAt = nil
        hub.beginInterval()
        context.display.displayTick(dt: dt, now: now)
        finishTick()
    }

    /// Advances the engine one step, telling it which values its subscribers read this tick: plugins
    /// with "motion.kept/1" keep the others (`Engine+KeptWrites`).
    func advanceEngine(by dt: Double) {
        isTicking = true
        hub.withTickReaders(engine.store) { unread, read, readList in
            engine.unread.writesUnread = unread
            engine.unread.readProperties = read
            engine.unread.readPropertyList = readList
            engine.advance(by: dt)
            engine.unread.readProperties = nil
            engine.unread.readPropertyList = nil
        }
        isTicking = false
    }

    /// One frame: advance animations, send the changed properties, drop clients that stay too slow.
    package func tick(dt: Double) {
        hub.beginInterval()
        advanceEngine(by: dt * settings.tickScale)
        let now = time
        let dirty = engine.dirtyProperties
        if !dirty.isEmpty || hub.hasDeferredFrames { hub.publishFrame(dirty: dirty, store: engine.store, time: now) }
        engine.clearFrame()
        publishEvents(time: now)
        finishTick()
    }

    /// What every tick ends with: routers waiting for their runtime, clients that stopped reading, a
    /// slice of freeing destroyed runtimes.
    func finishTick() {
        let now = time
        context.routers.driveWaiting()
        if engine.hasTeardowns {
            engine.continueTeardowns(until: WorkClock.now() &+ EngineContext.sliceNanos)
            // The last destroyed runtime is freed: the host may give the memory back to the system.
            if !engine.hasTeardowns { context.hooks.memoryFreed?() }
        }
        if hub.hasRemovals { hub.continueRemovals(until: WorkClock.now() &+ EngineContext.sliceNanos) }
        for session in hub.checkBacklogs(time: now) {
            logger.warning("disconnecting a client that stopped reading", metadata: [
                "session": "\(session.id)", "client": "\(session.client)",
                "uid": "\(session.peer.map { String($0.uid) } ?? "?")",
            ])
            session.output.send(EventLines.closing(code: .slowConsumer, message: "the client read too slowly"))
            session.output.close()
            context.closeSession(session.id)
        }
    }
}
