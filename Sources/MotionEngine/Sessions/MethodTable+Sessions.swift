import MotionWire

/// `hello`, `subscribe` and `status`: what a connection says of itself, what it follows, how the daemon is.
extension MethodTable {
    func hello(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        guard let version = params["protocol"]?.intValue else {
            throw EngineError(.invalidRequest, "protocol: expected the integer 1")
        }
        guard version == WireProtocol.version else {
            throw EngineError(.unsupportedVersion, "protocol: this server speaks protocol 1, not \(version)")
        }
        // What the client calls itself is logged and shown to admins: a name, bounded like every name
        // (64 connections with 1 MB names wrote 128 MB of log in 70 s); empty is allowed.
        let client = try params.optionalString("client") ?? ""
        if !client.isEmpty { try Params.check(name: client, "client", maximumLength: Params.maximumNameLength) }
        session.client = client
        session.greeted = true
        session.output.markGreeted()
        // The uid's own `default` begins when it first connects (docs/operations.md#a-plugin-that-crashes-the-daemon).
        _ = try? context.runtimeKey(nil, for: session, .read)
        return [
            "protocol": .number(Double(WireProtocol.version)), "server": "motiond", "version": .string(WireProtocol.softwareVersion),
            "limits": [
                "maxLineLength": .number(Double(settings.maximumLineLength)),
                "maxSubscriptions": .number(Double(settings.maximumSubscriptionsPerConnection)),
                "maxPlanBytes": .number(Double(EngineContext.maximumPlanBytes)), "maxNameBytes": .number(Double(Params.maximumNameLength)),
                "maxSubscriptionTargets": .number(Double(EngineContext.maximumSubscriptionTargets)),
            ],
            "capabilities": .array((["frames", "trace", "routes", "plan.sample", "curves", "hot-swap", "timeline", "gestures"]
                + (context.journal.storage == nil ? [] : ["journal"])).map(JSONValue.string)),
            // Gesture samples are timed on this clock (docs/vocabulary.md#interactions): a client can check it reads the same one.
            "clock": "monotonic", "now": .number(Double(clock.now()) / 1e9),
            "planTypes": .array(engine.registry.planTypes.map { .string($0) }),
            "builtInPlanTypes": ["Sequence", "Group"],
            "role": .string(session.role.rawValue),
            "speed": .number(settings.speed), "reduceMotion": .bool(settings.reduceMotion),
        ]
    }

    func subscribe(_ params: Params, _ session: Session, id requestID: JSONValue) throws(EngineError) -> JSONValue? {
        guard let streams = try params.optionalStrings("streams"), !streams.isEmpty else {
            throw EngineError(.invalidRequest, "streams: expected a non-empty array of \"frames\", \"trace\", \"routes\"")
        }
        for (index, stream) in streams.enumerated() where !["frames", "trace", "routes"].contains(stream) {
            throw EngineError(.invalidRequest, "streams[\(index)]: unknown stream \"\(stream)\"")
        }
        let maximumRate = try params.optionalNumber("maxRate")
        if let maximumRate, !(maximumRate > 0) { throw EngineError(.invalidRequest, "maxRate: expected a positive number") }
        guard session.subscriptions.count < settings.maximumSubscriptionsPerConnection else {
            throw EngineError(.subscriptionLimit,
                              "at most \(settings.maximumSubscriptionsPerConnection) subscriptions per connection")
        }
        guard subscriptions(of: session.uid) < settings.quotas.subscriptions else {
            throw context.quotaExceeded("subscriptions", session.uid)
        }
        let display = try params["display"].map { value throws(EngineError) in try context.display.displayTiming(value, in: session) }
        if display != nil, !streams.contains("frames") {
            throw EngineError(.invalidRequest, "display: only a subscription to the \"frames\" stream follows a display")
        }
        if display != nil, maximumRate != nil {
            throw EngineError(.invalidRequest, "maxRate: a display-timed subscription gets one frame per vblank; give one or the other")
        }
        let sharedFrames = try sharedFrameChannel(params, streams: streams, display: display, session: session)
        let targets = try params.optionalStrings("targets")
        if let targets, targets.count > EngineContext.maximumSubscriptionTargets {
            throw EngineError(.limitExceeded, "targets: \(targets.count) names; a subscription filters on at most \(EngineContext.maximumSubscriptionTargets) targets (subscribe to a runtime instead)")
        }
        // Names, as everywhere (≤ 256 bytes): the quota counts names, so a name's size is bounded too.
        for (index, target) in (targets ?? []).enumerated() {
            try Params.check(name: target, "targets[\(index)]", maximumLength: Params.maximumNameLength)
        }
        if let targets, filterTargets(of: session.uid) + targets.count > settings.quotas.filterTargets {
            throw context.quotaExceeded("filterTargets", session.uid)
        }
        let subscription = Subscription(
            id: session.nextSubscription, session: session, frames: streams.contains("frames"),
            trace: streams.contains("trace"), routes: streams.contains("routes"),
            runtime: try params.optionalName("runtime").map { name throws(EngineError) in try context.runtimeKey(name, for: session, .subscribe) },
            targets: targets.map(Set.init), maximumRate: maximumRate)
        subscription.display = display
        subscription.sharedFrames = sharedFrames
        session.nextSubscription += 1
        session.subscriptions[subscription.id] = subscription
        hub.add(subscription)
        hub.updateWatch(engine.store)
        if let sharedFrames {
            // The reply carries the region's descriptor (SCM_RIGHTS on its first byte).
            let reply: JSONValue = ["sub": .number(Double(subscription.id)), "transport": "shm",
                                    "size": .number(Double(sharedFrames.size)), "slots": .number(Double(sharedFrames.capacity))]
            session.output.send(WireMessage.line(WireMessage.result(id: requestID, reply)),
                                passing: sharedFrames.takeReaderDescriptor())
            return nil
        }
        return ["sub": .number(Double(subscription.id))]
    }

    /// Subscriptions of `uid`'s connections, together (the `subscriptions` quota).
    func subscriptions(of uid: UInt32) -> Int {
        sessions.values.reduce(0) { $0 + ($1.uid == uid ? $1.subscriptions.count : 0) }
    }

    /// Target names the subscriptions of `uid`'s connections filter on, together.
    /// Counting those still leaving the filter index (`FilterIndex.continueRemovals`): connections closed
    /// faster than their filters leave do not take a uid past its quota.
    func filterTargets(of uid: UInt32) -> Int {
        sessions.values.reduce(hub.leavingTargets(of: uid)) { total, session in
            session.uid != uid ? total : session.subscriptions.values.reduce(total) { $0 + ($1.targets?.count ?? 0) }
        }
    }

    func status(_ session: Session, _ params: Params = Params([:])) -> JSONValue {
        let tick = context.statistics.summary
        // A client counts its own uid's (docs/protocol.md, Ownership: other uids' motion is not disclosed,
        // not even as totals that move when theirs does); an admin counts everyone's.
        let uid: UInt32? = session.role == .admin ? nil : session.uid
        let usage = uid.map { engine.usage[$0] ?? Engine.Usage() }
        var status: JSONValue = [
            "version": .string(WireProtocol.softwareVersion), "rate": .number(settings.rate),
            "uptime": .number((time * 1000).rounded() / 1000),
            "clients": .number(Double(uid.map { uid in sessions.values.reduce(0) { $0 + ($1.uid == uid ? 1 : 0) } } ?? sessions.count)),
            "plugins": .number(Double(engine.registry.current.count)),
            "runtimes": .number(Double(usage?.runtimes ?? engine.usage.values.reduce(0) { $0 + $1.runtimes })),
            "animations": .number(Double(uid.map { engine.animations(of: $0) } ?? engine.activeTokenCount)),
            "performers": .number(Double(usage?.performers ?? engine.performerCount)),
            "subscriptions": .number(Double(uid.map { subscriptions(of: $0) } ?? hub.subscriptions.count)),
            "speed": .number(settings.speed), "reduceMotion": .bool(settings.reduceMotion),
            "tick": [
                "p50_ms": .number(rounded(tick.p50Milliseconds)), "p99_ms": .number(rounded(tick.p99Milliseconds)),
                "max_ms": .number(rounded(tick.maxMilliseconds)), "late_p99_ms": .number(rounded(tick.lateP99Milliseconds)),
                "overruns": .number(Double(tick.overruns)), "ticks": .number(Double(tick.ticks)),
            ],
        ]
        status["engineScheduling"] = .string(context.ticks.schedulingClass)
        if let replay = context.journal.restoring {
            // docs/operations.md#animations-survive-a-restart: other requests wait until it is done.
            status["restoring"] = ["records": .number(Double(replay.done.of)), "done": .number(Double(replay.done.records))]
        }
        if session.role == .admin { status["usage"] = context.usageByUID() }
        // `{clients: true}`: the connections (an admin's view: every uid's; a client's: its own uid's).
        if params["clients"] == .bool(true) {
            status["connections"] = .array(sessions.values.sorted { $0.id < $1.id }
                .filter { session.role == .admin || $0.uid == session.uid }
                .map { other in
                    ["id": .number(Double(other.id)), "uid": other.peer.map { .number(Double($0.uid)) } ?? .null,
                     "pid": other.peer.map { .number(Double($0.pid)) } ?? .null, "client": .string(other.client),
                     "role": .string(other.role == .admin ? "admin" : "client"),
                     "subscriptions": .number(Double(hub.subscriptions.reduce(0) { $0 + ($1.session === other ? 1 : 0) }))]
                })
        }
        return status
    }

    func rounded(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }
}
