import MotionWire

/// A timeline replay (`timeline.attach`, `timeline.scrub`): performs a runtime's recorded plans from its
/// start to an offset in a dry-run runtime, in frame-sized steps and in slices, then hands the values it
/// produced to `apply`. Tweens land where their curve is at that time, springs and decays where their
/// simulation is: the same numbers every time.
final class ReplayWork: SlicedWork {
    typealias Values = [(target: String, property: String, value: [Double], velocity: [Double])]

    private let entries: [TimelineEntry]
    private let offset: Double
    private let runtime: String
    private let frame: Double
    private let apply: (EngineContext, Values) throws(EngineError) -> JSONValue
    /// Whether its answer still matters (the runtime is there and attached, no later scrub overtook it):
    /// asked before each slice, so a replay nobody waits for stops at once and `apply` says why.
    private let isWanted: (EngineContext) -> Bool
    private var position = 0
    private var now = 0.0
    private var started = false

    init(entries: [TimelineEntry], to offset: Double, runtime: String, frame: Double,
         isWanted: @escaping (EngineContext) -> Bool = { _ in true },
         apply: @escaping (EngineContext, Values) throws(EngineError) -> JSONValue) {
        self.isWanted = isWanted
        self.entries = entries.filter { $0.time <= offset }
        self.offset = offset
        self.runtime = runtime
        self.frame = frame
        self.apply = apply
    }

    func work(in context: EngineContext, until deadline: UInt64) throws(EngineError) -> Bool {
        let engine = context.engine
        guard isWanted(context) else { return true }
        if !started {
            started = true
            try engine.createRuntime(runtime, dryRun: true)
        }
        var steps = 0
        while true {
            let next = position < entries.count ? entries[position].time : offset
            while next - now > 1e-12 {
                let dt = min(frame, next - now)
                engine.advance(runtime: runtime, by: dt)
                now += dt
                steps += 1
                // Every step: one of 1,000 four-component springs took a sixteenth of a frame, and sixteen
                // of them between two looks held everyone's frames ~24 ms (WorkClock.now costs ~20 ns).
                if WorkClock.now() >= deadline { return false }
            }
            guard position < entries.count else { return true }
            let entry = entries[position]
            switch entry.change {
            case .add(let plan, let name): _ = try? engine.addPlan(plan, to: entry.target, in: runtime, named: name)
            case .remove(let name): _ = try? engine.removePlan(named: name, from: entry.target, in: runtime)
            case .gesture(let samples):
                if let scope = engine.runtimes[runtime] { engine.gestures.apply(samples, toGesture: entry.target, in: scope) }
            }
            position += 1
            if WorkClock.now() >= deadline { return false }
        }
    }

    func finish(in context: EngineContext) throws(EngineError) -> SlicedAnswer {
        let engine = context.engine
        guard isWanted(context) else { return .result(try apply(context, [])) }
        let values = engine.timelines.properties(ofRuntime: runtime).map { property in
            (property.target, property.property, engine.store.value(property.handle), engine.store.velocity(property.handle))
        }
        return .result(try apply(context, values))
    }

    func end(in context: EngineContext) {
        if started { try? context.engine.destroyRuntime(runtime) }
    }
}
