import MotionRoutes
import MotionWire

/// Performing routers' transitions on the engine thread (docs/routes.md, Performing): what each
/// `RouteTransition` asks for is carried out here, in order.
extension Routers {
    /// Resolves a request against the router's current state and starts its transition. Going where the
    /// router already is answers at once and announces nothing.
    func begin(_ request: Router.Request, on router: Router) throws(EngineError) {
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
    /// transition asks (`RouteTransition.next`), ends it, starts the next queued one. In slices of
    /// `EngineContext.sliceNanos` when the host lends its owner's lane to wait in (the daemon): 256 screens
    /// pushed unanimated, or popped in one update, held the engine thread for tens of milliseconds at
    /// once; the rest waits its turn with the owner's requests, the clock ticking in between (tests and
    /// tools without the lane drive a transition to its end at once).
    func drive(_ router: Router) {
        let deadline = hooks.onEngineThreadFor == nil ? UInt64.max : WorkClock.now() &+ EngineContext.sliceNanos
        var added = false
        while true {
            guard addPhase(of: router, until: deadline, added: &added) else { return continueLater(router) }
            guard let transition = router.running else {
                guard let next = router.queue.popFirst() else { return }
                do throws(EngineError) { try begin(next, on: router) } catch { next.reply(.failure(error)) }
                continue
            }
            switch transition.next(now: time, runtimeIsActive: engine.isActive(runtime: router.runtime)) {
            case .save(let destination): save(destination, of: router, for: transition)
            case .publish(let name, let fields): publishRoute(name, router, fields)
            case .addPlans(let phase):
                // Added at the top of the loop, as far as the slice goes.
                router.phaseLeft = phase[...]
                router.phaseErrors = []
            case .apply(let state): router.state = state
            case .reply(let result): transition.reply(result)
            case .wait: return
            case .finished:
                router.running = nil
                endLeftScreens(of: router)
            }
        }
    }

    /// Adds what is left of the phase under way until `deadline` (at least one plan in a drive: `added`);
    /// false while some is left. The transition hears of the phase's errors when it is done.
    private func addPhase(of router: Router, until deadline: UInt64, added: inout Bool) -> Bool {
        while !router.phaseLeft.isEmpty {
            guard !added || WorkClock.now() < deadline else { return false }
            added = true
            let (target, plan) = router.phaseLeft.removeFirst()
            do throws(EngineError) {
                // Its tokens (docs/themes.md) as the router's owner sees them when the plan runs.
                let (resolved, used) = try context.themes.resolve(plan, for: router.owner)
                try engine.addPlan(resolved, to: target, in: router.runtime, quotas: settings.quotas)
                // …and carried on by a retune of those tokens while it runs (docs/themes.md#live-retune).
                context.themes.planAdded(original: plan, resolved: resolved, used: used, runtime: router.runtime,
                                         target: target, name: nil, uid: router.owner)
            } catch {
                router.phaseErrors.append("\(target): \(error.message)")
            }
        }
        router.running?.planErrors(router.phaseErrors)
        router.phaseErrors = []
        return true
    }

    /// The transition's next slice, in its owner's lane (once, however many drives stopped short).
    private func continueLater(_ router: Router) {
        guard !router.continues, let later = hooks.onEngineThreadFor else { return }
        router.continues = true
        let key = router.key
        later(router.owner, false) { context in
            guard let router = context.routers.all[key] else { return }
            router.continues = false
            context.routers.drive(router)
        }
    }

    /// Saves where a transition leads before it starts. With `offload` set (the daemon) the write runs on
    /// another thread and the answer comes back through `onEngineThread`, so a slow disk never delays a
    /// tick; without it (tests, tools) it runs here.
    func save(_ destination: RouteState, of router: Router, for transition: RouteTransition) {
        guard let store = store else { return transition.saved(.success(())) }
        let scheme = router.scheme, owner = router.owner, key = router.key
        let configuration = router.configuration.json, url = destination.url(scheme: scheme)
        guard let offload = hooks.offload, let onEngineThread = hooks.onEngineThread else {
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
                guard let router = context.routers.all[key], let running = router.running, running.id == id else { return }
                if case .failure(let error) = result {
                    context.logger.error("router state not saved", metadata: ["scheme": "\(scheme)", "error": "\(error.message)"])
                }
                running.saved(result)
                context.routers.drive(router)
            }
        }
    }

    func driveWaiting() {
        for router in all.values where router.running?.isWaitingForRuntime == true { drive(router) }
    }

    func publishRoute(_ name: String, _ router: Router, _ fields: [String: JSONValue]) {
        var fields = fields
        fields["scheme"] = .string(router.scheme)
        fields["runtime"] = .string(router.runtime)
        // After the frame with the values the route set (README.md, protocol: an unanimated route's end too).
        if context.ticks.isTicking || context.ticks.holds(nil) {
            context.ticks.routeEvents.append((name, fields))
        } else {
            hub.publishRoute(name, fields, time: time)
        }
    }
}
