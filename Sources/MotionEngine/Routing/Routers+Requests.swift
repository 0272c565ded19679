import MotionRoutes
import MotionWire

/// Routers (docs/routes.md): configuration, the pure queries, and performing transitions on the engine thread.
extension Routers {
    static let maximumRouteText = 64 << 10

    /// What a router's plans are checked against: the loaded plan types and their schemas, with their
    /// tokens (docs/themes.md) as `owner` sees them now (they are resolved again when they run).
    func planCheck(for owner: UInt32) -> RouterConfiguration.PlanCheck {
        let (engine, themes) = (engine, context.themes)
        return RouterConfiguration.PlanCheck(planTypes: Set(engine.planTypes)) { plan throws(EngineError) in
            try engine.check(try themes.resolve(plan, for: owner).plan)
        }
    }

    // MARK: Methods

    /// Saved, then applied: a failed save changes nothing. With `offload` (the daemon) the save runs on
    /// another thread and the reply comes when it is applied; the router is busy meanwhile.
    func configureRouter(_ params: Params, replyingTo id: JSONValue, in session: Session) throws(EngineError) -> JSONValue? {
        let scheme = try self.scheme(params)
        let owner = session.uid, key = OwnedName.key(owner, scheme)
        let json: JSONValue = ["routes": params["routes"] ?? .null, "transitions": params["transitions"] ?? .null]
        let configuration = try RouterConfiguration(json, planCheck: planCheck(for: owner), vocabulary: engine.vocabulary)
        guard !configuringSchemes.contains(key) else {
            throw EngineError(.routerBusy, "\(scheme):// is being configured; try again when that is answered")
        }
        if let router = all[key], router.isBusy {
            throw EngineError(.routerBusy, "\(scheme):// is performing a transition; configure it when it has ended")
        }
        let url = (all[key]?.state ?? RouteState()).url(scheme: scheme)
        try checkRouterQuotas(owner: owner, replacing: all[key], bytes: JSONWriter.bytes(json).count + url.utf8.count)
        guard let store = store, let offload = hooks.offload, let onEngineThread = hooks.onEngineThread else {
            try store?.save(owner: owner, scheme: scheme, configuration: json, url: url)
            return apply(configuration, to: scheme, owner: owner)
        }
        configuringSchemes.insert(key)
        session.owedReplies += 1
        let sessionID = session.id
        offload {
            let saved = Result { () throws(EngineError) in try store.save(owner: owner, scheme: scheme, configuration: json, url: url) }
            onEngineThread { context in
                context.routers.configuringSchemes.remove(key)
                let reply: JSONValue
                switch saved {
                case .success: reply = WireMessage.result(id: id, context.routers.apply(configuration, to: scheme, owner: owner))
                case .failure(let error):
                    context.logger.error("router configuration not saved", metadata: ["scheme": "\(scheme)", "error": "\(error.message)"])
                    reply = WireMessage.error(id: id, code: error.code, message: error.message)
                }
                context.sessions[sessionID]?.sendOwedReply(reply)
            }
        }
        return nil
    }

    /// `router.remove`: forgets the caller's router (durably first, as configure saves first) and ends its
    /// runtime. Refused while it performs or is being configured.
    func removeRouter(_ params: Params, replyingTo id: JSONValue, in session: Session) throws(EngineError) -> JSONValue? {
        let router = try self.router(params, session)
        guard !configuringSchemes.contains(router.key), !router.isBusy else {
            throw EngineError(.routerBusy, "\(router.scheme):// is busy; remove it when its transition has ended")
        }
        let owner = router.owner, scheme = router.scheme, key = router.key
        guard let store = store, let offload = hooks.offload, let onEngineThread = hooks.onEngineThread else {
            try store?.remove(owner: owner, scheme: scheme)
            return forget(router)
        }
        configuringSchemes.insert(key)
        session.owedReplies += 1
        let sessionID = session.id
        offload {
            let removed = Result { () throws(EngineError) in try store.remove(owner: owner, scheme: scheme) }
            onEngineThread { context in
                context.routers.configuringSchemes.remove(key)
                let reply: JSONValue
                switch removed {
                case .success: reply = WireMessage.result(id: id, context.routers.all[key].map(context.routers.forget) ?? ["scheme": .string(scheme)])
                case .failure(let error):
                    context.logger.error("router not removed", metadata: ["scheme": "\(scheme)", "error": "\(error.message)"])
                    reply = WireMessage.error(id: id, code: error.code, message: error.message)
                }
                context.sessions[sessionID]?.sendOwedReply(reply)
            }
        }
        return nil
    }

    func forget(_ router: Router) -> JSONValue {
        all[router.key] = nil
        try? context.destroyRuntime(router.runtime)
        return ["scheme": .string(router.scheme), "removed": true]
    }

    /// A new router within the owner's `routers` quota (its runtime within `runtimes`), and its state
    /// within `stateBytes`.
    func checkRouterQuotas(owner: UInt32, replacing existing: Router?, bytes: Int) throws(EngineError) {
        let owned = all.values.filter { $0.owner == owner }
        if existing == nil, owned.count >= settings.quotas.routers { throw context.quotaExceeded("routers", owner) }
        if existing == nil, (engine.usage[owner]?.runtimes ?? 0) >= settings.quotas.runtimes {
            throw context.quotaExceeded("runtimes", owner)
        }
        let others = owned.reduce(0) { $0 + ($1 === existing ? 0 : $1.stateBytes) }
        if others + bytes > settings.quotas.stateBytes { throw context.quotaExceeded("stateBytes", owner) }
    }

    func apply(_ configuration: RouterConfiguration, to scheme: String, owner: UInt32) -> JSONValue {
        let key = OwnedName.key(owner, scheme)
        if let router = all[key] {
            router.configuration = configuration
            router.problems = []
        } else {
            let router = Router(scheme: scheme, owner: owner, configuration: configuration)
            all[key] = router
            try? engine.createRuntime(router.runtime)
        }
        let url = all[key]!.url
        return ["scheme": .string(scheme), "routes": .number(Double(configuration.routes.count)),
                "url": .string(url), "persistent": .bool(store != nil)]
    }

    /// `route.go`: answered when the transition has ended (or at once when it fails to start).
    func go(_ params: Params, replyingTo id: JSONValue, in session: Session) throws(EngineError) -> JSONValue? {
        let router = try self.router(params, session)
        let to = try params.string("to")
        guard to.utf8.count <= Self.maximumRouteText else {
            throw EngineError(.invalidRequest, "to: longer than \(Self.maximumRouteText) bytes")
        }
        let mode = try params.optionalString("mode") ?? "start"
        guard mode == "start" || mode == "enqueue" else {
            throw EngineError(.invalidRequest, "mode: expected \"start\" or \"enqueue\"")
        }
        let request = Router.Request(
            to: to, animated: try params.optionalBool("animated") ?? true, reuse: try params.optionalBool("reuse") ?? false,
            perform: try params.optionalBool("perform") ?? true,
            reply: { [weak session] result in
                let reply = switch result {
                case .success(let value): WireMessage.result(id: id, value)
                case .failure(let error): WireMessage.error(id: id, code: error.code, message: error.message)
                }
                session?.sendOwedReply(reply)
            })
        guard !configuringSchemes.contains(router.key) else {
            throw EngineError(.routerBusy, "\(router.scheme):// is being configured; go there when that is answered")
        }
        if router.isBusy {
            guard mode == "enqueue" else {
                let target = router.running.map { " to \($0.to.url(scheme: router.scheme))" } ?? ""
                throw EngineError(.routerBusy, "\(router.scheme):// is performing a transition\(target); use mode \"enqueue\" to queue")
            }
            guard router.queue.count < Router.maximumQueue else {
                throw EngineError(.routerBusy, "\(router.scheme):// already has \(Router.maximumQueue) queued transitions")
            }
            do {
                _ = try router.destination(for: to, reuse: request.reuse)
            } catch where [.routeMalformed, .routeSchemeMismatch].contains(error.code) {
                throw error  // a syntax error never becomes valid; a state-dependent one might
            } catch {}
            session.owedReplies += 1
            router.queue.append(request)
            return nil
        }
        // Owed before `begin`, which may already answer (a transition to the current state) through `reply`.
        session.owedReplies += 1
        do throws(EngineError) {
            try begin(request, on: router)
        } catch {
            session.owedReplies -= 1
            throw error
        }
        drive(router)
        return nil
    }

    func diff(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        let scheme = try self.scheme(params)
        let from = try params.optionalString("from").map { text throws(EngineError) in try url(text, scheme: scheme, field: "from") }
            ?? all[OwnedName.key(session.uid, scheme)]?.state ?? RouteState()
        let to = try url(try params.string("to"), scheme: scheme, field: "to")
        return [
            "from": .string(from.url(scheme: scheme)), "to": .string(to.url(scheme: scheme)),
            "updates": .array(RouteDiff.updates(from: from, to: to).map(\.json)),
        ]
    }

    func resolve(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        let scheme = try self.scheme(params)
        let from = try params.optionalString("from").map { text throws(EngineError) in try url(text, scheme: scheme, field: "from") }
            ?? all[OwnedName.key(session.uid, scheme)]?.state ?? RouteState()
        let text = try params.string("path")
        let to = RouteURL.looksAbsolute(text) ? try url(text, scheme: scheme, field: "path") : try path(text, from: from, field: "path")
        return to.json(scheme: scheme)
    }

    func path(_ text: String, from: RouteState, field: String) throws(EngineError) -> RouteState {
        do throws(RouteError) {
            return try RoutePath.resolve(text, from: from)
        } catch {
            throw EngineError(routeError: RouteError(error.code, "\(field): \(error.message)"))
        }
    }

    /// One router, or without `scheme` every router the caller may see (admins: every uid's, with `owner`).
    func routeState(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        guard params["scheme"] != nil else {
            let visible = all.values.filter { $0.owner == session.uid || session.role == .admin }
                .sorted { ($0.owner, $0.scheme) < ($1.owner, $1.scheme) }
            return ["routers": .array(visible.map { describe($0, for: session) })]
        }
        return describe(try router(params, session), for: session)
    }

    func describe(_ router: Router, for session: Session) -> JSONValue {
        guard case .object(var members) = router.state.json(scheme: router.scheme) else { return .null }
        members["scheme"] = .string(router.scheme)
        members["runtime"] = .string(OwnedName.display(router.runtime, for: session.uid))
        if router.owner != session.uid { members["owner"] = .number(Double(router.owner)) }
        members["transitioning"] = .bool(router.running != nil)
        if let running = router.running { members["to"] = .string(running.to.url(scheme: router.scheme)) }
        members["queued"] = .number(Double(router.queue.count))
        members["routes"] = .object(router.configuration.routes.mapValues { .string($0.kind.rawValue) })
        members["persistent"] = .bool(store != nil)
        if !router.problems.isEmpty { members["problems"] = .array(router.problems.map(JSONValue.string)) }
        return .object(members)
    }

    func scheme(_ params: Params) throws(EngineError) -> String {
        let scheme = try params.name("scheme", maximumLength: 64)
        guard RouteURL.isValidScheme(scheme) else {
            throw EngineError(.invalidRequest, "scheme: a letter followed by letters, digits, '+', '-' or '.'")
        }
        return scheme
    }

    /// The caller's router of `scheme` (another uid's is not found).
    func router(_ params: Params, _ session: Session) throws(EngineError) -> Router {
        let scheme = try self.scheme(params)
        guard let router = all[OwnedName.key(session.uid, scheme)] else {
            throw EngineError(.routerNotFound, "scheme: no router for \(scheme):// (router.configure declares one)")
        }
        return router
    }

    func url(_ text: String, scheme: String, field: String) throws(EngineError) -> RouteState {
        do throws(RouteError) {
            let url = try RouteURL(parsing: text)
            guard url.scheme == scheme else {
                throw RouteError(.schemeMismatch, "\(url.scheme):// is not \(scheme)://")
            }
            return url.state
        } catch {
            throw EngineError(routeError: RouteError(error.code, "\(field): \(error.message)"))
        }
    }
}
