import Logging
import MotionWire

/// The coordinator of everything the engine thread owns: the engine, the sessions, the subscription hub,
/// and one room per concept that owns its own state (`journal`, `routers`, `plugins`, `dryRuns`, `ticks`,
/// `display`; docs/architecture.md). It answers requests in order and forwards the rest.
///
/// Only the engine thread touches it: NIO threads reach it through `EngineLoop.submit`.
package final class EngineContext: TraceObserver {
    package let engine: Engine
    package let hub: SubscriptionHub
    package var settings: EngineSettings {
        didSet {
            engine.composition.instantMotion = settings.instantMotion
            engine.ledger.quotas = settings.quotas
            hub.ownerBacklogLimit = settings.quotas.outputBytes
            hub.velocityScale = settings.tickScale
        }
    }
    package let logger: Logger
    /// The engine's time: event times, display timing, journal records (`EngineClock`).
    package let clock: EventClock
    /// The connections served, and whether a stop has begun.
    var sessions = SessionTable()
    /// Plugin installs and hot swaps.
    package private(set) lazy var plugins = PluginInstalls(context: self)
    /// The frame clock's ticks, and their statistics.
    package private(set) lazy var ticks = FrameTicks(context: self)
    /// Frames timed for the displays subscriptions follow.
    package private(set) lazy var display = DisplayFrames(context: self)
    /// Every uid's routers and the transitions they perform.
    package private(set) lazy var routers = Routers(context: self)
    /// What the daemon lends the engine thread (other threads for blocking work, the plugin manager).
    package var hooks = HostHooks()
    /// Pointer gestures pushed into runtimes: their state is each runtime's.
    var gestures: GestureRequests { GestureRequests(context: self) }
    /// Timeline scrubbing: its state is each runtime's `Timeline`.
    var scrubbing: TimelineScrubbing { TimelineScrubbing(context: self) }
    /// Dry runs worked in slices between ticks.
    package private(set) lazy var dryRuns = DryRuns(context: self)
    /// Lasting runtimes' changes, written before they are applied and replayed at start.
    package private(set) lazy var journal = RuntimeJournal(context: self)
    /// Motion themes: the tokens plans name with `@`.
    package private(set) lazy var themes = Themes(context: self)
    /// Idempotency keys and the first results they are answered with.
    let keys = IdempotencyKeys()
    /// A graceful stop has begun: requests not yet applied are answered `server.shutting_down`.
    package var isStopping: Bool { sessions.isStopping }

    /// One slice's budget: an eighth of a 120 Hz frame.
    static let sliceNanos: UInt64 = 1_000_000

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
        self.clock = EventClock(clock)
        self.engine = engine
        self.settings = settings
        engine.composition.instantMotion = settings.instantMotion
        engine.ledger.quotas = settings.quotas
        self.logger = logger
        self.hub = SubscriptionHub(limits: hubLimits)
        hub.ownerBacklogLimit = settings.quotas.outputBytes
        hub.velocityScale = settings.tickScale
        engine.observer = self
    }

    /// Seconds since the daemon started: the `t` of every event.
    var time: Double { clock.seconds }

    /// The clock should keep ticking: something animates or a written value awaits its frame.
    /// The methods answered while the journal is replayed (docs/operations.md#animations-survive-a-restart).
    static let answeredWhileRestoring: Set<String> = ["hello", "status", "metrics"]

    /// No tick while the journal is replayed (`RuntimeJournal.isRestoring`): each target is replayed on a
    /// clock of its own, which a tick in between would move twice.
    package var wantsTicks: Bool {
        !journal.isRestoring && (engine.isAnimating || engine.hasPendingFrame || engine.composites.hasCarriedCompositeEnds || engine.hasTeardowns || routers.isWaiting
            || hub.hasRemovals || hub.hasPendingDisplayUpdates || hub.hasDeferredFrames || !engine.store.gone.isEmpty)
    }

    package func engine(_ engine: Engine, didTrace event: TraceEvent) {
        if dryRuns.isSampling { return }
        if ticks.isTicking || ticks.holds(event.kind) {
            ticks.events.append(event)
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
        // As the daemon after a batch of requests: ends the request reported go out after their frame.
        if !ticks.isTicking, !ticks.events.isEmpty || !ticks.routeEvents.isEmpty { publishControlFrame() }
    }

    package func openSession(_ id: UInt64, output: any ClientOutput, peer: PeerCredentials? = nil, role: Role = .client) {
        sessions[id] = Session(id: id, output: output, peer: peer, role: role)
    }

    package func closeSession(_ id: UInt64) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        session.isClosed = true
        session.dropWaiting()
        dryRuns.endWork(of: session)
        hub.removeAll(of: session)
        hub.updateWatch(engine.store)
        for runtime in session.scrubbing.sorted() where engine.timelines.timeline(of: runtime)?.isAttached == true {
            scrubbing.detachScrubber(runtime)
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
            session.wait(parsed)
            return
        }
        // While the journal is replayed only `hello`, `status` and `metrics` (what `motionctl top` reads)
        // are answered; the rest waits for it.
        if !draining, !isStopping, journal.isRestoring, case .success(let request) = parsed, !Self.answeredWhileRestoring.contains(request.method) {
            session.wait(parsed)
            return
        }
        switch parsed {
        case .failure(let failure):
            session.output.send(WireMessage.line(WireMessage.error(id: failure.id, code: failure.code,
                                                                   message: failure.message)))
        case .success(let request):
            if isStopping {
                // After the deferral above: the replies keep the order of the requests.
                session.output.send(WireMessage.line(WireMessage.error(id: request.id, code: .shuttingDown,
                    message: "motiond is stopping: this request was not applied; send it again once motiond is back")))
                break
            }
            if let key = request.key {
                let fingerprint = IdempotencyKeys.fingerprint(of: request)
                do throws(EngineError) {
                    if let result = try keys.result(uid: session.uid, key: key, request: fingerprint, now: clock.wallNow()) {
                        answerInLine(.success(result), id: request.id, in: session)
                        break
                    }
                } catch {
                    answerInLine(.failure(error), id: request.id, in: session)
                    break
                }
                if keys.isPending(uid: session.uid, key: key) {
                    let pending = EngineError(.requestPending, "key: a request with this key is still being applied; its answer goes to the connection that sent it")
                    guard session.journalPending > 0 else {
                        answerInLine(.failure(pending), id: request.id, in: session)
                        break
                    }
                    // Sent again on this connection before its answer came: its turn comes after the first's,
                    // and it is answered with the first's result then (it was `request.pending`, ahead of it).
                    let uid = session.uid
                    journal.queueReply(id: request.id, in: session) { context throws(EngineError) in
                        guard let result = try context.keys.result(uid: uid, key: key, request: fingerprint, now: context.clock.wallNow()) else {
                            throw EngineError(.requestPending, "key: the request before this one with this key failed and changed nothing; send it again")
                        }
                        return result
                    }
                    break
                }
                guard keys.admits(uid: session.uid, now: clock.wallNow()) else {
                    answerInLine(.failure(EngineError(.quotaExceeded, "key: uid \(session.uid) has \(IdempotencyKeys.maximumPerUID) keys (or \(IdempotencyKeys.maximumBytesPerUID >> 20) MiB of their results) of the last \(Int(IdempotencyKeys.lifetime / 60)) minutes, each kept that long; send this request without a key, or with one once older keys expire")),
                                 id: request.id, in: session)
                    break
                }
                keys.begin(uid: session.uid, key: key, request: fingerprint)
            }
            // This request's key (nil: none) is the one `orApply` may take while it is answered; a request
            // answered inside this one (a dry run's slice drains the connection's waiting requests) sets its
            // own and puts this one back.
            let enclosing = keys.current
            keys.current = request.key.map { (session.uid, $0) }
            defer { keys.current = enclosing }
            let reply: JSONValue?
            do throws(EngineError) {
                reply = try MethodTable(context: self).respond(to: request, in: session).map { WireMessage.result(id: request.id, $0) }
            } catch where session.journalPending > 0 {
                // Behind changes still being written: the error keeps its place in line.
                journal.queueError(error, id: request.id, in: session)
                reply = nil
            } catch {
                reply = WireMessage.error(id: request.id, code: error.code, message: error.message)
            }
            // Not taken into a journal group (`orApply` takes it): answered now, or not remembered.
            if let key = request.key, keys.current != nil {
                keys.end(uid: session.uid, key: key, result: reply?["result"], now: clock.wallNow())
            }
            if let reply { session.output.send(WireMessage.line(reply)) }
        }
        routers.driveWaiting()
    }

    /// An answer given without applying anything (a keyed repeat): behind changes of its connection still
    /// being written it keeps its place in line (a repeat sent at once was answered before the original).
    private func answerInLine(_ outcome: Result<JSONValue, EngineError>, id: JSONValue, in session: Session) {
        if session.journalPending > 0 {
            journal.queueReply(id: id, in: session) { _ throws(EngineError) in try outcome.get() }
            return
        }
        switch outcome {
        case .success(let result): session.output.send(WireMessage.line(WireMessage.result(id: id, result)))
        case .failure(let error): session.output.send(WireMessage.line(WireMessage.error(id: id, code: error.code, message: error.message)))
        }
    }

    /// A graceful stop begins: what is being applied is finished and answered; requests not yet applied
    /// are answered `server.shutting_down` (docs/protocol.md#a-stop).
    package func beginStopping() { sessions.isStopping = true }

    /// Nothing is being written, applied or waits to be answered: every session may be closed.
    package var isQuiet: Bool {
        journal.isIdle && sessions.values.allSatisfy { $0.job == nil && $0.deferred.isEmpty }
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

    // MARK: Frames (`FrameTicks`, `DisplayFrames`)

    package var statistics: TickStatistics { ticks.statistics }
    package func publishControlFrame() { ticks.publishControlFrame() }
    package func tick(dt: Double, now: UInt64) { ticks.tick(dt: dt, now: now) }
    package func tick(dt: Double) { ticks.tick(dt: dt) }
    package var nextHeldFrame: UInt64? { display.nextHeldFrame }
    package func releaseHeldFrames(now: UInt64) { display.releaseHeldFrames(now: now) }
}
