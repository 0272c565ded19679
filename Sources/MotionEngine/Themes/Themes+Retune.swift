import MotionWire

/// Live retune (SPEC §14, docs/themes.md#live-retune): when a token changes, every running animation
/// that used it goes on with the new values from its current value and velocity. The plans that can
/// (`PlanVocabulary.retunable`: a `Spring` without `from` continues from the property's state) are
/// remembered per property with the plan as written; a change re-resolves each and adds it again,
/// without `from`, `velocity` and `delay`, journaled as a client's change would be so that a restart's
/// replay reproduces it.
extension Themes {
    /// One property's plan that used tokens.
    struct Tuned {
        let runtime: String, target: String, name: String?, uid: UInt32
        let original: JSONValue
        var resolved: JSONValue
    }

    /// Properties remembered at most (beyond, plans are not retuned; docs/themes.md).
    static let maximumTuned = 65_536

    /// A plan was added (as written, and as resolved with `used` tokens): remembered if a retune can
    /// carry it on, and forgotten for its property otherwise (a later plan took the property over).
    func planAdded(original: JSONValue, resolved: JSONValue, used: Set<String>, runtime: String, target: String,
                   name: String?, uid: UInt32) {
        guard let property = resolved["property"]?.stringValue else { return }
        let key = Self.key(runtime, target, property)
        guard !used.isEmpty, let type = resolved["type"]?.stringValue, engine.vocabulary.retunable.contains(type),
              tuned[key] != nil || tuned.count < Self.maximumTuned
        else {
            tuned[key] = nil
            return
        }
        tuned[key] = Tuned(runtime: runtime, target: target, name: name, uid: uid, original: original, resolved: resolved)
    }

    static func key(_ runtime: String, _ target: String, _ property: String) -> String {
        runtime + "\u{0}" + target + "\u{0}" + property
    }

    /// Carries on every remembered plan of `uid` (nil: every uid's) whose tokens now resolve otherwise.
    /// Returns how many were added again.
    @discardableResult
    func retune(uid: UInt32?) -> Int {
        var retuned = 0
        for (key, entry) in tuned.sorted(by: { $0.key < $1.key }) where uid == nil || entry.uid == uid {
            guard engine.runtimes[entry.runtime] != nil, engine.isActive(runtime: entry.runtime),
                  let property = entry.resolved["property"]?.stringValue,
                  let velocity = engine.velocity(of: property, target: entry.target, runtime: entry.runtime),
                  velocity.contains(where: { $0 != 0 }) || engine.value(of: property, target: entry.target, runtime: entry.runtime)
                      .map({ JSONValue($0) != entry.resolved["to"] }) == true
            else {
                tuned[key] = nil  // at rest: nothing to carry on
                continue
            }
            guard let (plan, _) = try? resolve(entry.original, for: entry.uid), plan != entry.resolved else { continue }
            var continuing = plan
            for key in ["from", "velocity", "delay"] { continuing[key] = nil }
            tuned[key]?.resolved = plan
            let (runtime, target, name) = (entry.runtime, entry.target, entry.name)
            let quotas = context.quotas(of: runtime)
            let add: (EngineContext) throws(EngineError) -> JSONValue = { context throws(EngineError) in
                try context.engine.addPlan(continuing, to: target, in: runtime, named: name, quotas: quotas)
                return .null
            }
            if context.journal.isJournaled(runtime) {
                context.journal.applyJournaled([.add(runtime: runtime, target: target, plan: continuing, name: name,
                                                     t: clock.wallNow(), instant: engine.instantMotion)], apply: add)
            } else {
                _ = try? add(context)
            }
            retuned += 1
        }
        return retuned
    }
}
