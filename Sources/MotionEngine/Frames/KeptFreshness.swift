/// Which properties a targeted refresh ("motion.kept/1" `write_kept_some`) has brought up to date since
/// the property store last went stale: one read again in the same spell is not asked for again, and past
/// `targetedLimit` of them (a request that reads many, one by one) one refresh of everything is cheaper.
struct KeptFreshness {
    /// Targeted refreshes in one spell before one of everything: 64, or one per 256 live properties (a
    /// refresh of everything costs about that many targeted ones; with a flat 64, a client adding springs
    /// to 600,000 moving ones made every ~65th `plan.add` of a tick refresh them all, 3 ms each).
    static func targetedLimit(live: Int) -> Int { max(64, live / 256) }
    /// The spell: bumped each time the store goes stale (an advance kept values).
    private var spell: UInt32 = 1
    private var freshIn: [UInt32] = []
    /// Targeted refreshes in this spell.
    private(set) var targeted = 0

    mutating func staleAgain() {
        spell &+= 1
        if spell == 0 {
            // Once in 2³² advances: no handle may look fresh in the new spell.
            freshIn = Array(repeating: 0, count: freshIn.count)
            spell = 1
        }
        targeted = 0
    }

    func isFresh(_ handle: UInt32) -> Bool {
        Int(handle) < freshIn.count && freshIn[Int(handle)] == spell
    }

    mutating func markFresh(_ handle: UInt32) {
        if Int(handle) >= freshIn.count {
            freshIn.append(contentsOf: repeatElement(0, count: max(Int(handle) + 1, freshIn.count * 2) - freshIn.count))
        }
        freshIn[Int(handle)] = spell
        targeted += 1
    }
}
