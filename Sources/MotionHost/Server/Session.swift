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

    init(id: UInt64, output: any ClientOutput, peer: PeerCredentials? = nil, role: Role = .client) {
        self.id = id
        self.output = output
        self.peer = peer
        self.role = role
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
