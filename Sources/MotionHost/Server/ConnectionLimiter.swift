import Foundation
import Logging
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

    private let logger: Logger?
    /// When each uid's last refusal was logged: a flood of refused connections is one entry a minute per
    /// uid (docs/operations.md#the-journal), not a line each.
    private let lastReported = Mutex<[UInt32?: ContinuousClock.Instant]>([:])
    static let reportInterval = Duration.seconds(60)

    init(_ limits: Limits, logger: Logger? = nil) {
        self.limits = limits
        self.logger = logger
    }

    /// Logs a refusal, at most once per `reportInterval` per uid.
    private func report(uid: UInt32?, code: ErrorCode, limit: Int) {
        guard let logger else { return }
        let now = ContinuousClock.now
        let due = lastReported.withLock { last in
            if let previous = last[uid], previous + Self.reportInterval > now { return false }
            if last.count >= 4096 { last = last.filter { $0.value + Self.reportInterval > now } }
            last[uid] = now
            return true
        }
        guard due else { return }
        logger.warning("connection refused at a quota", metadata: [
            "uid": "\(uid.map(String.init) ?? "unknown")", "code": "\(code.rawValue)", "limit": "\(limit)"])
    }

    /// Connections beyond the total kept for admins (root and the admin group): an operator can always get
    /// in, however many connections other users hold. Admins keep their own per-user cap.
    static let adminReserve = 16

    /// Takes a slot for `uid` (nil: unknown peer, counted in the total only, with a ledger of its own),
    /// or says why not: the total is the server's limit, a uid's share its quota (docs/protocol.md).
    func admit(uid: UInt32?, isAdmin: Bool = false) -> Admission {
        let admission = counts.withLock { counts -> Admission in
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
        // Outside the lock: a log entry is a system call.
        if case .refused(let code, _) = admission {
            report(uid: uid, code: code, limit: code == .connectionLimit ? limits.total : limits.perUser)
        }
        return admission
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
    /// Bytes of request lines its connections sent that wait their turn on the engine thread (behind
    /// sliced work, or the journal's replay at start), together.
    let waitingBytes = Atomic<Int>(0)

    init(uid: UInt32?) {
        self.uid = uid
    }
}
