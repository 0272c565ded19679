/// Who the frame clock works for (docs/operations.md#metrics, `motiond_uid_tick_seconds_total`): each
/// tick's work shared out among the uids by the animations their runtimes hold, since a tick's work is
/// mostly stepping those animations and sending their values. An estimate (a uid's ten springs in one
/// shared group cost less than ten of another's in a plugin of their own), but it names the uid whose
/// motion keeps the clock busy, which `motiond_uid_engine_seconds_total` (requests) does not.
extension FrameTicks {
    /// Adds one tick's `work` (nanoseconds) to the uids' shares. O(uids), no allocation once a uid has a
    /// share.
    package func shareOut(_ work: UInt64) {
        var total = 0
        for count in engine.ledger.tokenCounts.values { total += max(count.value, 0) }
        guard total > 0 else { return }
        for (uid, count) in engine.ledger.tokenCounts where count.value > 0 {
            shares[uid, default: 0] &+= work &* UInt64(count.value) / UInt64(total)
        }
    }
}
