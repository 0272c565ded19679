import MotionWire

/// A staggered `plan.add` applied in slices (docs/vocabulary.md#delay-and-stagger): its targets one by one,
/// until the slice's deadline, the clock ticking and other clients' requests answered in between. 256
/// targets took 14–20 ms of the engine thread at once on an Intel Xeon (3 ms on the AMD machine where the
/// limit was set): a second uid sending them back to back held the frame clock for two frames each time.
///
/// Applied target by target as before: one refused (a quota reached midway) ends it, and the targets
/// before it keep the plan, in memory and in the journal alike (`applied`); the error says how many. Into
/// a journaled runtime it is one journal entry, and the entries after it wait until it is done (so a
/// restart replays the changes in the order they took effect); otherwise it is its connection's `job`,
/// whose later requests wait for its answer.
final class StaggerWork: SlicedWork {
    let runtime: String, shown: String
    let targets: [String], plans: [JSONValue]
    let checked: [(factoryIndex: Int, planType: String)]
    let quotas: Quotas?
    /// The plan as written, the tokens it used and whose they were (`Themes.planAdded`).
    let original: JSONValue, used: Set<String>, uid: UInt32
    let applied = RuntimeJournal.AppliedCount()
    /// The request's idempotency key when it is not journaled (a journaled one goes with its journal
    /// entry): remembered with the answer, or forgotten if there is none.
    var key: IdempotencyKeys.Pair?
    private var performers: [JSONValue] = []
    private var failure: EngineError?

    init(runtime: String, shown: String, targets: [String], plans: [JSONValue], checked: [(factoryIndex: Int, planType: String)],
         quotas: Quotas?, original: JSONValue, used: Set<String>, uid: UInt32) {
        (self.runtime, self.shown, self.targets, self.plans, self.checked) = (runtime, shown, targets, plans, checked)
        (self.quotas, self.original, self.used, self.uid) = (quotas, original, used, uid)
    }

    var isLive: Bool { true }

    /// Adds the plan to the next targets until `deadline` (at least one); a refusal ends the work (`finish`
    /// answers it).
    func work(in context: EngineContext, until deadline: UInt64) -> Bool {
        repeat {
            let index = applied.value
            guard failure == nil, index < targets.count else { return true }
            do throws(EngineError) {
                let performer = try context.engine.addPlan(plans[index], to: targets[index], in: runtime, quotas: quotas,
                                                           checked: checked[index])
                performers.append(.number(Double(performer)))
                // As written, with its own target's delay: a retune compares it with the copy as resolved.
                var written = original
                if plans[index]["delay"] != original["delay"] { written["delay"] = plans[index]["delay"] }
                context.themes.planAdded(original: written, resolved: plans[index], used: used, runtime: runtime,
                                         target: targets[index], name: nil, uid: uid)
                applied.value = index + 1
            } catch {
                let before = index == 0 ? "" : "; the \(index) target\(index == 1 ? "" : "s") before it took the plan"
                failure = EngineError(error.code, "targets[\(index)]: \(error.message)\(before)")
                return true
            }
        } while WorkClock.now() < deadline
        return applied.value == targets.count
    }

    func finish(in context: EngineContext) throws(EngineError) -> SlicedAnswer {
        if let failure {
            endKey(in: context, result: nil)
            throw failure
        }
        let result: JSONValue = ["runtime": .string(shown), "targets": .array(targets.map(JSONValue.string)), "performers": .array(performers)]
        endKey(in: context, result: result)
        return .result(result)
    }

    func end(in context: EngineContext) { endKey(in: context, result: nil) }

    private func endKey(in context: EngineContext, result: JSONValue?) {
        guard let key else { return }
        self.key = nil
        context.keys.end(uid: key.uid, key: key.key, result: result, now: context.clock.wallNow())
    }
}
