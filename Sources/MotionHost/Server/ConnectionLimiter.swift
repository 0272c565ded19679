import MotionWire
import Synchronization

/// Caps connections in total and per peer uid, so one user (or a runaway script) cannot exhaust the
/// daemon's file descriptors and memory for everyone else; and hands each connection its uid's ledger,
/// where what all connections of that uid hold is counted together.
final class ConnectionLimiter: Sendable {
    struct Limits: Sendable, Equatable {
        var total: Int
        var perUser: Int
    }

    enum Admission {
        case admitted(UIDLedger)
        /// The code and message the connection is closed with.
        case refused(ErrorCode, String)
    }

    private let limits: Limits
    private let counts = Mutex<(total: Int, byUser: [UInt32: (count: Int, ledger: UIDLedger)])>((0, [:]))

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// Connections beyond the total kept for admins (root and the admin group): an operator can always get
    /// in, however many connections other users hold. Admins keep their own per-user cap.
    static let adminReserve = 16

    /// Takes a slot for `uid` (nil: unknown peer, counted in the total only, with a ledger of its own),
    /// or says why not: the total is the server's limit, a uid's share its quota (docs/protocol.md).
    func admit(uid: UInt32?, isAdmin: Bool = false) -> Admission {
        counts.withLock { counts in
            guard counts.total < limits.total + (isAdmin ? Self.adminReserve : 0) else {
                return .refused(.connectionLimit, "too many connections: motiond serves at most \(limits.total)")
            }
            var ledger = UIDLedger(uid: uid)
            if let uid {
                let held = counts.byUser[uid]
                guard (held?.count ?? 0) < limits.perUser else {
                    return .refused(.quotaExceeded, "quota connections: uid \(uid) holds \(limits.perUser) connections "
                                    + "(its quota; see the config file's maxConnectionsPerUser)")
                }
                ledger = held?.ledger ?? ledger
                counts.byUser[uid] = ((held?.count ?? 0) + 1, ledger)
            }
            counts.total += 1
            return .admitted(ledger)
        }
    }

    func release(uid: UInt32?) {
        counts.withLock { counts in
            counts.total -= 1
            if let uid, let held = counts.byUser[uid] {
                counts.byUser[uid] = held.count > 1 ? (held.count - 1, held.ledger) : nil
            }
        }
    }
}

/// What all connections of one uid hold at once, counted where the bytes are (docs/protocol.md#ownership-and-quotas):
/// unfinished request lines (`quotas.inputBytes`) and lines not yet taken by the readers (`quotas.outputBytes`).
final class UIDLedger: Sendable {
    let uid: UInt32?
    let unfinishedBytes = Atomic<Int>(0)
    let backlogBytes = Atomic<Int>(0)

    init(uid: UInt32?) {
        self.uid = uid
    }
}
