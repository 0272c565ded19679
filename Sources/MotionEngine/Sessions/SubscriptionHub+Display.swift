/// Display-timed subscribers (`subscribe` with `display`, docs/protocol.md#methods): their frames are encoded
/// at the step for their present and held until it is time to send them.
extension SubscriptionHub {
    /// Whether a display-timed subscriber has updates waiting for its next present: the clock must run
    /// until they are sent, even when nothing moves (a `Set`, an animation's last value).
    var hasPendingDisplayUpdates: Bool {
        displaySubscriptions.contains { !$0.pending.isEmpty && !$0.session.isClosed }
    }

    /// Sends the held lines whose time has come; returns when the next one is due (nil: none held).
    @discardableResult
    func releaseHeld(now: UInt64) -> UInt64? {
        var next: UInt64?
        for subscription in displaySubscriptions where !subscription.held.isEmpty {
            var sent = 0
            for (sendAt, line) in subscription.held {
                guard sendAt <= now else { break }
                if !subscription.session.isClosed { subscription.session.output.send(line) }
                sent += 1
            }
            subscription.held.removeFirst(sent)
            if let first = subscription.held.first { next = min(next ?? .max, first.sendAt) }
        }
        return next
    }
}
