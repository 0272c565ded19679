import Synchronization

/// Caps connections in total and per peer uid, so one user (or a runaway script) cannot exhaust the
/// daemon's file descriptors and memory for everyone else.
final class ConnectionLimiter: Sendable {
    struct Limits: Sendable, Equatable {
        var total: Int
        var perUser: Int
    }

    private let limits: Limits
    private let counts = Mutex<(total: Int, byUser: [UInt32: Int])>((0, [:]))

    init(_ limits: Limits) {
        self.limits = limits
    }

    /// Connections beyond the total kept for admins (root and the admin group): an operator can always get
    /// in, however many connections other users hold. Admins keep their own per-user cap.
    static let adminReserve = 16

    /// Takes a slot for `uid` (nil: unknown peer, counted in the total only), or says why not.
    func admit(uid: UInt32?, isAdmin: Bool = false) -> String? {
        counts.withLock { counts in
            guard counts.total < limits.total + (isAdmin ? Self.adminReserve : 0) else {
                return "too many connections: motiond serves at most \(limits.total)"
            }
            if let uid {
                guard counts.byUser[uid, default: 0] < limits.perUser else {
                    return "too many connections from uid \(uid): at most \(limits.perUser) per user"
                }
                counts.byUser[uid, default: 0] += 1
            }
            counts.total += 1
            return nil
        }
    }

    func release(uid: UInt32?) {
        counts.withLock { counts in
            counts.total -= 1
            if let uid {
                counts.byUser[uid, default: 1] -= 1
                if counts.byUser[uid] == 0 { counts.byUser[uid] = nil }
            }
        }
    }
}
