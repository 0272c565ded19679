import Logging
import MotionWire

/// Everything the engine thread owns: the engine, the sessions, the subscription hub, tick statistics.
///
/// Only the engine thread touches it: NIO threads reach it through `EngineLoop.submit`.
package final class EngineContext: TraceObserver {
    package let engine: Engine
    package let hub: SubscriptionHub
    package var settings: EngineSettings {
        didSet {
            engine.instantMotion = settings.instantMotion
            engine.quotas = settings.quotas
        }
    }
    package let logger: Logger
    /// The engine's time: event times, display timing, journal records (`EngineClock`).
    package let clock: any EngineClock
    /// When this context began, on `clock`: the `t` of events counts from it.
    let startTime: UInt64
    var sessions: [UInt64: Session] = [:]
    /// Swaps begun by `install` whose performers are still moving, by plugin file.
    var pendingSwaps: [String: PendingSwap] = [:]
    package var statistics = TickStatistics(window: 600)
    /// Trace events raised while a tick advances wait here, so each tick's frame goes out before the
    /// events that describe it (a client that sees `runtime.idle` has already seen the final values).
    var tickEvents: [TraceEvent] = []
    var isTicking = false
    /// The CLOCK_MONOTONIC time the engine's state is at while some subscription follows a display
    /// (it runs ahead of the wall clock then; docs/protocol.md, display-timed frames); nil on the `--rate` clock alone.
    package var stateTime: UInt64?
    /// Every uid's routers and the transitions they perform.
    package private(set) lazy var routers = Routers(context: self)
    /// What the daemon lends the engine thread (other threads for blocking work, the plugin manager).
    package var hooks = HostHooks()
    /// True while a dry run (`plan.sample`, a replay) works in its private runtime: its events are
    /// nobody's business.
    var isSampling = false
    /// Numbers dry-run runtimes (several may be worked in slices at once).
    var nextDryRun = 0
    /// Lasting runtimes' changes, written before they are applied and replayed at start.
    package private(set) lazy var journal = RuntimeJournal(context: self)

    static let reservedRuntimePrefix = "motiond."
    /// A subscription's `targets` filter names at most this many targets (a long list cost every frame).
    package static let maximumSubscriptionTargets = 4096
    /// A plan, as JSON text, is at most this many bytes (docs/protocol.md).
    package static let maximumPlanBytes = 64 << 10

    /// Measured without writing the plan out (a 900 KB plan costs the engine thread a walk, not a copy).
    static func checkSize(of plan: JSONValue) throws(EngineError) {
        let size = Timeline.size(of: plan)
        guard size <= maximumPlanBytes else {
            throw EngineError(.limitExceeded, "plan: about \(size) bytes; a plan is at most \(maximumPlanBytes) bytes")
        }
    }
    static let maximumSampleTime = 600.0
    static let maximumSamples = 10_000

    package init(engine: Engine, settings: EngineSettings, logger: Logger,
                hubLimits: SubscriptionHub.Limits = .init(), clock: any EngineClock = SystemClock.shared) {
        self.clock = clock
        startTime = clock.now()
        self.engine = engine
        self.settings = settings
        engine.instantMotion = settings.instantMotion
        engine.quotas = settings.quotas
        self.logger = logger
        self.hub = SubscriptionHub(limits: hubLimits)
        engine.observer = self
    }

    /// Seconds since the daemon started: the `t` of every event.
    var time: Double { Double(clock.now() &- startTime) / 1e9 }

    /// The clock should keep ticking: something animates or a written value awaits its frame.
    package var wantsTicks: Bool {
        engine.isAnimating || engine.hasPendingFrame || engine.hasCarriedCompositeEnds || engine.hasTeardowns || routers.isWaiting || hub.hasPendingDisplayUpdates || hub.hasDeferredFrames
            || !engine.store.gone.isEmpty
    }

    package func engine(_ engine: Engine, didTrace event: TraceEvent) {
        if isSampling { return }
        if isTicking {
            tickEvents.append(event)
        } else {
            hub.publish(event, time: time)
        }
    }

    // MARK: Sessions

    /// A session without a socket: lines go in through `receive`, replies and events out to `output`.
    /// For embedding the engine in-process (tests, fuzzing); sockets use the same path.
    package func openLocalSession(_ id: UInt64, output: any ClientOutput, role: Role = .client) {
        openSession(id, output: output, role: role)
    }

    /// One request line (without its newline) from a local session, answered as a socket's would be.
    package func receive<Bytes: Collection<UInt8>>(line: Bytes, from sessionID: UInt64) {
        handle(Request.parse(line: line), from: sessionID)
    }

    package func openSession(_ id: UInt64, output: any ClientOutput, peer: PeerCredentials? = nil, role: Role = .client) {
        sessions[id] = Session(id: id, output: output, peer: peer, role: role)
    }

    package func closeSession(_ id: UInt64) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        session.isClosed = true
        endWork(of: session)
        hub.removeAll(of: session)
        hub.updateWatch(engine.store)
        for runtime in session.scrubbing.sorted() where engine.timeline(of: runtime)?.isAttached == true {
            detachScrubber(runtime)
        }
        for runtime in engine.ephemeralRuntimes(ownedBy: id) {
            try? destroyRuntime(runtime)
        }
    }

    /// docs/protocol.md: a connection that has not said hello (one the engine accepted) within its first seconds is
    /// closed, with a last line saying why.
    package func closeIfNotGreeted(_ id: UInt64, afterSeconds seconds: Int) {
        guard let session = sessions[id], !session.greeted, !session.isClosed else { return }
        session.output.send(EventLines.closing(code: .helloTimeout, message: "no hello within \(seconds) s; closing the connection"))
        session.output.close()
    }

    /// The client shut down its sending side after the lines already handled (they are queued in order):
    /// close once nothing more is owed to it.
    package func endOfInput(from id: UInt64) {
        guard let session = sessions[id] else { return }
        session.isInputClosed = true
        session.closeIfFinished()
    }

    /// Answers one parsed (or unparseable) line from a session, in arrival order.
    /// `draining`: the request comes off the connection's own queue of waiting ones, its turn has come.
    package func handle(_ parsed: Result<Request, RequestFailure>, from sessionID: UInt64, draining: Bool = false) {
        guard let session = sessions[sessionID], !session.isClosed else { return }
        // Behind sliced work, or behind requests already waiting, or (unless it joins the journal group)
        // behind changes being written: it waits its turn, so replies keep the order of requests.
        if !draining, session.job != nil || !session.deferred.isEmpty || (session.journalPending > 0 && !parsed.joinsJournal) {
            session.deferred.append(parsed)
            return
        }
        switch parsed {
        case .failure(let failure):
            session.output.send(WireMessage.line(WireMessage.error(id: failure.id, code: failure.code,
                                                                   message: failure.message)))
        case .success(let request):
            let reply: JSONValue?
            do throws(EngineError) {
                reply = try respond(to: request, in: session).map { WireMessage.result(id: request.id, $0) }
            } catch where session.journalPending > 0 {
                // Behind changes still being written: the error keeps its place in line.
                journal.queueError(error, id: request.id, in: session)
                reply = nil
            } catch {
                reply = WireMessage.error(id: request.id, code: error.code, message: error.message)
            }
            if let reply { session.output.send(WireMessage.line(reply)) }
        }
        routers.driveWaiting()
    }

    /// Sends every session a last event and closes it (graceful stop). Returns the outputs so the caller
    /// can wait until those lines have really left before the process exits.
    package func closeAllSessions(reason: String) -> [any ClientOutput] {
        journal.writeUnwrittenWriteOffs()
        let open = sessions.values.sorted(by: { $0.id < $1.id })
        for session in open {
            session.output.send(EventLines.closing(code: .shuttingDown, message: reason))
            session.output.close()
        }
        return open.map(\.output)
    }

    /// Destroys a runtime and forgets that it was shared (after its `runtime.destroyed` went out).
    func destroyRuntime(_ key: String) throws(EngineError) {
        try engine.destroyRuntime(key)
        hub.sharedRuntimes.remove(key)
    }

    // MARK: Reload

    /// One line for systemd's STATUS=.
    package var statusLine: String {
        let tick = statistics.summary
        let rejected = engine.registry.rejected.count
        return "ready: \(engine.registry.current.count) plugins" + (rejected > 0 ? " (\(rejected) rejected)" : "")
            + ", \(sessions.count) client\(sessions.count == 1 ? "" : "s"), \(engine.activeTokenCount) animations"
            + ", tick p99 \((tick.p99Milliseconds * 100).rounded() / 100) ms"
    }

    // MARK: Frames

    /// Values that requests wrote (a plan's first values, a Set) go out as soon as the batch of requests
    /// is applied, not at the next tick: a new plan's first frame does not wait up to a frame interval.
    /// A burst of requests still makes one frame.
    package func publishControlFrame() {
        // Slots of properties gone are marked in a frame too (`GoneProperties`).
        guard engine.hasPendingFrame || !engine.store.gone.isEmpty else { return }
        hub.publishFrame(dirty: engine.dirtyProperties, store: engine.store, time: time)
        engine.clearFrame()
    }

    /// One frame at CLOCK_MONOTONIC time `now`, `dt` seconds after the previous one: on the `--rate`
    /// clock alone as `tick(dt:)`; with display-timed subscribers, every present time they need up to
    /// the horizon (`displayTick`).
    package func tick(dt: Double, now: UInt64) {
        guard !hub.displaySubscriptions.isEmpty else {
            stateTime = nil
            return tick(dt: dt)
        }
        displayTick(dt: dt, now: now)
        finishTick()
    }

    /// Advances the engine one step, telling it which values its subscribers read this tick: plugins
    /// with "motion.kept/1" keep the others (`Engine+KeptWrites`).
    func advanceEngine(by dt: Double) {
        isTicking = true
        hub.withTickReaders(engine.store) { unread, read, readList in
            engine.writesUnread = unread
            engine.readProperties = read
            engine.readPropertyList = readList
            engine.advance(by: dt)
            engine.readProperties = nil
            engine.readPropertyList = nil
        }
        isTicking = false
    }

    /// One frame: advance animations, send the changed properties, drop clients that stay too slow.
    package func tick(dt: Double) {
        advanceEngine(by: dt * settings.tickScale)
        let now = time
        let dirty = engine.dirtyProperties
        if !dirty.isEmpty || hub.hasDeferredFrames { hub.publishFrame(dirty: dirty, store: engine.store, time: now) }
        engine.clearFrame()
        for event in tickEvents { hub.publish(event, time: now) }
        tickEvents.removeAll(keepingCapacity: true)
        finishTick()
    }

    /// What every tick ends with: routers waiting for their runtime, clients that stopped reading, a
    /// slice of freeing destroyed runtimes.
    private func finishTick() {
        let now = time
        routers.driveWaiting()
        if engine.hasTeardowns { engine.continueTeardowns(until: WorkClock.now() &+ Self.sliceNanos) }
        for session in hub.checkBacklogs(time: now) {
            logger.warning("disconnecting a client that stopped reading", metadata: [
                "session": "\(session.id)", "client": "\(session.client)",
                "uid": "\(session.peer.map { String($0.uid) } ?? "?")",
            ])
            session.output.send(EventLines.closing(code: .slowConsumer, message: "the client read too slowly"))
            session.output.close()
            closeSession(session.id)
        }
    }
}
