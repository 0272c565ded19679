import MotionWire

extension EngineContext {
    /// Protocol v1 methods (docs/protocol.md). Throws an `EngineError` whose code becomes the wire error.
    /// Returns nil when the reply comes later (`route.go` answers when its transition has ended).
    func respond(to request: Request, in session: Session) throws(EngineError) -> JSONValue? {
        let params = request.params
        if request.method != "hello" && !session.greeted {
            throw EngineError(.helloRequired, "the first request must be hello {\"protocol\": 1}")
        }
        try MethodKeys.check(request.method, params)
        switch request.method {
        case "hello": return try hello(params, session)
        case "plan.add" where params["targets"] != nil: return try addStaggered(request, params, in: session)
        case "plan.add":
            if params["stagger"] != nil { throw EngineError(.invalidRequest, "stagger: only with targets (a list of targets to stagger)") }
            let name = try params.optionalName("runtime")
            let runtime = try runtimeKey(name, for: session, .change)
            let target = try params.name("target")
            let plan = try params.object("plan")
            if request.lineLength > Self.maximumPlanBytes { try Self.checkSize(of: plan) }
            let planName = try params.optionalName("name")
            let journaled = journal.willBeJournaled(runtime)
            // A journaled plan is checked before it is written: the journal holds plans that were accepted.
            if journaled { try engine.check(plan) }
            let limit = quotas(of: runtime), shown = name ?? Engine.defaultRuntime
            return try journal.orApply(session, id: request.id, journaled: journaled,
                                      record: { [.add(runtime: runtime, target: target, plan: plan, name: planName, t: clock.wallNow())] }) { context throws(EngineError) in
                let performer = try context.engine.addPlan(plan, to: target, in: runtime, named: planName, quotas: limit)
                return ["runtime": .string(shown), "target": .string(target), "performer": .number(Double(performer))]
            }
        case "plan.remove":
            let runtime = try runtimeKey(try params.optionalName("runtime"), for: session, .change)
            let planName = try params.name("name"), target = try params.name("target")
            return try journal.orApply(session, id: request.id, journaled: journal.willBeJournaled(runtime),
                                      record: { [.remove(runtime: runtime, target: target, name: planName, t: clock.wallNow())] }) { context throws(EngineError) in
                ["removed": .bool(try context.engine.removePlan(named: planName, from: target, in: runtime))]
            }
        case "runtime.create":
            let name = try params.name("name")
            let key = try newRuntimeKey(name, for: session)
            let ephemeral = try params.optionalBool("ephemeral") ?? false
            let shared = try params.optionalBool("shared") ?? false
            let owner = ephemeral ? session.id : nil
            return try journal.orApply(session, id: request.id, journaled: journal.storage != nil && !ephemeral, creates: key,
                                      record: { [.create(runtime: key, shared: shared, t: clock.wallNow())] }) { context throws(EngineError) in
                try context.engine.createRuntime(key, ephemeralOwner: owner, shared: shared)
                if shared { context.hub.sharedRuntimes.insert(key) }
                return ["runtime": .string(name), "ephemeral": .bool(ephemeral), "shared": .bool(shared)]
            }
        case "runtime.destroy":
            let name = try params.name("name")
            let key = try runtimeKey(name, for: session, .change)
            guard OwnedName.split(key).name != Engine.defaultRuntime else {
                throw EngineError(.runtimeProtected, "name: the \"default\" runtime always exists")
            }
            return try journal.orApply(session, id: request.id, journaled: journal.willBeJournaled(key),
                                      record: { [.destroy(runtime: key, t: clock.wallNow())] }) { context throws(EngineError) in
                try context.destroyRuntime(key)
                return ["runtime": .string(name)]
            }
        case "runtime.state":
            let name = try params.optionalName("runtime")
            let limit = try params.optionalNumber("limit").map { Int(exactly: $0) ?? -1 } ?? 1000
            guard limit >= 1 else { throw EngineError(.invalidRequest, "limit: expected a positive integer") }
            guard limit <= Engine.maximumStatePage else {
                throw EngineError(.limitExceeded, "limit: \(limit); a runtime.state page holds at most \(Engine.maximumStatePage) targets")
            }
            var state = try engine.state(ofRuntime: try runtimeKey(name, for: session, .read),
                                         after: try params.optionalString("after"), limit: limit)
            state["runtime"] = .string(name ?? Engine.defaultRuntime)
            return state
        case "subscribe": return try subscribe(params, session, id: request.id)
        case "unsubscribe":
            guard let id = params["sub"]?.intValue else { throw EngineError(.invalidRequest, "sub: expected an integer") }
            guard let subscription = session.subscriptions.removeValue(forKey: id) else {
                throw EngineError(.subscriptionNotFound, "sub: no subscription \(id) on this connection")
            }
            hub.remove(subscription)
            hub.updateWatch(engine.store)
            return ["sub": .number(Double(id))]
        case "plan.sample":
            let plan = try params.object("plan")
            if request.lineLength > Self.maximumPlanBytes { try Self.checkSize(of: plan) }
            guard case .array(let elements)? = params["times"], !elements.isEmpty else {
                throw EngineError(.invalidRequest, "times: expected an array of 1 to \(Self.maximumSamples) numbers")
            }
            // Past the documented limit: `request.limit`, as every other limit answers.
            guard elements.count <= Self.maximumSamples else {
                throw EngineError(.limitExceeded, "times: \(elements.count) times; a sample asks for at most \(Self.maximumSamples)")
            }
            var times: [Double] = []
            for (index, element) in elements.enumerated() {
                guard let time = element.doubleValue, time >= 0, time <= Self.maximumSampleTime else {
                    throw EngineError(.invalidRequest, "times[\(index)]: expected a number of seconds from 0 to \(Int(Self.maximumSampleTime))")
                }
                times.append(time)
            }
            nextDryRun += 1
            let work = try SampleWork(plan: plan, property: try params.optionalName("property"), times: times, runtime: Self.reservedRuntimePrefix + "sample.\(nextDryRun)",
                                      frame: 1 / settings.rate, gestures: try Self.recordedGestures(params))
            perform(work, for: session, replyingTo: request.id)
            return nil
        case "display.sync": return try syncDisplay(params, in: session)
        case "gesture.push": return try pushGesture(params, in: session)
        case "gesture.velocity": return try gestureVelocity(params)
        case "router.configure": return try routers.configureRouter(params, replyingTo: request.id, in: session)
        case "router.remove": return try routers.removeRouter(params, replyingTo: request.id, in: session)
        case "route.go": return try routers.go(params, replyingTo: request.id, in: session)
        case "route.diff": return try routers.diff(params, session)
        case "route.resolve": return try routers.resolve(params, session)
        case "route.state": return try routers.routeState(params, session)
        case "timeline.attach", "timeline.scrub", "timeline.detach": return try timelineMethod(request.method, params, in: session, replyingTo: request.id)
        case "plugins.list": return pluginList()
        case "plugins.reload":
            guard session.role == .admin else {
                throw EngineError(.accessDenied, "plugins.reload is for root and the admin group (this connection is a client)")
            }
            let id = try params.optionalString("id")
            if let id, !engine.registry.plugins.contains(where: { $0.plugin.id == id }) {
                throw EngineError(.invalidRequest, "id: no plugin \"\(id)\" is loaded; plugins.list shows the ids")
            }
            guard let reloadPlugins = hooks.reloadPlugins else { throw EngineError(.internalError, "plugin reloading is not available") }
            let requestID = request.id, sessionID = session.id
            session.owedReplies += 1
            reloadPlugins(id) { context, result in
                context.sessions[sessionID]?.sendOwedReply(WireMessage.result(id: requestID, result))
            }
            return nil
        case "status": return status(session)
        case "settings.set":
            guard session.role == .admin else {
                throw EngineError(.accessDenied, "settings.set is for root and the admin group (this connection is a client)")
            }
            var next = settings
            if let speed = try params.optionalNumber("speed") {
                guard EngineSettings.isValid(speed: speed) else {
                    throw EngineError(.invalidRequest, "speed: expected 0 or \(EngineSettings.speeds.lowerBound) to \(EngineSettings.speeds.upperBound)")
                }
                next.speed = speed
            }
            if let reduceMotion = params["reduceMotion"] {
                guard case .bool(let on) = reduceMotion else { throw EngineError(.invalidRequest, "reduceMotion: expected true or false") }
                next.reduceMotion = on
            }
            let shown: JSONValue = ["speed": .number(next.speed), "reduceMotion": .bool(next.reduceMotion)]
            if next != settings {
                settings = next
                engine.trace(TraceEvent(kind: "settings.changed", fields: shown.objectValue ?? [:]))
            }
            return shown
        case "sync": return [:]
        default:
            throw EngineError(.unknownMethod, "method: \"\(request.method)\" is not a protocol v1 method of this server")
        }
    }

    private func hello(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        guard let version = params["protocol"]?.intValue else {
            throw EngineError(.invalidRequest, "protocol: expected the integer 1")
        }
        guard version == WireProtocol.version else {
            throw EngineError(.unsupportedVersion, "protocol: this server speaks protocol 1, not \(version)")
        }
        session.client = try params.optionalString("client") ?? ""
        session.greeted = true
        session.output.markGreeted()
        // The uid's own `default` begins when it first connects (docs/operations.md#a-plugin-that-crashes-the-daemon).
        _ = try? runtimeKey(nil, for: session, .read)
        return [
            "protocol": .number(Double(WireProtocol.version)), "server": "motiond", "version": .string(WireProtocol.softwareVersion),
            "limits": [
                "maxLineLength": .number(Double(settings.maximumLineLength)),
                "maxSubscriptions": .number(Double(settings.maximumSubscriptionsPerConnection)),
                "maxPlanBytes": .number(Double(Self.maximumPlanBytes)), "maxNameBytes": .number(Double(Params.maximumNameLength)),
                "maxSubscriptionTargets": .number(Double(Self.maximumSubscriptionTargets)),
            ],
            "capabilities": .array((["frames", "trace", "routes", "plan.sample", "curves", "hot-swap", "timeline", "gestures"]
                + (journal == nil ? [] : ["journal"])).map(JSONValue.string)),
            // Gesture samples are timed on this clock (docs/vocabulary.md#interactions): a client can check it reads the same one.
            "clock": "monotonic", "now": .number(Double(clock.now()) / 1e9),
            "planTypes": .array(engine.registry.planTypes.map { .string($0) }),
            "builtInPlanTypes": ["Sequence", "Group"],
            "role": .string(session.role.rawValue),
            "speed": .number(settings.speed), "reduceMotion": .bool(settings.reduceMotion),
        ]
    }

    private func subscribe(_ params: Params, _ session: Session, id requestID: JSONValue) throws(EngineError) -> JSONValue? {
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
        let display = try params["display"].map { value throws(EngineError) in try displayTiming(value, in: session) }
        if display != nil, !streams.contains("frames") {
            throw EngineError(.invalidRequest, "display: only a subscription to the \"frames\" stream follows a display")
        }
        if display != nil, maximumRate != nil {
            throw EngineError(.invalidRequest, "maxRate: a display-timed subscription gets one frame per vblank; give one or the other")
        }
        let sharedFrames = try sharedFrameChannel(params, streams: streams, display: display, session: session)
        let targets = try params.optionalStrings("targets")
        if let targets, targets.count > Self.maximumSubscriptionTargets {
            throw EngineError(.limitExceeded, "targets: \(targets.count) names; a subscription filters on at most \(Self.maximumSubscriptionTargets) targets (subscribe to a runtime instead)")
        }
        // Names, as everywhere (≤ 256 bytes): the quota counts names, so a name's size is bounded too.
        for (index, target) in (targets ?? []).enumerated() {
            try Params.check(name: target, "targets[\(index)]", maximumLength: Params.maximumNameLength)
        }
        if let targets, filterTargets(of: session.uid) + targets.count > settings.quotas.filterTargets {
            throw quotaExceeded("filterTargets", session.uid)
        }
        let subscription = Subscription(
            id: session.nextSubscription, session: session, frames: streams.contains("frames"),
            trace: streams.contains("trace"), routes: streams.contains("routes"),
            runtime: try params.optionalName("runtime").map { name throws(EngineError) in try runtimeKey(name, for: session, .subscribe) },
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

    /// Target names the subscriptions of `uid`'s connections filter on, together.
    func filterTargets(of uid: UInt32) -> Int {
        sessions.values.reduce(0) { total, session in
            session.uid != uid ? total : session.subscriptions.values.reduce(total) { $0 + ($1.targets?.count ?? 0) }
        }
    }

    private func pluginList() -> JSONValue {
        let registry = engine.registry
        let current = Set(registry.current.map { "\($0.plugin.id)#\($0.generation)" })
        let plugins = registry.plugins.map { entry -> JSONValue in
            let owned = entry.plugin.factories.map { JSONValue.string($0.planType) }
            return [
                "id": .string(entry.plugin.id), "version": .string(entry.plugin.version),
                "generation": .number(Double(entry.generation)), "file": .string(entry.plugin.file),
                "hash": .string(entry.hash), "current": .bool(current.contains("\(entry.plugin.id)#\(entry.generation)")),
                "buildTag": .string(entry.plugin.buildTag), "planTypes": .array(owned),
                "schemas": .object(Dictionary(entry.plugin.factories.map { ($0.planType, $0.schema?.json ?? .null) },
                                              uniquingKeysWith: { first, _ in first })),
                "functions": .array(entry.plugin.functions.map { ["name": .string($0.name), "signature": .string($0.signature)] }),
            ]
        }
        let conflicts = registry.conflicts.map { conflict -> JSONValue in
            ["planType": .string(conflict.planType),
             "kept": ["plugin": .string(conflict.keptPlugin), "file": .string(conflict.keptFile)],
             "ignored": ["plugin": .string(conflict.ignoredPlugin), "file": .string(conflict.ignoredFile)]]
        }
        let rejected = registry.rejected.map { JSONValue.object(["file": .string($0.file), "reason": .string($0.reason)]) }
        return ["plugins": .array(plugins), "conflicts": .array(conflicts), "rejected": .array(rejected),
                "hostKeys": Self.hostKeys, "builtInSchemas": Self.builtInSchemas]
    }

    /// Keys the host takes from any plan before its plugin's schema is checked (docs/vocabulary.md).
    static let hostKeys: JSONValue = [
        "essential": ["type": "boolean", "description": "Animates even under reduce motion (every other plan then completes at once)."],
    ]

    /// The schemas of the plan types built into the engine (`Sequence`, `Group`), as `plugins.list` shows them.
    static var builtInSchemas: JSONValue {
        func composite(_ list: String, _ what: String) -> JSONValue {
            ["type": "object", "required": ["type", .string(list)], "properties": [
                "type": ["type": "string"],
                list: ["type": "array", "minItems": 1, "items": ["type": "object"], "description": .string(what)],
                "delay": ["type": "number", "minimum": 0, "maximum": 3600, "description": "Seconds before it starts."],
                "essential": ["type": "boolean", "description": "Animates even under reduce motion."],
            ]]
        }
        return ["Sequence": composite("steps", "Plans run one after another, each when the previous ends finished; they nest."),
                "Group": composite("plans", "Plans started together; it ends when all have ended; they nest.")]
    }

    private func status(_ session: Session) -> JSONValue {
        let tick = statistics.summary
        var status: JSONValue = [
            "version": .string(WireProtocol.softwareVersion), "rate": .number(settings.rate),
            "uptime": .number((time * 1000).rounded() / 1000), "clients": .number(Double(sessions.count)),
            "plugins": .number(Double(engine.registry.current.count)),
            "runtimes": .number(Double(engine.usage.values.reduce(0) { $0 + $1.runtimes })),
            "animations": .number(Double(engine.activeTokenCount)),
            "performers": .number(Double(engine.performerCount)),
            "subscriptions": .number(Double(hub.subscriptions.count)),
            "speed": .number(settings.speed), "reduceMotion": .bool(settings.reduceMotion),
            "tick": [
                "p50_ms": .number(rounded(tick.p50Milliseconds)), "p99_ms": .number(rounded(tick.p99Milliseconds)),
                "max_ms": .number(rounded(tick.maxMilliseconds)), "late_p99_ms": .number(rounded(tick.lateP99Milliseconds)),
                "overruns": .number(Double(tick.overruns)), "ticks": .number(Double(tick.ticks)),
            ],
        ]
        if session.role == .admin { status["usage"] = usageByUID() }
        return status
    }

    private func rounded(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }
}
