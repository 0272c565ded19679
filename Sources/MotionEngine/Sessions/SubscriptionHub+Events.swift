import MotionWire

/// Trace and route events: each goes to every subscriber of its stream whose filter it matches.
extension SubscriptionHub {
    /// Sends a trace event to every subscriber whose filter it matches.
    func publish(_ event: TraceEvent, time: Double) {
        for subscription in subscriptions where subscription.trace && !subscription.session.isClosed {
            let shared = event.runtime.map(sharedRuntimes.contains) ?? false
            guard subscription.matches(runtime: event.runtime, target: event.target, shared: shared) else { continue }
            if isBehindOnTrace(subscription.session) {
                subscription.traceLost += 1
                continue
            }
            flushGap(subscription, time: time)
            let line = EventLines.trace(event, subscription: subscription.id, seq: subscription.nextSeq(), time: time,
                                        viewer: subscription.viewer)
            if let last = subscription.held.last {
                subscription.held.append((last.sendAt, line))
            } else {
                subscription.session.output.send(line)
            }
        }
    }

    /// Sends a router event (`route.transition.start`, `route.update`, `route.transition.end`) to every
    /// subscriber of the `routes` stream. Route events are few and each matters: they are never dropped
    /// for a slow reader (its backlog is bounded by the disconnect rule instead).
    func publishRoute(_ name: String, _ fields: [String: JSONValue], time: Double) {
        for subscription in subscriptions where subscription.routes && !subscription.session.isClosed {
            let runtime = fields["runtime"]?.stringValue
            guard subscription.matches(runtime: runtime, target: nil, shared: false) else { continue }
            var fields = fields
            if let runtime { fields["runtime"] = .string(OwnedName.display(runtime, for: subscription.viewer)) }
            subscription.session.output.send(
                EventLines.route(name, fields, subscription: subscription.id, seq: subscription.nextSeq(), time: time))
        }
    }

    func flushGap(_ subscription: Subscription, time: Double) {
        guard subscription.traceLost > 0 else { return }
        subscription.session.output.send(
            EventLines.gap(subscription: subscription.id, seq: subscription.nextSeq(), lost: subscription.traceLost,
                           time: time))
        subscription.traceLost = 0
    }
}
