import MotionWire

/// `settlingDuration` exactly (docs/vocabulary.md#exact-motion: the time the rest rule first holds): the dry run's runtime went
/// idle inside one step, between `low` (still moving) and `high`; the plan is run again, the same steps
/// to `low`, then one step into that interval, halving it until it is below `precision`. Springs and
/// tweens are exact at any time (docs/vocabulary.md#exact-motion) and a spring rests at the time its rule
/// first holds, found when it starts (docs/vocabulary.md#when-a-spring-rests), so whether a probe is at rest
/// does not depend on the steps that reached it.
struct Settling {
    /// How many of the steps taken end at or before `low`, and where they end.
    let steps: Int
    let start: Double
    private(set) var low: Double
    private(set) var high: Double
    /// A probe under way: the steps replayed so far (nil: none started).
    private var replayed: Int?
    /// The reported `settlingDuration` has six decimals.
    static let precision = 1e-7

    init(steps: Int, low: Double, high: Double) {
        (self.steps, self.start, self.low, self.high) = (steps, low, low, high)
    }

    var isExact: Bool { high - low <= Self.precision }

    /// Probes until the interval is narrow enough (true) or `deadline` passes (false: call again).
    mutating func narrow(replaying taken: [Double], of plan: JSONValue, in runtime: String, engine: Engine,
                         until deadline: UInt64) throws(EngineError) -> Bool {
        var work = 0
        while !isExact {
            if replayed == nil {
                try? engine.destroyRuntime(runtime)
                try engine.createRuntime(runtime, dryRun: true)
                try engine.addPlan(plan, to: "sample", in: runtime)
                replayed = 0
            }
            while let done = replayed, done < steps {
                engine.advance(runtime: runtime, by: taken[done])
                replayed = done + 1
                work += 1
                if work & 63 == 0, WorkClock.now() >= deadline { return false }
            }
            let middle = (low + high) / 2
            engine.advance(runtime: runtime, by: middle - start)
            if engine.isActive(runtime: runtime) { low = middle } else { high = middle }
            replayed = nil
            work += 1
            if WorkClock.now() >= deadline, !isExact { return false }
        }
        return true
    }
}
