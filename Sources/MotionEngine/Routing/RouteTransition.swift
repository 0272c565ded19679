import MotionRoutes
import MotionWire

/// A transition in progress, as a state machine that returns actions. Whoever drives it (the engine
/// context) asks `next(now:runtimeIsActive:)` what to do, carries the action out and asks again, until
/// the answer is `.wait` (nothing to do until a save answers, the router's runtime goes idle, or time
/// passes) or `.finished`. It reads no clock and touches nothing itself, so it is tested with a manual
/// clock.
///
/// The order: save the destination durably (`.save`; nothing has changed yet, and a failed save ends the
/// transition with that error and no other effect), announce `route.transition.start`, perform each update
/// phase by phase (each phase's plans are added, then the next phase waits until the runtime is idle, at
/// most `updateTimeout`), announce its `route.update`, then make the destination the router's state,
/// announce `route.transition.end` and reply.
final class RouteTransition {
    /// Plans added together; the next phase starts when the router's runtime has gone idle.
    typealias Phase = [(target: String, plan: JSONValue)]

    enum Action {
        /// Save `to` durably, then call `saved(_:)`.
        case save(RouteState)
        /// Publish a route event with these fields (the scheme and runtime are the driver's to add).
        case publish(String, [String: JSONValue])
        /// Add these plans to the router's runtime; report refusals with `planErrors(_:)`.
        case addPlans(Phase)
        /// The destination becomes the router's state.
        case apply(RouteState)
        /// Answer the `route.go` that asked for this transition.
        case reply(Result<JSONValue, EngineError>)
        case wait
        case finished
    }

    private enum Stage {
        case start, saving, updates, phase, added, waiting, apply, end, reply, finished
    }

    /// An update whose plans have not let the runtime go idle after this long completes anyway.
    static let updateTimeout = 30.0

    let id: UInt64
    let scheme: String
    let from: RouteState
    let to: RouteState
    let updates: [RouteUpdate]
    let animated: Bool
    /// False: the destination is recorded, no update is performed or announced.
    let performs: Bool
    /// False while an unanimated update's plans run: they complete at once, not waited for.
    private var phasesWait = true
    let configuration: RouterConfiguration
    let reply: Router.Reply
    /// The state after the updates performed so far.
    private(set) var reached: RouteState
    /// The update being performed; -1 before the first.
    private(set) var updateIndex = -1
    private var phases: [Phase] = []
    private var phaseIndex = 0
    private var stage = Stage.start
    private var saveResult: Result<Void, EngineError>?
    private var waitingSince = 0.0
    /// Plans of the current update that were refused, reported with its `route.update`.
    private var errors: [String] = []

    init(id: UInt64, scheme: String, from: RouteState, to: RouteState, animated: Bool, performs: Bool = true,
         configuration: RouterConfiguration, reply: @escaping Router.Reply) {
        self.id = id
        self.scheme = scheme
        self.from = from
        self.to = to
        self.updates = RouteDiff.updates(from: from, to: to)
        self.animated = animated
        self.performs = performs
        self.configuration = configuration
        self.reply = reply
        self.reached = from
    }

    /// Waiting for the router's runtime to go idle: the clock must keep ticking.
    var isWaitingForRuntime: Bool { stage == .waiting }

    func saved(_ result: Result<Void, EngineError>) { saveResult = result }

    func planErrors(_ messages: [String]) { errors += messages }

    func next(now: Double, runtimeIsActive: Bool) -> Action {
        switch stage {
        case .start:
            stage = .saving
            return .save(to)
        case .saving:
            switch saveResult {
            case nil: return .wait
            case .failure(let error)?:
                stage = .finished
                return .reply(.failure(error))
            case .success?:
                stage = .updates
                return .publish("route.transition.start", [
                    "from": .string(from.url(scheme: scheme)), "to": .string(to.url(scheme: scheme)),
                    "updates": .array(updates.map(\.json)), "performed": .bool(performs),
                ])
            }
        case .updates:
            // Recorded changes (`perform: false`) announce no updates: the UI made them already.
            var completed: Action?
            if updateIndex >= 0 {
                if performs { completed = announceUpdate() } else { reached = reached.applying(updates[updateIndex]) }
            }
            updateIndex += 1
            if updateIndex < updates.count {
                let update = updates[updateIndex]
                // Unanimated, or recorded without performing (the UI already moved there): the plans still
                // run, at once, so the screens end with the values an animated arrival leaves (issue #20).
                let unanimated = !animated || !performs || update.options?.contains(.unanimated) == true
                let planned = TransitionPlans.phases(
                    for: update, before: reached, after: reached.applying(update), configuration: configuration)
                phases = unanimated ? planned.map { $0.map { ($0.target, configuration.vocabulary.instant($0.plan)) } } : planned
                // …and complete at once, as before: nothing to wait for.
                phasesWait = !unanimated
                phaseIndex = 0
                stage = .phase
            } else {
                stage = .apply
            }
            return completed ?? next(now: now, runtimeIsActive: runtimeIsActive)
        case .phase:
            guard phaseIndex < phases.count else {
                stage = .updates
                return next(now: now, runtimeIsActive: runtimeIsActive)
            }
            stage = .added
            return .addPlans(phases[phaseIndex])
        case .added:
            if runtimeIsActive, phasesWait, updates[updateIndex].options?.contains(.async) != true {
                waitingSince = now
                stage = .waiting
                return .wait
            }
            phaseIndex += 1
            stage = .phase
            return next(now: now, runtimeIsActive: runtimeIsActive)
        case .waiting:
            let timedOut = now - waitingSince > Self.updateTimeout
            if runtimeIsActive && !timedOut { return .wait }
            if timedOut { errors.append("timed out after \(Int(Self.updateTimeout)) s; completed anyway") }
            phaseIndex += 1
            stage = .phase
            return next(now: now, runtimeIsActive: runtimeIsActive)
        case .apply:
            stage = .end
            return .apply(to.normalized)
        case .end:
            stage = .reply
            return .publish("route.transition.end", ["from": .string(from.url(scheme: scheme)),
                                                     "url": .string(to.normalized.url(scheme: scheme)),
                                                     "performed": .bool(performs)])
        case .reply:
            stage = .finished
            return .reply(.success([
                "scheme": .string(scheme), "url": .string(to.normalized.url(scheme: scheme)),
                "from": .string(from.url(scheme: scheme)), "updates": .array(updates.map(\.json)),
                "changed": true, "performed": .bool(performs),
            ]))
        case .finished:
            return .finished
        }
    }

    private func announceUpdate() -> Action {
        let update = updates[updateIndex]
        reached = reached.applying(update)
        var fields: [String: JSONValue] = [
            "update": update.json, "index": .number(Double(updateIndex)), "count": .number(Double(updates.count)),
            "url": .string(reached.url(scheme: scheme)),
        ]
        if !errors.isEmpty { fields["errors"] = .array(errors.map(JSONValue.string)) }
        errors = []
        return .publish("route.update", fields)
    }
}
