import MotionWire

/// What a running plan costs its uid beyond a small plan's (docs/protocol.md#ownership-and-quotas,
/// `quotas.planBytes`): a plugin keeps a plan's values as its own structures, and what that costs grows
/// with how many there are, not with the JSON's length. Measured (docs/protocol.md): a `Keyframes` of
/// 1,000 one-number values raised the daemon's resident memory by ~170 KB (9 KB of JSON), ~160 bytes a
/// number; a string is held about as long as it is (a `linear(…)` timing's stops, four bytes a character
/// here to be safe). A plan of a few numbers (a spring, a tween) costs nothing: the first 4 KiB are free,
/// the `animations` quota bounds those. Charged while the plan runs: until its animation ends (or its
/// performer goes idle, or goes), or another plan takes its property; a plan waiting for its `delay`
/// until its performer goes idle or goes.
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
    /// Refuses a plan whose charge would take its runtime's owner past `planBytes`. A plan that starts
    /// at once replaces the one running on `property` (its charge is given back first); one that waits
    /// for its `delay` replaces nothing.
    func checkCharge(_ bytes: Int, property: String?, waits: Bool, replacing performer: PerformerRecord?, in scope: RuntimeScope,
                     quotas: Quotas?) throws(EngineError) {
        guard bytes > 0, let quotas, let uid = scope.owner else { return }
        let held = ledger.usage[uid]?.planBytes ?? 0
        let returned = waits ? 0 : property.flatMap { performer?.charges[$0] } ?? 0
        if held - returned + bytes > quotas.planBytes {
            throw EngineError(.quotaExceeded, "quota planBytes: uid \(uid)'s running plans hold \(held) bytes; this one needs \(bytes) (its quota is \(quotas.planBytes))")
        }
    }

    /// The plan just delivered to `property` of `performer` costs `bytes`: as the one running there, or
    /// (`waits`: it has a `delay`) added to what the performer's waiting plans hold until it goes idle or
    /// away (the plugin does not say when a waiting plan starts). One that finished while it was
    /// delivered (a zero duration, speed 0) holds nothing.
    func charge(_ bytes: Int, property: String?, waits: Bool, to performer: PerformerRecord) {
        defer { ledger.charging = nil }
        guard let property, let uid = performer.runtime.owner, ledger.charging?.finished != true else { return }
        if waits {
            guard bytes > 0 else { return }
            performer.waitingCharge += bytes
            ledger.usage[uid, default: Usage()].planBytes += bytes
            return
        }
        let previous = performer.charges[property] ?? 0
        guard bytes != previous else { return }
        performer.charges[property] = bytes > 0 ? bytes : nil
        ledger.usage[uid, default: Usage()].planBytes += bytes - previous
    }

    /// The animation of `property` ended: the charge of the plan running there is given back (and a plan
    /// being delivered that finished at once is not charged).
    func releaseCharge(of property: String, on performer: PerformerRecord, reason: String?) {
        if let delivering = ledger.charging, delivering.performer == performer.id, delivering.property == property, reason == "finished" {
            ledger.charging?.finished = true
        }
        guard let bytes = performer.charges.removeValue(forKey: property), let uid = performer.runtime.owner else { return }
        ledger.usage[uid, default: Usage()].planBytes -= bytes
    }

    /// The performer went idle or away: every charge of its plans is given back.
    func releaseCharges(of performer: PerformerRecord) {
        let total = performer.charges.values.reduce(0, +) + performer.waitingCharge
        performer.charges.removeAll()
        performer.waitingCharge = 0
        guard total > 0, let uid = performer.runtime.owner else { return }
        ledger.usage[uid, default: Usage()].planBytes -= total
    }

    /// A hot swap's new record holds what the old one was charged (its plans go on in it).
    func moveCharges(from old: PerformerRecord, to new: PerformerRecord) {
        new.charges = old.charges
        new.waitingCharge = old.waitingCharge
        old.charges.removeAll()
        old.waitingCharge = 0
    }
}
