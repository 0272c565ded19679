import MotionWire

/// The protocol's method table (docs/protocol.md, Methods): each request is checked, then handed to the
/// concept that answers it.
struct MethodTable: ContextPart {
    unowned let context: EngineContext

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
            let runtime = try context.runtimeKey(name, for: session, .change)
            let target = try params.name("target")
            var plan = try params.object("plan")
            if request.lineLength > EngineContext.maximumPlanBytes { try EngineContext.checkSize(of: plan) }
            // Tokens (`@name`, docs/themes.md) as the caller's uid sees them: the journal keeps the plan as resolved.
            // The runtime's owner's tokens (an admin adding to another uid's runtime adds that uid's motion).
            let original = plan, uid = OwnedName.split(runtime).owner ?? session.uid
            let (resolved, used) = try context.themes.resolve(plan, for: uid)
            plan = resolved
            let planName = try params.optionalName("name")
            let journaled = context.journal.willBeJournaled(runtime)
            // A journaled plan is checked before it is written: the journal holds plans that were accepted.
            if journaled { try Themes.namingTokens(used) { () throws(EngineError) in try engine.check(plan) } }
            let limit = context.quotas(of: runtime), shown = name ?? Engine.defaultRuntime
            return try context.journal.orApply(session, id: request.id, journaled: journaled,
                                      record: { [.add(runtime: runtime, target: target, plan: plan, name: planName, t: clock.wallNow(),
                                                      instant: engine.composition.instantMotion)] }) { context throws(EngineError) in
                let performer = try Themes.namingTokens(used) { () throws(EngineError) in
                    try context.engine.addPlan(plan, to: target, in: runtime, named: planName, quotas: limit)
                }
                context.themes.planAdded(original: original, resolved: plan, used: used, runtime: runtime, target: target,
                                         name: planName, uid: uid)
                return ["runtime": .string(shown), "target": .string(target), "performer": .number(Double(performer))]
            }
        case "plan.remove":
            let runtime = try context.runtimeKey(try params.optionalName("runtime"), for: session, .change)
            let planName = try params.name("name"), target = try params.name("target")
            return try context.journal.orApply(session, id: request.id, journaled: context.journal.willBeJournaled(runtime),
                                      record: { [.remove(runtime: runtime, target: target, name: planName, t: clock.wallNow())] }) { context throws(EngineError) in
                context.themes.planRemoved(runtime: runtime, target: target, name: planName)
                return ["removed": .bool(try context.engine.removePlan(named: planName, from: target, in: runtime))]
            }
        case "runtime.create":
            let name = try params.name("name")
            let key = try context.newRuntimeKey(name, for: session)
            let ephemeral = try params.optionalBool("ephemeral") ?? false
            let shared = try params.optionalBool("shared") ?? false
            let owner = ephemeral ? session.id : nil
            return try context.journal.orApply(session, id: request.id, journaled: context.journal.storage != nil && !ephemeral, creates: key,
                                      record: { [.create(runtime: key, shared: shared, t: clock.wallNow())] }) { context throws(EngineError) in
                try context.engine.createRuntime(key, ephemeralOwner: owner, shared: shared)
                if shared { context.hub.sharedRuntimes.insert(key) }
                return ["runtime": .string(name), "ephemeral": .bool(ephemeral), "shared": .bool(shared)]
            }
        case "runtime.destroy":
            let name = try params.name("name")
            let key = try context.runtimeKey(name, for: session, .change)
            guard OwnedName.split(key).name != Engine.defaultRuntime else {
                throw EngineError(.runtimeProtected, "name: the \"default\" runtime always exists")
            }
            return try context.journal.orApply(session, id: request.id, journaled: context.journal.willBeJournaled(key),
                                      record: { [.destroy(runtime: key, t: clock.wallNow())] }) { context throws(EngineError) in
                try context.destroyRuntime(key)
                return ["runtime": .string(name)]
            }
        case "runtime.speed":
            let name = try params.optionalName("runtime") ?? Engine.defaultRuntime
            let key = try context.runtimeKey(name, for: session, .pace)
            guard let speed = try params.optionalNumber("speed"), Timelines.runtimeSpeeds.contains(speed) else {
                throw EngineError(.invalidRequest, "speed: expected \(Timelines.runtimeSpeeds.lowerBound) to \(Int(Timelines.runtimeSpeeds.upperBound)) (1: the runtime's own pace; the global speed multiplies it)")
            }
            guard let scope = engine.runtimes[key] else { throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(name)\"") }
            engine.timelines.setSpeed(speed, runtime: scope)
            engine.trace(TraceEvent(kind: "runtime.speed.changed", runtime: key, fields: ["speed": .number(speed)]))
            return ["runtime": .string(name), "speed": .number(speed)]
        case "runtime.state":
            let name = try params.optionalName("runtime")
            let limit = try params.optionalNumber("limit").map { Int(exactly: $0) ?? -1 } ?? 1000
            guard limit >= 1 else { throw EngineError(.invalidRequest, "limit: expected a positive integer") }
            guard limit <= Engine.maximumStatePage else {
                throw EngineError(.limitExceeded, "limit: \(limit); a runtime.state page holds at most \(Engine.maximumStatePage) targets")
            }
            var state = try engine.state(ofRuntime: try context.runtimeKey(name, for: session, .read),
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
            var plan = try params.object("plan")
            if request.lineLength > EngineContext.maximumPlanBytes { try EngineContext.checkSize(of: plan) }
            let (resolved, used) = try context.themes.resolve(plan, for: session.uid)
            plan = resolved
            // Checked as `plan.add` checks it, so a sample is refused with the same words (an empty `steps`
            // was "plan.property: expected a string").
            try Themes.namingTokens(used) { () throws(EngineError) in _ = try engine.check(plan) }
            guard case .array(let elements)? = params["times"], !elements.isEmpty else {
                throw EngineError(.invalidRequest, "times: expected an array of 1 to \(EngineContext.maximumSamples) numbers")
            }
            // Past the documented limit: `request.limit`, as every other limit answers.
            guard elements.count <= EngineContext.maximumSamples else {
                throw EngineError(.limitExceeded, "times: \(elements.count) times; a sample asks for at most \(EngineContext.maximumSamples)")
            }
            var times: [Double] = []
            for (index, element) in elements.enumerated() {
                guard let time = element.doubleValue, time >= 0, time <= EngineContext.maximumSampleTime else {
                    throw EngineError(.invalidRequest, "times[\(index)]: expected a number of seconds from 0 to \(Int(EngineContext.maximumSampleTime))")
                }
                times.append(time)
            }
            let work = try SampleWork(plan: plan, tokens: used, property: try params.optionalName("property"), times: times, runtime: context.dryRuns.nextRuntime(EngineContext.reservedRuntimePrefix + "sample"),
                                      frame: 1 / settings.rate, gestures: try GestureRequests.recordedGestures(params),
                                      settings: try params.optionalBool("applySettings") == true ? settings : nil)
            context.dryRuns.perform(work, for: session, replyingTo: request.id)
            return nil
        case "display.sync": return try context.display.syncDisplay(params, in: session)
        case "gesture.push": return try context.gestures.pushGesture(params, in: session)
        case "gesture.velocity": return try context.gestures.gestureVelocity(params)
        case "router.configure": return try context.routers.configureRouter(params, replyingTo: request.id, in: session)
        case "router.remove": return try context.routers.removeRouter(params, replyingTo: request.id, in: session)
        case "route.go": return try context.routers.go(params, replyingTo: request.id, in: session)
        case "route.diff": return try context.routers.diff(params, session)
        case "route.resolve": return try context.routers.resolve(params, session)
        case "route.state": return try context.routers.routeState(params, session)
        case "timeline.attach", "timeline.scrub", "timeline.detach": return try context.scrubbing.timelineMethod(request.method, params, in: session, replyingTo: request.id)
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
        case "status": return status(session, params)
        case "metrics":
            // Every uid's series for an admin; a client's own (docs/operations.md#metrics).
            guard let render = hooks.metricsText else { throw EngineError(.internalError, "metrics are the daemon's (not available here)") }
            return ["text": .string(render(context, session.role == .admin ? nil : session.uid))]
        case "theme.get": return try context.themes.get(params, in: session)
        case "theme.set": return try context.themes.set(params, request: request, in: session)
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
                context.settings = next
                engine.trace(TraceEvent(kind: "settings.changed", fields: shown.objectValue ?? [:]))
            }
            // Kept (state directory) before the reply, even when unchanged: setting the file's value
            // again pins it too.
            guard let keep = hooks.settingsSet else { return shown }
            let requestID = request.id, sessionID = session.id
            session.owedReplies += 1
            keep(next.speed, next.reduceMotion) { context in
                context.sessions[sessionID]?.sendOwedReply(WireMessage.result(id: requestID, shown))
            }
            return nil
        case "sync": return [:]
        default:
            throw EngineError(.unknownMethod, "method: \"\(request.method)\" is not a protocol v1 method of this server")
        }
    }
}
