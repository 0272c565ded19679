import MotionWire

/// Display-timed frames (docs/protocol.md, display-timed frames): a subscription that follows a display gets one frame per vblank,
/// sent `lead` before it, with every value evaluated at `present` (vblank + latency) exactly.
///
/// The engine's state runs ahead of the wall clock by the largest `latency + lead` of any display plus one
/// tick, and steps through the present times displays need in order (one step per distinct time, shared
/// by every subscriber of that display), holding each frame until its send time. Subscriptions without a
/// display get their frames on the `--rate` clock as before, with the state's values.
package final class DisplayFrames: ContextPart {
    unowned let context: EngineContext
    /// The CLOCK_MONOTONIC time the engine's state is at while some subscription follows a display (it
    /// runs ahead of the wall clock then); nil on the `--rate` clock alone.
    package internal(set) var stateTime: UInt64?

    init(context: EngineContext) {
        self.context = context
    }

    /// Distinct displays one uid may have subscribers on, and all uids together: each costs an engine
    /// step per vblank.
    static let maximumDisplaysPerUID = 4
    static let maximumDisplays = 16

    /// Reads `display: {period, vblank?, latency?, lead?}` of `subscribe` (seconds; `vblank` on
    /// CLOCK_MONOTONIC, default now).
    func displayTiming(_ value: JSONValue, in session: Session) throws(EngineError) -> DisplayTiming {
        guard case .object(let members) = value else {
            throw EngineError(.invalidRequest, "display: expected {period, vblank?, latency?, lead?} in seconds")
        }
        for key in members.keys.sorted() where !["period", "vblank", "latency", "lead"].contains(key) {
            throw EngineError(.invalidRequest, "display.\(key): unknown key (known: period, vblank, latency, lead)")
        }
        func seconds(_ key: String, in range: ClosedRange<Double>) throws(EngineError) -> UInt64? {
            guard let member = members[key] else { return nil }
            guard let value = member.doubleValue, range.contains(value) else {
                throw EngineError(.invalidRequest, "display.\(key): expected \(range.lowerBound) to \(range.upperBound) seconds")
            }
            return UInt64((value * 1e9).rounded())
        }
        guard let period = try seconds("period", in: 0.002...1) else {
            throw EngineError(.invalidRequest, "display.period: expected the seconds between vblanks (0.002 to 1)")
        }
        let timing = DisplayTiming(period: period, vblank: try seconds("vblank", in: 0...1e9) ?? clock.now(),
                                   latency: try seconds("latency", in: 0...Double(DisplayTiming.maximumLatency) / 1e9),
                                   lead: try seconds("lead", in: 0...Double(DisplayTiming.maximumLead) / 1e9) ?? DisplayTiming.defaultLead)
        try checkDisplayLimits(timing, in: session)
        return timing
    }

    /// A display not yet followed must fit the limits (`replacing`: a subscription that moves to it).
    func checkDisplayLimits(_ timing: DisplayTiming, in session: Session, replacing: Subscription? = nil) throws(EngineError) {
        let others = hub.displaySubscriptions.filter { $0 !== replacing }
        let displays = Set(others.compactMap(\.display).map(DisplayKey.init))
        guard !displays.contains(DisplayKey(timing)) else { return }
        let own = Set(others.filter { $0.viewer == session.uid }.compactMap(\.display).map(DisplayKey.init))
        guard own.count < Self.maximumDisplaysPerUID, displays.count < Self.maximumDisplays else {
            throw EngineError(.limitExceeded, "display: at most \(Self.maximumDisplaysPerUID) distinct displays per uid and \(Self.maximumDisplays) in all (each costs a step per vblank); subscribe with the same display timing to share one")
        }
    }

    /// `display.sync {sub, vblank, period?}`: the client learned a vblank time (presentation feedback, a
    /// page flip); the subscription's following frames are in phase with it.
    func syncDisplay(_ params: Params, in session: Session) throws(EngineError) -> JSONValue {
        guard let id = params["sub"]?.intValue, let subscription = session.subscriptions[id] else {
            throw EngineError(.subscriptionNotFound, "sub: no subscription \(params["sub"]?.intValue.map(String.init) ?? "?") on this connection")
        }
        guard var timing = subscription.display else {
            throw EngineError(.invalidRequest, "sub: subscription \(id) follows no display (subscribe with display: {period})")
        }
        let previous = timing
        guard let vblank = params["vblank"]?.doubleValue, vblank >= 0, vblank <= 1e9 else {
            throw EngineError(.invalidRequest, "vblank: expected a CLOCK_MONOTONIC time in seconds")
        }
        timing.vblank = UInt64((vblank * 1e9).rounded())
        if let period = params["period"] {
            guard let seconds = period.doubleValue, (0.002...1).contains(seconds) else {
                throw EngineError(.invalidRequest, "period: expected 0.002 to 1 seconds")
            }
            timing.period = UInt64((seconds * 1e9).rounded())
            // A latency that defaulted to one period follows the new period.
            if previous.latency == DisplayTiming.defaultLatency(period: previous.period) {
                timing.latency = DisplayTiming.defaultLatency(period: timing.period)
            }
        }
        // A new phase or period is a new display: the same limits as at subscribe.
        if DisplayKey(timing) != DisplayKey(previous) { try checkDisplayLimits(timing, in: session, replacing: subscription) }
        subscription.display = timing
        subscription.nextVblank = 0
        return ["sub": .number(Double(id))]
    }

    /// One tick of the clock at wall time `now` (`dt` seconds after the previous one) while some
    /// subscription follows a display; see the type's comment.
    func displayTick(dt: Double, now: UInt64) {
        let rateStep = UInt64(1e9 / settings.rate), dtNanos = UInt64(max(dt, 0) * 1e9)
        var horizon = now &+ (hub.displaySubscriptions.compactMap(\.display).map(\.lookahead).max() ?? 0) &+ rateStep
        // The state moves by at most this tick's dt: when the horizon leaps (a display with a longer
        // lookahead joined, the clock stalled, the first display tick), the state is shifted, not
        // advanced, so no client can fast-forward anyone's animations. When it shrinks, the state runs
        // on from where it is.
        var state = stateTime ?? horizon
        if horizon > state &+ dtNanos &+ rateStep { state = horizon &- dtNanos &- rateStep }
        horizon = max(horizon, state &+ dtNanos)
        // The presents each display needs up to the horizon, in order; one step per distinct time.
        var points: [UInt64: [Subscription]] = [:]
        for subscription in hub.displaySubscriptions where !subscription.session.isClosed {
            guard let display = subscription.display else { continue }
            if subscription.nextVblank == 0 || display.present(of: subscription.nextVblank) <= max(state, subscription.lastPresent) {
                // Not in the past of the state or of what it was sent, and not already late to send.
                let earliest = max(state, subscription.lastPresent) &- min(display.latency, max(state, subscription.lastPresent))
                subscription.nextVblank = display.vblank(after: max(earliest, now &+ display.lead))
            }
            // After a stall, vblanks whose frame could no longer go out before them are skipped, not
            // sent late in a burst.
            if display.sendTime(of: subscription.nextVblank) &+ rateStep < now {
                subscription.nextVblank = display.vblank(after: max(now &+ display.lead, state &- min(display.latency, state)))
            }
            while display.present(of: subscription.nextVblank) <= horizon {
                points[display.present(of: subscription.nextVblank), default: []].append(subscription)
                subscription.nextVblank &+= display.period
            }
        }
        for present in points.keys.sorted() where present > state {
            for subscription in points[present]! { subscription.presentingAt = present }
            step(by: Double(present - state) / 1e9, frame: .present(present, points[present]!))
            state = present
        }
        if horizon > state {
            step(by: Double(horizon - state) / 1e9, frame: .rate)
            state = horizon
        }
        stateTime = state
        hub.releaseHeld(now: now)
    }

    /// Advances the engine by `dt` and publishes what changed for `frame`.
    private func step(by dt: Double, frame: SubscriptionHub.FrameStep) {
        context.ticks.advanceEngine(by: dt * settings.tickScale)
        let dirty = engine.dirtyProperties
        let now = time
        // A present also sends what changed at steps that were not for its display (a plan's control
        // frame, the `--rate` step after the presents, where an animation may have ended); a subscriber
        // that waited (its uid's budget, its `maxRate`) is served though nothing changed since.
        if !dirty.isEmpty || frame.hasPendingDisplayUpdates || hub.hasDeferredFrames {
            hub.publishFrame(dirty: dirty, store: engine.store, time: now, step: frame)
        }
        engine.clearFrame()
        context.ticks.publishEvents(time: now)
    }

    /// When the next held frame is due (the engine thread wakes for it), nil if none is held.
    package var nextHeldFrame: UInt64? {
        // A loop, not `compactMap(…).min()`: asked every tick, it allocated an array each time.
        var next: UInt64?
        for subscription in hub.displaySubscriptions {
            if let sendAt = subscription.held.first?.sendAt, sendAt < next ?? .max { next = sendAt }
        }
        return next
    }

    /// Sends the held frames whose time has come.
    package func releaseHeldFrames(now: UInt64) { hub.releaseHeld(now: now) }
}

/// What makes two display timings one display: the same vblanks and the same present times.
struct DisplayKey: Hashable {
    var period: UInt64
    var phase: UInt64
    var latency: UInt64

    init(_ timing: DisplayTiming) {
        period = timing.period
        phase = timing.vblank % timing.period
        latency = timing.latency
    }
}
