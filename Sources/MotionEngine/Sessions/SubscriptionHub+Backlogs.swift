/// Readers that fall behind: who counts as behind, and who stayed behind too long.
extension SubscriptionHub {
    /// Called once per tick: announces trace gaps to subscribers that caught up and returns the sessions
    /// that stayed behind too long, which the caller disconnects.
    func checkBacklogs(time: Double) -> [Session] {
        var slow: [Session] = []
        checkedSessions.removeAll(keepingCapacity: true)
        for subscription in subscriptions where checkedSessions.insert(subscription.session.id).inserted {
            let session = subscription.session
            if isBehind(session) {
                let since = behindSince[session.id] ?? time
                behindSince[session.id] = since
                if time - since > limits.slowConsumerSeconds { slow.append(session) }
            } else {
                behindSince[session.id] = nil
            }
        }
        for subscription in subscriptions where subscription.traceLost > 0 {
            if !isBehindOnTrace(subscription.session) { flushGap(subscription, time: time) }
        }
        return slow
    }

    /// More than one frame unsent. A frame may be on its way while the next is written: a frame of
    /// 40,000 springs is ~6 MB, and a reader that keeps up still holds the previous one when the next
    /// tick comes (with a fixed 1 MiB mark it got every other frame).
    /// Or its uid's connections together hold more than the uid's `outputBytes` and this one has
    /// anything unsent: many stopped readers of one uid are bounded together, not one by one.
    func isBehind(_ session: Session) -> Bool {
        let backlog = session.output.backlog
        return backlog > max(limits.frameHighWater, session.lastFrameBytes)
            || (backlog > 0 && session.output.ownerBacklog > ownerBacklogLimit)
    }

    /// Past the trace high-water mark, or (with anything unsent) past its uid's `outputBytes`.
    func isBehindOnTrace(_ session: Session) -> Bool {
        let backlog = session.output.backlog
        return backlog > limits.traceHighWater || (backlog > 0 && session.output.ownerBacklog > ownerBacklogLimit)
    }
}
