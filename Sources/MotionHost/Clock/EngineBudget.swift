/// How much of the engine thread clients' work may take, in measured time (docs/protocol.md#ownership-and-quotas):
/// each uid `quotas.enginePercent` of every frame interval, all uids together `allUIDsPercent`. Kept as
/// token buckets: a lane gains credit as time passes, at its share of it, up to one interval's worth; a
/// command's measured time is taken from its uid's and the common bucket, and may overdraw them: its uid
/// pays back all it overdrew by waiting, the others at most one interval's share (one uid's long
/// command does not hold every other uid up for as long). A lane runs while both hold credit.
///
/// Why in time and not in counts: a request's cost differs by orders of magnitude (a `Set`, a stagger
/// over 256 targets, a 60 KB Keyframes plan) and by machine; and a realtime engine thread that never
/// blocks loses its priority to RLIMIT_RTTIME (docs/operations.md#realtime-priority), so clients' work must
/// leave it idle for a share of every interval however much of it waits.
struct EngineBudget {
    /// All uids' requests together: the rest of each interval is the frame clock's and the frame writers'.
    static let allUIDsPercent: UInt64 = 75

    struct Bucket {
        /// Nanoseconds of engine time it may spend now (negative: overdrawn).
        var credit: Int64
        var refilledAt: UInt64

        /// Credit accrues at `percent` of elapsed time, up to `percent` of `interval`.
        mutating func refill(at now: UInt64, percent: UInt64, interval: UInt64) {
            let cap = Int64(interval * percent / 100)
            if now > refilledAt {
                // Past one interval of waiting (or a long one), a full share and what paid its debt back.
                let gained = min(now - refilledAt, interval * 1_000_000) * percent / 100
                credit = min(cap, credit &+ Int64(gained))
            }
            refilledAt = max(refilledAt, now)
        }

        /// When it holds credit again (now if it does).
        func available(at now: UInt64, percent: UInt64) -> UInt64 {
            credit >= 0 ? now : now &+ UInt64(-credit) * 100 / max(percent, 1) &+ 1
        }
    }

    /// A frame interval in nanoseconds (the engine's `rate`).
    let interval: UInt64
    /// A uid's share, percent (`quotas.enginePercent`).
    var uidPercent: UInt64 = 50
    var common: Bucket

    init(interval: UInt64, now: UInt64) {
        self.interval = interval
        common = Bucket(credit: Int64(interval * Self.allUIDsPercent / 100), refilledAt: now)
    }

    /// A new lane's bucket: a full interval's share.
    func freshBucket(at now: UInt64) -> Bucket {
        Bucket(credit: Int64(interval * uidPercent / 100), refilledAt: now)
    }

    /// When `bucket`'s lane may run next (now if it may run now), both buckets refilled to `now`.
    mutating func nextTurn(of bucket: inout Bucket, at now: UInt64) -> UInt64 {
        bucket.refill(at: now, percent: uidPercent, interval: interval)
        common.refill(at: now, percent: Self.allUIDsPercent, interval: interval)
        return max(bucket.available(at: now, percent: uidPercent), common.available(at: now, percent: Self.allUIDsPercent))
    }

    /// A socket thread spent `nanos` parsing a request of the lane: its uid's share pays for it (the
    /// socket threads run at realtime too), not the engine thread's common one.
    func chargeParsing(_ bucket: inout Bucket, nanos: UInt64) {
        bucket.credit -= Int64(min(nanos, 3_600_000_000_000))
    }

    /// A command of the lane used `nanos` of the engine thread.
    mutating func charge(_ bucket: inout Bucket, nanos: UInt64) {
        // At most an hour a command (a clock that jumped): the buckets stay far from overflow.
        let spent = Int64(min(nanos, 3_600_000_000_000))
        bucket.credit -= spent
        common.credit = max(common.credit - spent, -Int64(interval * Self.allUIDsPercent / 100))
    }
}
