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
            send(line, to: subscription)
        }
    }

    /// Sends an event line in its place among the subscriber's frames: behind its held frames, and for a
    /// display subscriber that has changes not yet in a frame (an animation's last value), behind the frame
    /// that will carry them, so a client that sees `runtime.idle` has the final values (docs/protocol.md).
    func send(_ line: [UInt8], to subscription: Subscription) {
        if subscription.display != nil, subscription.frames,
           !subscription.waitingForFrame.isEmpty || !subscription.pending.isEmpty {
            // Bounded: a reader behind on frames (its frame is not coming soon) gets its events now.
            guard subscription.waitingForFrame.count >= Self.maximumWaitingEvents || isBehind(subscription.session) else {
                subscription.waitingForFrame.append(line)
                return
            }
            let lines = subscription.waitingForFrame + [line]
            subscription.waitingForFrame.removeAll()
            for line in lines { sendInOrder(line, to: subscription) }
        } else {
            sendInOrder(line, to: subscription)
        }
    }

    static let maximumWaitingEvents = 4096

    private func sendInOrder(_ line: [UInt8], to subscription: Subscription) {
        if let last = subscription.held.last {
            subscription.held.append((last.sendAt, line))
        } else {
            subscription.session.output.send(line)
        }
    }

    /// Lets the events that waited for a frame go, behind it, once nothing is left pending.
    func releaseWaitingEvents() {
        for subscription in displaySubscriptions where !subscription.waitingForFrame.isEmpty && subscription.pending.isEmpty {
            let lines = subscription.waitingForFrame
            subscription.waitingForFrame.removeAll()
            if subscription.session.isClosed { continue }
            for line in lines { sendInOrder(line, to: subscription) }
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
            send(EventLines.route(name, fields, subscription: subscription.id, seq: subscription.nextSeq(), time: time),
                 to: subscription)
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
