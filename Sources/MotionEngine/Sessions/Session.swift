import DequeModule
import MotionWire

extension Result<Request, RequestFailure> {
    /// The line's length (a line that could not be parsed counts as none: it holds only its error).
    var bytes: Int {
        if case .success(let request) = self, request.lineLength != .max { return request.lineLength }
        return 0
    }
}

/// One client connection as the engine thread sees it.
final class Session {
    let id: UInt64
    let output: any ClientOutput
    let peer: PeerCredentials?
    let role: Role
    var greeted = false
    var client = ""
    var subscriptions: [Int: Subscription] = [:]
    var nextSubscription = 1
    var isClosed = false
    /// The client shut down its sending side; the connection closes once nothing more is owed to it.
    var isInputClosed = false
    /// Replies sent later than the request was handled (`route.go`, `plugins.reload`) and not sent yet.
    var owedReplies = 0
    /// Runtimes this session attached a scrubber to; detached when it closes.
    var scrubbing: Set<String> = []
    /// Work this session's request started that runs in slices (`SlicedWork`); its later requests wait
    /// in `deferred` until it is answered.
    var job: (any SlicedWork)?
    private(set) var deferred: Deque<Result<Request, RequestFailure>> = []
    /// Changes of this session waiting for the journal (`EngineContext.journalOrApply`).
    var journalPending = 0
    /// Owed replies waiting for an earlier one's place in line (`reserveOwedReply`).
    private var heldReplies: Deque<ReplySlot> = []
    /// Bytes of the last frame line sent to it: one frame of that size may be on its way while the next
    /// is sent (`SubscriptionHub.isBehind`).
    var lastFrameBytes = 0
    /// The uid whose runtimes and routers it reads and changes (docs/protocol.md#ownership-and-quotas); in-process sessions are root's.
    var uid: UInt32 { peer?.uid ?? 0 }

    init(id: UInt64, output: any ClientOutput, peer: PeerCredentials? = nil, role: Role = .client) {
        self.id = id
        self.output = output
        self.peer = peer
        self.role = role
    }

    /// A request waits its turn (behind sliced work, the journal, or the journal's replay at start). The
    /// output hears how many wait and their bytes, so the connection stops being read past its bounds of
    /// requests in flight (docs/protocol.md, backpressure): waiting ones are not answered yet, and count.
    func wait(_ request: Result<Request, RequestFailure>) {
        deferred.append(request)
        deferredBytes += request.bytes
        output.requestsWaiting(deferred.count, bytes: deferredBytes)
    }

    /// The next waiting request, whose turn has come.
    func nextWaiting() -> Result<Request, RequestFailure>? {
        guard let next = deferred.popFirst() else { return nil }
        deferredBytes -= next.bytes
        output.requestsWaiting(deferred.count, bytes: deferredBytes)
        return next
    }

    /// The connection is gone: what waited is never answered (and no longer counts against its uid).
    func dropWaiting() {
        guard !deferred.isEmpty else { return }
        deferred.removeAll()
        deferredBytes = 0
        output.requestsWaiting(0, bytes: 0)
    }

    /// Bytes of the request lines in `deferred`.
    private var deferredBytes = 0

    /// Closes a half-closed connection once every reply is sent and no subscription wants events: none
    /// owed, and no request still waiting behind a journal write or sliced work (their replies were lost
    /// when the first owed reply closed it).
    func closeIfFinished() {
        guard isInputClosed, owedReplies == 0, deferred.isEmpty, job == nil, journalPending == 0, subscriptions.isEmpty,
              !isClosed else { return }
        output.close()
    }

    /// Sends a reply owed since an earlier request (see `owedReplies`).
    func sendOwedReply(_ reply: JSONValue) {
        sendOwedReply(line: WireMessage.line(reply))
    }

    func sendOwedReply(line: [UInt8]) {
        guard !isClosed else { return }
        guard heldReplies.isEmpty else {
            let slot = ReplySlot()
            slot.line = line
            heldReplies.append(slot)
            return sendHeldReplies()
        }
        owedReplies -= 1
        output.send(line)
        closeIfFinished()
    }

    /// An owed reply's place in line, filled later (`fill`): the replies owed after it wait for it. A
    /// refusal answered once its journal write-off is written keeps its place before the replies to
    /// this connection's later changes, which may be applied first.
    final class ReplySlot {
        fileprivate var line: [UInt8]?
    }

    func reserveOwedReply() -> ReplySlot {
        let slot = ReplySlot()
        heldReplies.append(slot)
        return slot
    }

    func fill(_ slot: ReplySlot, with reply: JSONValue) {
        slot.line = WireMessage.line(reply)
        sendHeldReplies()
    }

    private func sendHeldReplies() {
        while let first = heldReplies.first, let line = first.line {
            heldReplies.removeFirst()
            guard !isClosed else { continue }
            owedReplies -= 1
            output.send(line)
        }
        closeIfFinished()
    }
}

/// What a subscriber asked for, and what it still owes because it read too slowly.
final class Subscription {
    let id: Int
    unowned let session: Session
    let frames: Bool
    let trace: Bool
    let routes: Bool
    /// The runtime's key (`OwnedName`), when the subscriber asked for one.
    let runtime: String?
    let targets: Set<String>?
    /// Whose motion it may see: its uid's, shared runtimes', and with `seesAll` (admins) everyone's.
    let viewer: UInt32
    let seesAll: Bool
    /// `maxRate`'s schedule (an interval of 0 without one).
    var rateLimit: RateLimit
    var seq: UInt64 = 0
    /// Properties whose latest value the subscriber has not been sent yet (conflation).
    var pending: [UInt32] = []
    /// Indexed by property handle: true while the handle is in `pending`. Grown to the store's size.
    var isPending: [Bool] = []
    /// False when the subscription takes every runtime and target: frames skip the key comparison.
    let isFiltered: Bool
    /// True when it may see another uid's runtimes: their updates name the runtime `<uid>/<name>`.
    let seesOthers: Bool
    var dropped = 0
    /// Unsubscribed or closed, and still being taken out of the filter index (`FilterIndex.continueRemovals`):
    /// nothing is marked for it any more.
    var isLeaving = false
    /// A display-timed subscriber's step passed this `--rate` one by since its own last step: a value
    /// written then and written again before its frame was never its to see, not dropped.
    var passedByDisplay = false
    /// Set at the start of each frame: nothing was pending (its updates may share an encoding).
    var wasUpToDate = true
    /// Its frame waited for the next step (its uid's frame budget was spent); the step it was last looked
    /// at (`SubscriptionHub.publishFrame`).
    var wasDeferred = false
    var visitedStep: UInt64 = 0
    /// Without a filter or a display: its pending properties are marked when it is served, from the hub's
    /// `ChangeHistory`, through this step of it.
    var marksWhenServed: Bool { display == nil && runtime == nil && targets == nil }
    var markedThrough: UInt64 = 0
    /// The writes of properties it may see up to `markedThrough` (`ChangeHistory`), for `dropped`.
    var writesMarked: UInt64 = 0
    var traceLost = 0
    /// Display-timed (docs/protocol.md, display-timed frames): the display it follows; nil on the `--rate` clock.
    var display: DisplayTiming?
    /// The vblank its next frame is for (0: not chosen yet), and the last present time it was sent.
    var nextVblank: UInt64 = 0
    var lastPresent: UInt64 = 0
    /// The present time of the step it gets a frame at (set by the clock before that step).
    var presentingAt: UInt64 = 0
    /// Lines computed ahead (a frame at its present time) waiting for their send time, in order; trace
    /// events that come meanwhile queue behind them, so frames and events keep their order.
    var held: [(sendAt: UInt64, line: [UInt8])] = []
    /// Events that came while changes it has not been sent wait for their present (an animation's last
    /// value, written at a `--rate` step): they go out behind the frame that carries them.
    var waitingForFrame: [[UInt8]] = []
    /// `transport: "shm"` (docs/clients.md): frames go to this region, the socket only announces them.
    var sharedFrames: SharedFrameChannel?

    init(id: Int, session: Session, frames: Bool, trace: Bool, routes: Bool = false, runtime: String?,
         targets: Set<String>?, maximumRate: Double?) {
        self.id = id
        self.session = session
        self.viewer = session.uid
        self.seesAll = session.role == .admin
        self.frames = frames
        self.trace = trace
        self.routes = routes
        self.runtime = runtime
        self.targets = targets
        self.isFiltered = runtime != nil || targets != nil || session.role != .admin
        self.seesOthers = runtime.map { OwnedName.split($0).owner != session.uid } ?? true
        self.rateLimit = RateLimit(interval: maximumRate.map { 1 / $0 } ?? 0)
    }

    /// For trace and route events: `shared` says whether the event's runtime is readable by everyone.
    func matches(runtime eventRuntime: String?, target: String?, shared: Bool) -> Bool {
        if let eventRuntime {
            if let runtime, runtime != eventRuntime { return false }
            if !seesAll, !shared, let owner = OwnedName.split(eventRuntime).owner, owner != viewer { return false }
        }
        if let targets, let target, !targets.contains(target) { return false }
        return true
    }

    /// For frames: `handle` is a property this subscriber may see and asked for.
    @inline(__always)
    func matches(_ handle: UInt32, in store: PropertyStore) -> Bool {
        let slot = Int(handle)
        if !seesAll, store.owners[slot] != viewer, !store.isShared[slot] { return false }
        guard runtime != nil || targets != nil else { return true }
        guard let key = store.keys[slot] else { return false }
        if let runtime, key.runtime != runtime { return false }
        if let targets, !targets.contains(key.target) { return false }
        return true
    }

    /// The owner to name in an update of `handle`, when it is not the viewer's own.
    @inline(__always)
    func foreignOwner(of handle: UInt32, in store: PropertyStore) -> UInt32? {
        guard seesOthers else { return nil }
        let owner = store.owners[Int(handle)]
        return owner == viewer || owner == PropertyStore.daemon ? nil : owner
    }

    func growPending(to count: Int) {
        if isPending.count < count { isPending.append(contentsOf: repeatElement(false, count: count - isPending.count)) }
    }

    /// `handles` were written (those it may see, its filter applied): each pending once (latest value
    /// wins), a second write counts as dropped (not for a display-timed subscriber: the values between its
    /// presents are never its to see; nor over a value written at another display's step). `isPending` must cover the store (`growPending`).
    ///
    /// The list is taken out of the subscription while it grows: appending to a class's stored array
    /// checks its uniqueness and exclusive access at every element (a quarter of the marking of 250,000
    /// properties a frame).
    func mark(_ handles: UnsafeBufferPointer<UInt32>, in store: PropertyStore) {
        var pending = self.pending
        self.pending = []
        var twice = 0
        let isFiltered = self.isFiltered
        isPending.withUnsafeMutableBufferPointer { isPending in
            for handle in handles {
                if isFiltered, !matches(handle, in: store) { continue }
                if isPending[Int(handle)] {
                    twice += 1
                } else {
                    isPending[Int(handle)] = true
                    pending.append(handle)
                }
            }
        }
        self.pending = pending
        if display == nil, !passedByDisplay { dropped += twice }
    }

    func mark(_ handle: UInt32, count: Int) {
        growPending(to: count)
        if isPending[Int(handle)] {
            if display == nil, !passedByDisplay { dropped += 1 }
        } else {
            isPending[Int(handle)] = true
            pending.append(handle)
        }
    }

    func nextSeq() -> UInt64 {
        seq += 1
        return seq
    }
}

extension Result<Request, RequestFailure> {
    /// A request that may wait in a journal group behind the same connection's earlier changes.
    var joinsJournal: Bool {
        if case .success(let request) = self { return RuntimeJournal.journalMethods.contains(request.method) }
        return false
    }
}
