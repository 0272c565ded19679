import MotionWire

/// Fans frames and trace events out to subscribers without ever waiting for one.
///
/// A subscriber whose backlog passes `frameHighWater`, or the size of the last frame sent to it when
/// that is larger, gets no frames: its changed properties are kept (latest value wins) and sent together
/// once it catches up, with `dropped` counting the values it never
/// saw. Past `traceHighWater` trace events are counted and announced by a `gap` event. A subscriber
/// that stays behind for `slowConsumerSeconds` is sent `protocol.slow_consumer` and disconnected.
package final class SubscriptionHub {
    package struct Limits: Sendable {
        package var frameHighWater = 1 << 20
        package var traceHighWater = 4 << 20
        package var slowConsumerSeconds = 10.0

        package init() {}
    }

    let limits: Limits
    /// A uid's `quotas.outputBytes`: past it, each of its sessions with anything unsent counts as behind.
    var ownerBacklogLimit = Int.max
    /// Frames sent and updates dropped (conflated for a slow reader) so far, by transport: metrics.
    package private(set) var framesSent: [String: UInt64] = ["json": 0, "shm": 0]
    package private(set) var updatesDropped: [String: UInt64] = ["json": 0, "shm": 0]
    /// Frames show velocities per wall-clock second (docs/vocabulary.md#speed-and-reduce-motion): the speed; the store keeps them per
    /// second of animation time, which a retarget starts from.
    var velocityScale = 1.0
    private(set) var subscriptions: [Subscription] = []
    private let encoder = FrameEncoder()
    /// This tick's update lists shared by subscriptions of one filter, and where each is in `bodies`.
    private let bodies = FrameEncoder()
    private var sharedBodies: [FilterKey: Range<Int>] = [:]
    var behindSince: [UInt64: Double] = [:]
    /// Reused by `appendUpdates`: the pending handles a filtered subscriber may see.
    private var visible: [UInt32] = []
    /// Reused by `checkBacklogs` every tick, so that it allocates nothing.
    var checkedSessions: Set<UInt64> = []

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Frame subscribers with a `runtime` or `targets` filter, found by the properties they watch.
    private let filtered = FilterIndex()
    /// Frame subscribers without a filter: they look at every written property (those on the `--rate`
    /// clock when they are served, in `history`).
    private var unfiltered: [Subscription] = []
    private let history = ChangeHistory()

    /// Shared-memory subscriptions, and the store's log of properties gone that they read: recorded
    /// only while there are some (`GoneProperties`).
    private var sharedCount = 0
    private var gone: GoneProperties?

    func add(_ subscription: Subscription) {
        subscriptions.append(subscription)
        if subscription.sharedFrames != nil { sharedCount += 1 }
        guard subscription.frames else { return }
        if subscription.display != nil { displaySubscriptions.append(subscription) }
        if subscription.runtime != nil || subscription.targets != nil {
            filtered.add(subscription)
        } else {
            unfiltered.append(subscription)
            history.start(subscription)
        }
    }

    func remove(_ subscription: Subscription) {
        let count = subscriptions.count
        subscriptions.removeAll { $0 === subscription }
        if subscription.sharedFrames != nil, subscriptions.count < count {
            sharedCount -= 1
            if sharedCount == 0, let gone {
                gone.isRecording = false
                gone.trim(before: .max)
            }
        }
        guard subscription.frames else { return }
        if subscription.display != nil { displaySubscriptions.removeAll { $0 === subscription } }
        if subscription.runtime != nil || subscription.targets != nil {
            filtered.remove(subscription)
        } else {
            unfiltered.removeAll { $0 === subscription }
        }
    }

    /// Whether anyone takes frames.
    var hasFrameSubscribers: Bool { !unfiltered.isEmpty || !filtered.isEmpty }

    /// Runs `body` for a tick with what its subscribers read: `unread` unless a subscriber without a
    /// filter takes every value, and then the flags of the properties filtered subscribers may read and
    /// the same as a list (nil: none) — what plugins may keep (`UnreadWrites.writesUnread`, "motion.unread/1").
    func withTickReaders(_ store: PropertyStore,
                         _ body: (_ unread: Bool, _ read: UnsafeBufferPointer<UInt8>?, _ readList: UnsafeBufferPointer<UInt32>?) -> Void) {
        guard unfiltered.isEmpty, !filtered.isEmpty else {
            store.clearInterned()
            return body(unfiltered.isEmpty, nil, nil)
        }
        filtered.withReadFlags(store) { body(true, $0, $1) }
    }

    /// Brings the filtered subscribers' watch flags up to date after subscriptions came or went.
    func updateWatch(_ store: PropertyStore) {
        filtered.update(store)
    }

    /// Filtered subscriptions that went are still being taken out of the index (`FilterIndex.continueRemovals`).
    var hasRemovals: Bool { filtered.hasRemovals }
    func continueRemovals(until deadline: UInt64) { filtered.continueRemovals(until: deadline) }
    func leavingTargets(of uid: UInt32) -> Int { filtered.leavingTargets(of: uid) }

    func removeAll(of session: Session) {
        for subscription in subscriptions where subscription.session === session { remove(subscription) }
        behindSince[session.id] = nil
    }

    /// What a frame step is for: the `--rate` clock (subscribers without a display), or one present time
    /// of some displays (their subscribers get a frame, held until its send time).
    enum FrameStep {
        case rate
        case present(UInt64, [Subscription])

        /// Whether a subscriber of this present has updates waiting from earlier steps.
        var hasPendingDisplayUpdates: Bool {
            guard case .present(_, let subscribers) = self else { return false }
            return subscribers.contains { !$0.pending.isEmpty }
        }
    }

    /// Display-timed frame subscribers.
    private(set) var displaySubscriptions: [Subscription] = []

    /// Nanoseconds of frame work (encoding, writing, sending) the subscribers of one uid may take in a
    /// frame interval beyond its first one's; admins' are not counted; 0: no budget. The daemon sets a
    /// quarter of a frame interval. A uid that subscribes many times to much motion (64 shared-memory
    /// subscribers of 10,000 springs took another uid's client from 120 to 20 frames/s) has the rest of its
    /// subscribers' frames wait for the next step, their changes conflated; other uids' frames go out on
    /// time. The interval's frames are the tick's and the control frames sent after commands until the next
    /// tick (`beginInterval`): each control frame had a budget of its own, and one uid's commands made the
    /// engine thread serve its subscribers past the kernel's realtime cap (BENCHMARKS.md, `churn`).
    package var uidFrameBudgetNanos: UInt64 = 0
    /// The frame interval (set by the daemon with the budget): an interval with no tick (the clock stopped
    /// while nothing moved) ends after two of these all the same (two: a tick that comes late does not
    /// hand out a second budget before it), so a command's frame after a pause is not charged to the last
    /// interval's spending. 0: intervals end at ticks only.
    package var frameIntervalNanos: UInt64 = 0
    private var spentByUID: [UInt32: UInt64] = [:]
    /// Counts intervals: where the turns of deferred subscribers start (one further each interval, however
    /// many frames go out in it, so each gets its turn).
    private var interval: UInt64 = 0
    private var intervalBegan: UInt64 = 0

    /// A frame interval starts (each tick): every uid's frame budget is whole again.
    func beginInterval() {
        spentByUID.removeAll(keepingCapacity: true)
        interval &+= 1
        intervalBegan = WorkClock.now()
    }

    /// Before a frame between ticks: the interval ends if two frame intervals passed without a tick.
    func endIntervalIfStale() {
        if frameIntervalNanos > 0, WorkClock.now() &- intervalBegan >= 2 &* frameIntervalNanos { beginInterval() }
    }
    /// Numbers `publishFrame` calls (each subscriber is looked at once per call).
    private var step: UInt64 = 0
    /// Subscribers whose frame waited for the next step (the clock keeps ticking until they are served).
    private(set) var deferredCount = 0
    var hasDeferredFrames: Bool { deferredCount > 0 }

    /// Sends every frame subscriber the properties written this tick that match its filter.
    ///
    /// Subscribers that were up to date get exactly this tick's matching properties, so those with the
    /// same filter share one encoding of the updates; only the header (`sub`, `seq`, `dropped`) is theirs.
    /// Subscribers the step is not for keep what changed pending for their next frame.
    func publishFrame(dirty: UnsafeBufferPointer<UInt32>, store: PropertyStore, time: Double, step frameStep: FrameStep = .rate) {
        // Frames read only written handles (`dirty`, then pending): never a value a plugin kept, since a
        // property a subscriber may read is written at every tick (`withTickReaders`).
        guard hasFrameSubscribers else {
            // The last one left while its frame waited: nothing is owed any more (the clock ran on forever).
            deferredCount = 0
            return
        }
        let shares = subscriptions.count > 1
        if shares {
            bodies.reset()
            sharedBodies.removeAll(keepingCapacity: true)
        }
        for subscription in subscriptions where subscription.frames {
            subscription.wasUpToDate = subscription.pending.isEmpty
                && (!subscription.marksWhenServed || subscription.markedThrough == history.latest)
        }
        // Kept only while some subscriber marks when served (a copy of what was written, per step).
        if unfiltered.contains(where: \.marksWhenServed) { history.record(dirty, store: store) }
        for subscription in unfiltered where !subscription.session.isClosed && !subscription.marksWhenServed {
            subscription.growPending(to: store.keys.count)
            subscription.mark(dirty, in: store)
        }
        filtered.markWritten(dirty, store)
        let hadDeferred = deferredCount > 0
        deferredCount = 0
        step &+= 1
        func serve(_ subscription: Subscription) {
            guard subscription.frames, !subscription.session.isClosed, subscription.visitedStep != step else { return }
            subscription.visitedStep = step
            subscription.wasDeferred = false
            let wasUpToDate = subscription.wasUpToDate
            switch frameStep {
            case .rate where subscription.display != nil: return
            case .present(let at, _) where subscription.presentingAt != at:
                // Another display's step: what is written at it was never this one's to see, and is not
                // counted as dropped (`Subscription.mark`).
                if subscription.display == nil { subscription.passedByDisplay = true }
                return
            default: break
            }
            let passedBy = subscription.passedByDisplay
            subscription.passedByDisplay = false
            let marksNow = subscription.marksWhenServed
            let hasGone = subscription.sharedFrames?.hasGone(store.gone) ?? false
            guard !subscription.pending.isEmpty || (marksNow && history.hasChanges(after: subscription.markedThrough)) || hasGone
            else { return }
            guard !isBehind(subscription.session), subscription.rateLimit.isDue(at: time) else {
                // Owed (its `maxRate` is not due, or its reader is behind): the clock runs until it is
                // sent, even when nothing moves any more (the last value of a motion that stopped).
                subscription.wasDeferred = true
                deferredCount += 1
                return
            }
            let budgeted = uidFrameBudgetNanos > 0 && !subscription.seesAll
            if budgeted, let spent = spentByUID[subscription.viewer], spent >= uidFrameBudgetNanos {
                // Its changes stay pending (the latest value wins) for the next step, where it goes first.
                subscription.wasDeferred = true
                deferredCount += 1
                return
            }
            let began = budgeted ? WorkClock.now() : 0
            defer { if budgeted { spentByUID[subscription.viewer, default: 0] &+= WorkClock.now() &- began } }
            if marksNow {
                history.catchUp(subscription, store: store, countsDrops: !passedBy)
                if subscription.pending.isEmpty, !hasGone { return }
            }
            if let channel = subscription.sharedFrames {
                sendSharedFrame(to: subscription, through: channel, store: store, time: time)
                return
            }
            var body: Range<Int>?
            if shares, wasUpToDate {
                let filter = FilterKey(runtime: subscription.runtime, targets: subscription.targets,
                                       viewer: subscription.seesAll ? nil : subscription.viewer,
                                       namer: subscription.seesOthers ? subscription.viewer : nil)
                if let encoded = sharedBodies[filter] {
                    body = encoded
                } else {
                    let start = bodies.count
                    _ = appendUpdates(subscription.pending, from: store, to: bodies, for: subscription)
                    body = start..<bodies.count
                    sharedBodies[filter] = body
                }
            }
            sendFrame(to: subscription, store: store, time: time, sharedBody: body, step: frameStep)
        }
        // Subscribers that waited at the last step go first, from a point that moves each interval so each
        // gets its turn; none waited: the subscription order, as ever.
        if hadDeferred, !subscriptions.isEmpty {
            let first = Int(interval % UInt64(subscriptions.count))
            for offset in subscriptions.indices where subscriptions[(first + offset) % subscriptions.count].wasDeferred {
                serve(subscriptions[(first + offset) % subscriptions.count])
            }
        }
        for subscription in subscriptions { serve(subscription) }
        releaseWaitingEvents()
        gone = store.gone
        store.gone.isRecording = sharedCount > 0
        guard !store.gone.isEmpty else { return }
        // Every frame step passes here: no array built for the minimum (0 allocations per tick).
        var read = Int.max
        for subscription in subscriptions {
            if let position = subscription.sharedFrames?.gonePosition { read = min(read, position) }
        }
        store.gone.trim(before: read)
    }

    private struct FilterKey: Hashable {
        var runtime: String?
        var targets: Set<String>?
        /// Nil for admins (they see every uid's motion).
        var viewer: UInt32?
        /// The uid whose runtimes are written plainly, when others' may appear.
        var namer: UInt32?
    }

    /// Runtimes created `"shared": true`, by key: their trace events reach every uid.
    var sharedRuntimes: Set<String> = []

    /// Sends `subscription` its pending updates: `sharedBody`, a range of `bodies` written this tick for
    /// subscriptions of the same filter, or encoded for it alone.
    private func sendFrame(to subscription: Subscription, store: PropertyStore, time: Double, sharedBody: Range<Int>?,
                           step: FrameStep) {
        // The sequence number is taken only if the frame goes out: a frame whose properties all went
        // away in the meantime is not sent and leaves no gap.
        var present: Double?
        if case .present(let at, _) = step { present = Double(at) / 1e9 }
        encoder.begin(subscription: subscription.id, seq: subscription.seq + 1, time: time,
                      dropped: subscription.dropped, present: present)
        let hasUpdates: Bool
        if let sharedBody {
            hasUpdates = !sharedBody.isEmpty
            bodies.withBytes { encoder.append(raw: UnsafeRawBufferPointer(rebasing: $0[sharedBody])) }
        } else {
            // A property pending since an earlier tick may be gone and its handle reused by another
            // runtime's property: the filter is checked again.
            hasUpdates = appendUpdates(subscription.pending, from: store, to: encoder, for: subscription)
        }
        encoder.end()
        subscription.isPending.withUnsafeMutableBufferPointer { isPending in
            for handle in subscription.pending { isPending[Int(handle)] = false }
        }
        subscription.pending.removeAll(keepingCapacity: true)
        updatesDropped["json", default: 0] &+= UInt64(subscription.dropped)
        subscription.dropped = 0
        subscription.rateLimit.sent(at: time)
        guard hasUpdates else { return }
        framesSent["json", default: 0] &+= 1
        _ = subscription.nextSeq()
        if case .present(let at, _) = step, let display = subscription.display {
            subscription.lastPresent = at
            let sendAt = display.sendTime(of: at &- display.latency)
            encoder.withBytes { subscription.held.append((sendAt, Array($0))) }
            return
        }
        subscription.session.lastFrameBytes = encoder.count
        encoder.withBytes { subscription.session.output.send(bytes: $0) }
    }

    /// Writes a shared-memory subscriber's pending properties into its region and announces the frame
    /// on the socket (docs/clients.md): `{"event":"frame","sub":…,"seq":…,"t":…,"dropped":…,"shm":<frame>}`.
    private func sendSharedFrame(to subscription: Subscription, through channel: SharedFrameChannel,
                                 store: PropertyStore, time: Double) {
        let written = channel.markGone(store) + channel.write(subscription.pending, store: store, for: subscription,
                                                              velocityScale: velocityScale)
        subscription.isPending.withUnsafeMutableBufferPointer { isPending in
            for handle in subscription.pending { isPending[Int(handle)] = false }
            for handle in channel.waiting { isPending[Int(handle)] = true }
        }
        subscription.pending.removeAll(keepingCapacity: true)
        if !channel.waiting.isEmpty || channel.hasGone(store.gone) {
            // Properties still to be named, or slots still to be marked gone, go first in the next frame,
            // which the clock runs for.
            subscription.pending.append(contentsOf: channel.waiting)
            subscription.wasDeferred = true
            deferredCount += 1
        }
        // Nothing written (no slot of its own went away, say): no frame, and its rate and count stand.
        guard written > 0 else { return }
        let dropped = subscription.dropped
        subscription.dropped = 0
        updatesDropped["shm", default: 0] &+= UInt64(dropped)
        framesSent["shm", default: 0] &+= 1
        subscription.rateLimit.sent(at: time)
        let frame = channel.publish(subscription: subscription.id, output: subscription.session.output, time: time,
                                    present: 0, dropped: dropped)
        encoder.begin(subscription: subscription.id, seq: subscription.nextSeq(), time: time, dropped: dropped)
        encoder.endShared(frame: frame)
        encoder.withBytes { subscription.session.output.send(bytes: $0) }
    }

    /// Appends the updates of `handles` (skipping properties no longer there, and those the subscriber
    /// may not see or did not ask for), named as it names them; false if none was written. The filter is
    /// applied here; the C loop writes the rest (`motion_frame_write_updates`).
    private func appendUpdates(_ handles: [UInt32], from store: PropertyStore, to encoder: FrameEncoder,
                               for subscription: Subscription) -> Bool {
        guard subscription.isFiltered else {
            return Self.write(handles, from: store, to: encoder, for: subscription, velocityScale: velocityScale)
        }
        let counts = store.counts
        visible.removeAll(keepingCapacity: true)
        for handle in handles where counts[Int(handle)] != 0 && subscription.matches(handle, in: store) {
            visible.append(handle)
        }
        return Self.write(visible, from: store, to: encoder, for: subscription, velocityScale: velocityScale)
    }

    private static func write(_ handles: [UInt32], from store: PropertyStore, to encoder: FrameEncoder,
                              for subscription: Subscription, velocityScale: Double) -> Bool {
        store.withFrameSource(viewer: subscription.viewer, namesOthers: subscription.seesOthers, velocityScale: velocityScale) { source in
            handles.withUnsafeBufferPointer { handles in
                encoder.appendUpdates(handles, from: &source, first: true) { handle, isFirst in
                    encoder.appendUpdate(of: handle, in: store, isFirst: isFirst,
                                         owner: subscription.foreignOwner(of: handle, in: store), velocityScale: velocityScale)
                }
            }
        }
    }
}
