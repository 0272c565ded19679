import MotionWire

/// What a running plan costs its uid beyond a small plan's (docs/protocol.md#ownership-and-quotas,
/// `quotas.planBytes`): a plugin keeps a plan's values as its own structures, and what that costs grows
/// with how many there are, not with the JSON's length. Measured (docs/protocol.md): a `Keyframes` of
/// 1,000 one-number values raised the daemon's resident memory by ~170 KB (9 KB of JSON), ~160 bytes a
/// number; a string is held about as long as it is (a `linear(…)` timing's stops, four bytes a character
/// here to be safe). A plan of a few numbers (a spring, a tween) costs nothing: the first 4 KiB are free,
/// the `animations` quota bounds those. Charged while the plan runs: until its animation ends (or its
/// performer goes idle, or goes), or another plan takes its property.
enum PlanCharge {
    static let bytesPerNumber = 160
    static let bytesPerStringByte = 4
    static let free = 4_096

    static func bytes(of plan: JSONValue) -> Int {
        var numbers = 0, stringBytes = 0
        func walk(_ value: JSONValue) {
            switch value {
            case .number: numbers += 1
            case .string(let text): stringBytes += text.utf8.count
            case .array(let items): for item in items { walk(item) }
            case .object(let members): for (key, member) in members { stringBytes += key.utf8.count; walk(member) }
            default: break
            }
        }
        walk(plan)
        return max(0, numbers * bytesPerNumber + stringBytes * bytesPerStringByte - free)
    }
}

extension Engine {
    /// Refuses a plan whose charge would take its runtime's owner past `planBytes` (the charge of the
    /// plan it replaces on `property` given back first).
    func checkCharge(_ bytes: Int, property: String?, replacing performer: PerformerRecord?, in scope: RuntimeScope,
                     quotas: Quotas?) throws(EngineError) {
        guard bytes > 0, let quotas, let uid = scope.owner else { return }
        let held = usage[uid]?.planBytes ?? 0, returned = property.flatMap { performer?.charges[$0] } ?? 0
        if held - returned + bytes > quotas.planBytes {
            throw EngineError(.quotaExceeded, "quota planBytes: uid \(uid)'s running plans hold \(held) bytes; this one needs \(bytes) more (its quota is \(quotas.planBytes))")
        }
    }

    /// The plan now running on `property` of `performer` costs `bytes`.
    func charge(_ bytes: Int, property: String?, to performer: PerformerRecord) {
        // A plan that ended while it was delivered (reduce motion, speed 0) holds nothing.
        guard let property, let uid = performer.runtime.owner, !performer.tokens.isEmpty || performer.charges[property] != nil else { return }
        let previous = performer.charges[property] ?? 0
        guard bytes != previous else { return }
        performer.charges[property] = bytes > 0 ? bytes : nil
        usage[uid, default: Usage()].planBytes += bytes - previous
    }

    /// The animation of `property` ended: its plan's charge is given back.
    func releaseCharge(of property: String, on performer: PerformerRecord) {
        guard let bytes = performer.charges.removeValue(forKey: property), let uid = performer.runtime.owner else { return }
        usage[uid, default: Usage()].planBytes -= bytes
    }

    /// The performer went idle or away: every charge of its plans is given back.
    func releaseCharges(of performer: PerformerRecord) {
        guard !performer.charges.isEmpty, let uid = performer.runtime.owner else { return }
        usage[uid, default: Usage()].planBytes -= performer.charges.values.reduce(0, +)
        performer.charges.removeAll()
    }
}
