/// What each uid holds and may hold (docs/protocol.md#ownership-and-quotas), kept as runtimes,
/// performers and plans come and go, and the numbers the engine gives out (tokens, performer ids).
struct TenancyLedger {
    /// Every uid's quotas (set by its owner): what a plan a performer emits is held to, as any plan of
    /// the uid's (nil: none, an engine used without sessions).
    var quotas: Quotas?
    var usage: [UInt32: Engine.Usage] = [:]
    /// Per uid, the tokens its runtimes hold (shared with each of its runtimes).
    var tokenCounts: [UInt32: TokenCount] = [:]
    /// The plan being delivered, for its charge (`PlanCharge`): `finished` once it ended at once.
    var charging: (performer: UInt64, property: String, finished: Bool)?
    /// Why the last `intern_property` was refused by a quota (the answer to a plan refused after it).
    var internRefusal: String?
    /// The uid whose named plan a scratch performer is trying (`checkReplacement`): its properties quota
    /// holds there as in the real runtime.
    var replacementOwner: UInt32?
    var nextToken: UInt64 = 1
    var nextPerformerID: UInt64 = 1
}
