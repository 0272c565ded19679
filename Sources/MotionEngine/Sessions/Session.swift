import MotionWire

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

    init(id: UInt64, output: any ClientOutput, peer: PeerCredentials? = nil, role: Role = .client) {
        self.id = id
        self.output = output
        self.peer = peer
        self.role = role
    }

    /// Closes a half-closed connection once every reply is sent and no subscription wants events.
    func closeIfFinished() {
        guard isInputClosed, owedReplies == 0, subscriptions.isEmpty, !isClosed else { return }
        output.close()
    }

    /// Sends a reply owed since an earlier request (see `owedReplies`).
    func sendOwedReply(_ reply: JSONValue) {
        guard !isClosed else { return }
        owedReplies -= 1
        output.send(WireMessage.line(reply))
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
    let runtime: String?
    let targets: Set<String>?
    /// Seconds between frames when the client set `maxRate`, else 0.
    let minimumInterval: Double
    var seq: UInt64 = 0
    /// Properties whose latest value the subscriber has not been sent yet (conflation).
    var pending: [UInt32] = []
    /// Indexed by property handle: true while the handle is in `pending`. Grown to the store's size.
    var isPending: [Bool] = []
    /// False when the subscription takes every runtime and target: frames skip the key comparison.
    let isFiltered: Bool
    var dropped = 0
    var lastFrameTime = -Double.infinity
    var traceLost = 0

    init(id: Int, session: Session, frames: Bool, trace: Bool, routes: Bool = false, runtime: String?,
         targets: Set<String>?, maximumRate: Double?) {
        self.id = id
        self.session = session
        self.frames = frames
        self.trace = trace
        self.routes = routes
        self.runtime = runtime
        self.targets = targets
        self.isFiltered = runtime != nil || targets != nil
        self.minimumInterval = maximumRate.map { 1 / $0 } ?? 0
    }

    func matches(runtime eventRuntime: String?, target: String?) -> Bool {
        if let runtime, let eventRuntime, runtime != eventRuntime { return false }
        if let targets, let target, !targets.contains(target) { return false }
        return true
    }

    func nextSeq() -> UInt64 {
        seq += 1
        return seq
    }
}
