import MotionRoutes
import MotionWire

/// Routers (docs/routes.md): configuration, the pure queries, and performing transitions on the engine thread.
extension EngineContext {
    static let maximumRouteText = 64 << 10

    /// What a router's plans are checked against: the loaded plan types and their schemas.
    var planCheck: RouterConfiguration.PlanCheck {
        let engine = engine
        return RouterConfiguration.PlanCheck(planTypes: Set(engine.planTypes)) { plan throws(EngineError) in try engine.check(plan) }
    }

    // MARK: Methods

    /// Saved, then applied: a failed save changes nothing. With `offload` (the daemon) the save runs on
    /// another thread and the reply comes when it is applied; the router is busy meanwhile.
    func configureRouter(_ params: Params, replyingTo id: JSONValue, in session: Session) throws(EngineError) -> JSONValue? {
        let scheme = try self.scheme(params)
        let owner = session.uid, key = OwnedName.key(owner, scheme)
        let json: JSONValue = ["routes": params["routes"] ?? .null, "transitions": params["transitions"] ?? .null]
        let configuration = try RouterConfiguration(json, planCheck: planCheck)
        guard !configuringSchemes.contains(key) else {
            throw EngineError(.routerBusy, "\(scheme):// is being configured; try again when that is answered")
        }
        if let router = routers[key], router.isBusy {
            throw EngineError(.routerBusy, "\(scheme):// is performing a transition; configure it when it has ended")
        }
        let url = (routers[key]?.state ?? RouteState()).url(scheme: scheme)
        try checkRouterQuotas(owner: owner, replacing: routers[key], bytes: JSONWriter.bytes(json).count + url.utf8.count)
        guard let store = routerStore, let offload, let onEngineThread else {
            try routerStore?.save(owner: owner, scheme: scheme, configuration: json, url: url)
            return apply(configuration, to: scheme, owner: owner)
        }
        configuringSchemes.insert(key)
        session.owedReplies += 1
        let sessionID = session.id
        offload {
            let saved = Result { () throws(EngineError) in try store.save(owner: owner, scheme: scheme, configuration: json, url: url) }
            onEngineThread { context in
                context.configuringSchemes.remove(key)
                let reply: JSONValue
                switch saved {
                case .success: reply = WireMessage.result(id: id, context.apply(configuration, to: scheme, owner: owner))
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
        guard let store = routerStore, let offload, let onEngineThread else {
            try routerStore?.remove(owner: owner, scheme: scheme)
            return forget(router)
        }
        configuringSchemes.insert(key)
        session.owedReplies += 1
        let sessionID = session.id
        offload {
            let removed = Result { () throws(EngineError) in try store.remove(owner: owner, scheme: scheme) }
            onEngineThread { context in
                context.configuringSchemes.remove(key)
                let reply: JSONValue
                switch removed {
                case .success: reply = WireMessage.result(id: id, context.routers[key].map(context.forget) ?? ["scheme": .string(scheme)])
                case .failure(let error):
                    context.logger.error("router not removed", metadata: ["scheme": "\(scheme)", "error": "\(error.message)"])
                    reply = WireMessage.error(id: id, code: error.code, message: error.message)
                }
                context.sessions[sessionID]?.sendOwedReply(reply)
            }
        }
        return nil
    }

    private func forget(_ router: Router) -> JSONValue {
        routers[router.key] = nil
        try? destroyRuntime(router.runtime)
        return ["scheme": .string(router.scheme), "removed": true]
    }

    /// A new router within the owner's `routers` quota (its runtime within `runtimes`), and its state
    /// within `stateBytes`.
    private func checkRouterQuotas(owner: UInt32, replacing existing: Router?, bytes: Int) throws(EngineError) {
        let owned = routers.values.filter { $0.owner == owner }
        if existing == nil, owned.count >= settings.quotas.routers { throw quotaExceeded("routers", owner) }
        if existing == nil, (engine.usage[owner]?.runtimes ?? 0) >= settings.quotas.runtimes {
            throw quotaExceeded("runtimes", owner)
        }
        let others = owned.reduce(0) { $0 + ($1 === existing ? 0 : $1.stateBytes) }
        if others + bytes > settings.quotas.stateBytes { throw quotaExceeded("stateBytes", owner) }
    }

    private func apply(_ configuration: RouterConfiguration, to scheme: String, owner: UInt32) -> JSONValue {
        let key = OwnedName.key(owner, scheme)
        if let router = routers[key] {
            router.configuration = configuration
            router.problems = []
        } else {
            let router = Router(scheme: scheme, owner: owner, configuration: configuration)
            routers[key] = router
            try? engine.createRuntime(router.runtime)
        }
        let url = routers[key]!.url
        return ["scheme": .string(scheme), "routes": .number(Double(configuration.routes.count)),
                "url": .string(url), "persistent": .bool(routerStore != nil)]
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
            ?? routers[OwnedName.key(session.uid, scheme)]?.state ?? RouteState()
        let to = try url(try params.string("to"), scheme: scheme, field: "to")
        return [
            "from": .string(from.url(scheme: scheme)), "to": .string(to.url(scheme: scheme)),
            "updates": .array(RouteDiff.updates(from: from, to: to).map(\.json)),
        ]
    }

    func resolve(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        let scheme = try self.scheme(params)
        let from = try params.optionalString("from").map { text throws(EngineError) in try url(text, scheme: scheme, field: "from") }
            ?? routers[OwnedName.key(session.uid, scheme)]?.state ?? RouteState()
        let text = try params.string("path")
        let to = RouteURL.looksAbsolute(text) ? try url(text, scheme: scheme, field: "path") : try path(text, from: from, field: "path")
        return to.json(scheme: scheme)
    }

    private func path(_ text: String, from: RouteState, field: String) throws(EngineError) -> RouteState {
        do throws(RouteError) {
            return try RoutePath.resolve(text, from: from)
        } catch {
            throw EngineError(routeError: RouteError(error.code, "\(field): \(error.message)"))
        }
    }

    /// One router, or without `scheme` every router the caller may see (admins: every uid's, with `owner`).
    func routeState(_ params: Params, _ session: Session) throws(EngineError) -> JSONValue {
        guard params["scheme"] != nil else {
            let visible = routers.values.filter { $0.owner == session.uid || session.role == .admin }
                .sorted { ($0.owner, $0.scheme) < ($1.owner, $1.scheme) }
            return ["routers": .array(visible.map { describe($0, for: session) })]
        }
        return describe(try router(params, session), for: session)
    }

    private func describe(_ router: Router, for session: Session) -> JSONValue {
        guard case .object(var members) = router.state.json(scheme: router.scheme) else { return .null }
        members["scheme"] = .string(router.scheme)
        members["runtime"] = .string(OwnedName.display(router.runtime, for: session.uid))
        if router.owner != session.uid { members["owner"] = .number(Double(router.owner)) }
        members["transitioning"] = .bool(router.running != nil)
        if let running = router.running { members["to"] = .string(running.to.url(scheme: router.scheme)) }
        members["queued"] = .number(Double(router.queue.count))
        members["routes"] = .object(router.configuration.routes.mapValues { .string($0.kind.rawValue) })
        members["persistent"] = .bool(routerStore != nil)
        if !router.problems.isEmpty { members["problems"] = .array(router.problems.map(JSONValue.string)) }
        return .object(members)
    }

    private func scheme(_ params: Params) throws(EngineError) -> String {
        let scheme = try params.name("scheme", maximumLength: 64)
        guard RouteURL.isValidScheme(scheme) else {
            throw EngineError(.invalidRequest, "scheme: a letter followed by letters, digits, '+', '-' or '.'")
        }
        return scheme
    }

    /// The caller's router of `scheme` (another uid's is not found).
    private func router(_ params: Params, _ session: Session) throws(EngineError) -> Router {
        let scheme = try self.scheme(params)
        guard let router = routers[OwnedName.key(session.uid, scheme)] else {
            throw EngineError(.routerNotFound, "scheme: no router for \(scheme):// (router.configure declares one)")
        }
        return router
    }

    private func url(_ text: String, scheme: String, field: String) throws(EngineError) -> RouteState {
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

    // MARK: Performing

    var isRouterWaiting: Bool { routers.values.contains { $0.running?.isWaitingForRuntime == true } }

    /// Resolves a request against the router's current state and starts its transition. Going where the
    /// router already is answers at once and announces nothing.
    private func begin(_ request: Router.Request, on router: Router) throws(EngineError) {
        let destination = try router.destination(for: request.to, reuse: request.reuse)
        if destination == router.state {
            request.reply(.success(["scheme": .string(router.scheme), "url": .string(router.url),
                                    "from": .string(router.url), "updates": [], "changed": false]))
            return
        }
        nextTransitionID += 1
        router.running = RouteTransition(id: nextTransitionID, scheme: router.scheme, from: router.state, to: destination,
                                         animated: request.animated, performs: request.perform,
                                         configuration: router.configuration, reply: request.reply)
    }

    /// Moves a router's transitions on as far as they can go without waiting: carries out what each
    /// transition asks (`RouteTransition.next`), ends it, starts the next queued one.
    func drive(_ router: Router) {
        while true {
            guard let transition = router.running else {
                guard let next = router.queue.popFirst() else { return }
                do throws(EngineError) { try begin(next, on: router) } catch { next.reply(.failure(error)) }
                continue
            }
            switch transition.next(now: time, runtimeIsActive: engine.isActive(runtime: router.runtime)) {
            case .save(let destination): save(destination, of: router, for: transition)
            case .publish(let name, let fields): publishRoute(name, router, fields)
            case .addPlans(let phase):
                var errors: [String] = []
                for (target, plan) in phase {
                    do throws(EngineError) {
                        try engine.addPlan(plan, to: target, in: router.runtime, quotas: settings.quotas)
                    } catch {
                        errors.append("\(target): \(error.message)")
                    }
                }
                transition.planErrors(errors)
            case .apply(let state): router.state = state
            case .reply(let result): transition.reply(result)
            case .wait: return
            case .finished:
                router.running = nil
                endLeftScreens(of: router)
            }
        }
    }

    /// Saves where a transition leads before it starts. With `offload` set (the daemon) the write runs on
    /// another thread and the answer comes back through `onEngineThread`, so a slow disk never delays a
    /// tick; without it (tests, tools) it runs here.
    private func save(_ destination: RouteState, of router: Router, for transition: RouteTransition) {
        guard let store = routerStore else { return transition.saved(.success(())) }
        let scheme = router.scheme, owner = router.owner, key = router.key
        let configuration = router.configuration.json, url = destination.url(scheme: scheme)
        guard let offload, let onEngineThread else {
            return transition.saved(Result { () throws(EngineError) in
                try store.save(owner: owner, scheme: scheme, configuration: configuration, url: url)
            })
        }
        let id = transition.id
        offload {
            let result = Result { () throws(EngineError) in
                try store.save(owner: owner, scheme: scheme, configuration: configuration, url: url)
            }
            onEngineThread { context in
                guard let router = context.routers[key], let running = router.running, running.id == id else { return }
                if case .failure(let error) = result {
                    context.logger.error("router state not saved", metadata: ["scheme": "\(scheme)", "error": "\(error.message)"])
                }
                running.saved(result)
                context.drive(router)
            }
        }
    }

    func driveWaitingRouters() {
        for router in routers.values where router.running?.isWaitingForRuntime == true { drive(router) }
    }

    private func publishRoute(_ name: String, _ router: Router, _ fields: [String: JSONValue]) {
        var fields = fields
        fields["scheme"] = .string(router.scheme)
        fields["runtime"] = .string(router.runtime)
        hub.publishRoute(name, fields, time: time)
    }

    // MARK: Restore

    /// Re-creates the routers saved in the state directory (at start, before the socket listens).
    package func restoreRouters(from store: any RouterStorage) -> (restored: [String], problems: [String]) {
        routerStore = store
        let (saved, problems) = store.loadAll()
        var restored: [String] = [], failures = problems
        for entry in saved {
            // A stored router is never dropped for what may be fixed: plans of a type no loaded plugin
            // provides, or a URL the grammar no longer reads. It keeps its configuration and says so.
            var notes: [String] = []
            let configuration: RouterConfiguration
            do throws(EngineError) {
                configuration = try RouterConfiguration(entry.configuration, planCheck: planCheck)
            } catch {
                do throws(EngineError) {
                    configuration = try RouterConfiguration(entry.configuration, planTypes: nil)
                    notes.append("\(error.message) (kept; those plans fail until a loaded plugin accepts them)")
                } catch {
                    failures.append("\(entry.scheme): \(error.message)")
                    continue
                }
            }
            var state = RouteState()
            do throws(RouteError) {
                state = try RouteURL(parsing: entry.url).state
            } catch {
                notes.append("the stored URL \(entry.url) no longer parses (\(error.message)); the router starts at its root")
            }
            let router = Router(scheme: entry.scheme, owner: entry.owner, configuration: configuration, state: state)
            router.problems = notes
            routers[router.key] = router
            try? engine.createRuntime(router.runtime)
            restored.append(entry.scheme)
            failures += notes.map { "\(entry.scheme): \($0)" }
        }
        return (restored, failures)
    }
}
