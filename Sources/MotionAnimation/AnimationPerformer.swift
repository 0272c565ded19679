import HeapModule
import MotionJSON
import MotionPluginKit

/// The performer behind Tween, Spring and Decay: one animation per property of its target.
///
/// Every animation ends with an `animation.ended` trace event, `reason` `finished` or `interrupted`.
/// A new plan on an animating property replaces it (the old one ends `interrupted`), whichever plan type
/// animated it before: a performer claims the property it starts animating ("motion.claim/1") and the
/// performer of another type that held it yields. Removing a named plan
/// only marks its animation: the host replaces a named plan by removing then adding it in one request, and
/// the replacement must take over the running animation (value, velocity, token). A removal nothing took
/// over ends at the next tick, leaving the value where it was.
package final class AnimationPerformer<Animation: PropertyAnimation>: BatchPerformer {
    package typealias Plan = Animation.Plan
    package static var planType: String { Animation.planType }
    package static var isContinuous: Bool { true }

    /// One animated property. Its animation lives in `lanes` at `lane`.
    private struct Running {
        var handle: PropertyHandle
        var property: String
        var name: String?
        var token: ActiveToken
        var lane: Int
    }

    /// A plan waiting for its `delay`: it holds a token meanwhile (the runtime is active) and touches
    /// nothing until it starts.
    private struct Delayed: Comparable {
        var plan: Plan
        var handle: PropertyHandle
        var name: String?
        var token: ActiveToken
        /// When it starts, on `waitClock`; of two due at once, the one added first starts first.
        var due: Double
        var sequence: UInt64

        static func < (a: Delayed, b: Delayed) -> Bool { (a.due, a.sequence) < (b.due, b.sequence) }
        static func == (a: Delayed, b: Delayed) -> Bool { a.sequence == b.sequence }
    }

    private let context: PerformerContext
    private let lanes: any AnimationLaneSet<Animation>
    private var running: [Running] = []
    /// Where each of `running` is, by property and by lane: a performer animating many properties (one
    /// target, 200,000 of them) finds one at once, not by a look at each (quadratic to add or end them).
    private var indexOfHandle: [PropertyHandle: Int] = [:]
    private var indexOfLane: [Int: Int] = [:]
    /// Earliest first: a tick looks at the plans that start in it, not at every one waiting (a second uid
    /// re-adding staggered springs kept thousands waiting, and a count-down of each per tick, through an
    /// array observer that copied it per change, took 33 ms a tick). Changed through `wait` and
    /// `stopWaiting` only, which keep `lanes.delayingOwners`.
    private var delayed = Heap<Delayed>()
    /// Seconds stepped since a plan began waiting (from 0 whenever none waits), and plans added meanwhile.
    private var waitClock = 0.0
    private var waitSequence: UInt64 = 0
    /// Looked up at the first plan (a control call), used on the frame path.
    private var writer: PropertyBatchWriter?

    package init(context: PerformerContext, target: String) {
        self.context = context
        lanes = Animation.lanes(host: context.hostIdentity)
    }

    deinit {
        for lane in running.map(\.lane).sorted(by: >) { lanes.remove(lane) }
        if !running.isEmpty { lanes.ownerCount -= 1 }
        if !delayed.isEmpty { lanes.delayingOwners -= 1 }
    }

    package func add(_ plan: Plan) throws {
        try start(plan, name: nil)
    }

    package func add(_ plan: Plan, named name: String) throws {
        try start(plan, name: name)
    }

    package func yield(_ property: PropertyHandle) {
        // A plan waiting for its delay gives way too: a newer plan took the property first.
        for dropped in stopWaiting(where: { $0.handle == property }) {
            context.animationEnded(property: dropped.plan.property, reason: "interrupted", name: dropped.name)
            context.terminate(dropped.token)
        }
        guard let index = indexOfHandle[property] else { return }
        end(removing: index, reason: "interrupted")
    }

    package func removePlan(named name: String) {
        if let waiting = stopWaiting(where: { $0.name == name }).first {
            context.animationEnded(property: waiting.plan.property, reason: "interrupted", name: name)
            context.terminate(waiting.token)
            return
        }
        guard let entry = running.first(where: { $0.name == name && !lanes.isRemoved($0.lane) }) else { return }
        lanes.setRemoved(entry.lane, true)
    }

    @_specialize(where Animation == SpringAnimation)
    @_specialize(where Animation == DecayAnimation)
    @_specialize(where Animation == TweenAnimation)
    @_specialize(where Animation == KeyframesAnimation)
    package func advance(by dt: Double) {
        if !running.isEmpty {
            lanes.advance(running.map(\.lane), by: dt)
            lanes.finishTick(writer: writer)
        }
        if !delayed.isEmpty { advanceDelays(by: dt) }
    }

    // The shipped animations get specialized tick loops (no witness-table calls per lane): the generic
    // entry points test for these types first.
    @_specialize(where Animation == SpringAnimation)
    @_specialize(where Animation == DecayAnimation)
    @_specialize(where Animation == TweenAnimation)
    @_specialize(where Animation == KeyframesAnimation)
    package static func advance(_ performers: PerformerBatch<AnimationPerformer>, by dt: Double) {
        guard let first = performers.first else { return }
        let lanes = first.lanes
        // Performers whose plans all wait for their delay own no lane: only lane owners count.
        var owners = performers.count
        if lanes.delayingOwners > 0 {
            owners = 0
            for performer in performers where !performer.running.isEmpty { owners += 1 }
        }
        if owners == lanes.ownerCount {
            lanes.advanceAll(by: dt, writer: first.writer)
        } else {
            // Some owners are not in this batch (a paused runtime, a dry run's): step only the lanes of those
            // that are, in one call (one per performer, 100,000 moving springs took 50 ms a tick while
            // another uid's plan.sample ran).
            lanes.gathered.removeAll(keepingCapacity: true)
            for performer in performers {
                for entry in performer.running { lanes.gathered.append(entry.lane) }
            }
            lanes.advance(lanes.gathered, by: dt)
        }
        lanes.finishTick(writer: first.writer)
        if lanes.delayingOwners > 0 {
            for performer in performers where !performer.delayed.isEmpty { performer.advanceDelays(by: dt) }
        }
    }

    /// The host asks for the values this type's lanes kept (no one read them when they were stepped).
    package static func writeKept(host: UInt) {
        Animation.lanes(host: host).writeKept()
    }

    package static func writeKept(host: UInt, handles: UnsafeBufferPointer<UInt32>) {
        Animation.lanes(host: host).writeKept(handles: handles)
    }

    /// Moves the waiting plans' clock on; those whose delay ends within this tick start, in the order their
    /// delays end (of two at once, the one added first), each moved on by the rest of the tick, as if it
    /// had started at its exact time. A tick looks only at the plans that start in it.
    private func advanceDelays(by dt: Double) {
        waitClock += dt
        var starting: [(plan: Delayed, rest: Double)] = []
        while let next = delayed.min, next.due - waitClock <= 1e-12 {
            _ = delayed.popMin()
            starting.append((next, max(waitClock - next.due, 0)))
        }
        if delayed.isEmpty { lanes.delayingOwners -= 1 }
        // Starting one may add plans here (a sequence's next step): they wait in `delayed` as any other.
        for (waiting, rest) in starting {
            do {
                try begin(waiting.plan, handle: waiting.handle, name: waiting.name, token: waiting.token, rest: rest)
            } catch {
                context.animationEnded(property: waiting.plan.property, reason: "interrupted", name: waiting.name)
                context.terminate(waiting.token)
            }
        }
    }

    // MARK: Called by the lanes

    func laneMoved(from old: Int, to new: Int) {
        if let index = indexOfLane.removeValue(forKey: old) { setLane(index, new) }
    }

    func laneEnded(_ lane: Int, reason: String) {
        guard let index = indexOfLane[lane] else { return }
        end(removing: index, reason: reason, late: reason == "finished" ? lanes.animation(lane).overrun : 0)
    }

    // MARK: Plans

    private func start(_ plan: Plan, name: String?) throws {
        if writer == nil { writer = context.batchWriter() }
        guard let handle = context.property(plan.property) else { throw PlanError("property: invalid name") }
        if let delay = plan.delay, delay > 0 {
            // Checked now (a bad plan is refused at plan.add), started when its delay ends.
            _ = try Animation(plan: plan, current: context.read(handle), context: context)
            if let name, let replaced = stopWaiting(where: { $0.name == name }).first {
                context.animationEnded(property: replaced.plan.property, reason: "interrupted", name: name)
                context.terminate(replaced.token)
            }
            wait(plan, handle: handle, name: name, delay: delay)
            return
        }
        // A negative delay: the animation starts that far along.
        let along = max(0, -(plan.delay ?? 0))
        if let index = indexOfHandle[handle] {
            let lane = running[index].lane
            let replacement = try lanes.animation(lane).replaced(by: plan, context: context)
            context.claim(handle)
            context.animationEnded(property: running[index].property, reason: "interrupted", name: running[index].name)
            setLane(index, lanes.replace(lane, with: replacement))
            running[index].name = name
            publish(replacement, to: handle)
            if replacement.isFinished {
                end(removing: index, reason: "finished", late: along)
            } else if along > 0 {
                lanes.advance([running[index].lane], by: along)
                lanes.finishTick(writer: writer)
            }
            return
        }
        let animation = try Animation(plan: plan, current: context.read(handle), context: context)
        // Even an animation that is finished at once takes a token: the runtime turns active, then idle.
        let token = context.generateToken()
        // After the token: the animation this one interrupts releases its own without the runtime
        // flickering idle in between.
        context.claim(handle)
        launch(animation, plan: plan, handle: handle, name: name, token: token, rest: along)
    }

    private func wait(_ plan: Plan, handle: PropertyHandle, name: String?, delay: Double) {
        if delayed.isEmpty {
            lanes.delayingOwners += 1
            waitClock = 0
        }
        waitSequence += 1
        delayed.insert(Delayed(plan: plan, handle: handle, name: name, token: context.generateToken(),
                               due: waitClock + delay, sequence: waitSequence))
    }

    /// Takes the waiting plans that match out, in the order they were added (a look at each: named
    /// removals and yields, not ticks).
    private func stopWaiting(where matches: (Delayed) -> Bool) -> [Delayed] {
        guard delayed.unordered.contains(where: matches) else { return [] }
        var removed: [Delayed] = [], kept: [Delayed] = []
        for waiting in delayed.unordered {
            if matches(waiting) { removed.append(waiting) } else { kept.append(waiting) }
        }
        delayed = Heap(kept)
        if delayed.isEmpty { lanes.delayingOwners -= 1 }
        return removed.sorted { $0.sequence < $1.sequence }
    }

    /// A delayed plan starts (inside a tick): as `start` would, with the token it held while it waited, then
    /// stepped by `rest`, the part of the tick after its delay ended.
    private func begin(_ plan: Plan, handle: PropertyHandle, name: String?, token: ActiveToken, rest: Double) throws {
        if let index = indexOfHandle[handle] {
            let replacement = try lanes.animation(running[index].lane).replaced(by: plan, context: context)
            end(removing: index, reason: "interrupted")
            launch(replacement, plan: plan, handle: handle, name: name, token: token, rest: rest)
            return
        }
        let animation = try Animation(plan: plan, current: context.read(handle), context: context)
        context.claim(handle)
        launch(animation, plan: plan, handle: handle, name: name, token: token, rest: rest)
    }

    /// A new animation takes its place: its first value is written, then it runs (stepped by `rest`, the
    /// part of this tick after a delay ended), or ends at once, `rest` late, if it is already finished.
    private func launch(_ animation: Animation, plan: Plan, handle: PropertyHandle, name: String?, token: ActiveToken,
                        rest: Double = 0) {
        publish(animation, to: handle)
        if animation.isFinished {
            context.animationEnded(property: plan.property, reason: "finished", name: name, late: rest)
            context.terminate(token)
            return
        }
        append(animation, handle: handle, property: plan.property, name: name, token: token)
        if rest > 0, let lane = running.last?.lane {
            lanes.advance([lane], by: rest)
            lanes.finishTick(writer: writer)
        }
    }

    private func append(_ animation: Animation, handle: PropertyHandle, property: String, name: String?, token: ActiveToken,
                        isRemoved: Bool = false) {
        if running.isEmpty { lanes.ownerCount += 1 }
        let lane = lanes.add(animation, handle: handle, owner: self)
        lanes.setRemoved(lane, isRemoved)
        indexOfHandle[handle] = running.count
        indexOfLane[lane] = running.count
        running.append(Running(handle: handle, property: property, name: name, token: token, lane: lane))
    }

    private func publish(_ animation: Animation, to handle: PropertyHandle) {
        let state = animation.state
        context.write(handle, value: state.value, velocity: state.velocity, count: animation.count)
    }

    /// The animation at `index` is now in `lane` (another may have taken its old lane meanwhile).
    private func setLane(_ index: Int, _ lane: Int) {
        let old = running[index].lane
        if indexOfLane[old] == index { indexOfLane[old] = nil }
        running[index].lane = lane
        indexOfLane[lane] = index
    }

    /// Ends the animation at `index`: its lane is freed, the end is traced and its token released.
    private func end(removing index: Int, reason: String, late: Double = 0) {
        let ended = running[index]
        indexOfHandle[ended.handle] = nil
        if indexOfLane[ended.lane] == index { indexOfLane[ended.lane] = nil }
        if index != running.count - 1 {
            running.swapAt(index, running.count - 1)
            indexOfHandle[running[index].handle] = index
            indexOfLane[running[index].lane] = index
        }
        running.removeLast()
        lanes.remove(ended.lane)
        if running.isEmpty { lanes.ownerCount -= 1 }
        context.animationEnded(property: ended.property, reason: reason, name: ended.name, late: late)
        context.terminate(ended.token)
    }
}

/// Hot swap: the running animations, their names and their state, moved to a new build at a tick
/// boundary. The new build takes its own tokens and writes nothing until the next tick, so values and
/// velocities carry on without a jump.
extension AnimationPerformer: MigratablePerformer where Animation: MigratableAnimation {
    package struct MigratedAnimation: Codable {
        var property: String
        var name: String?
        var isRemoved: Bool
        var snapshot: Animation.Snapshot
    }

    package func exportState() -> [MigratedAnimation] {
        running.map { MigratedAnimation(property: $0.property, name: $0.name, isRemoved: lanes.isRemoved($0.lane),
                                        snapshot: lanes.animation($0.lane).snapshot) }
    }

    package func importState(_ state: [MigratedAnimation]) throws {
        let restored = try state.map { migrated in
            guard let handle = context.property(migrated.property) else { throw PlanError("property: invalid name") }
            return (handle, migrated, try Animation(snapshot: migrated.snapshot, context: context))
        }
        if writer == nil { writer = context.batchWriter() }
        for (handle, migrated, animation) in restored {
            append(animation, handle: handle, property: migrated.property, name: migrated.name,
                   token: context.generateToken(), isRemoved: migrated.isRemoved)
        }
    }
}

/// Springs and decays write their state with `StateWriter` and read it with the JSON core, not through
/// Codable (the same JSON),
/// so a swap under many running animations holds the engine thread for microseconds per performer.
extension AnimationPerformer: FastStateCoding where Animation: MigratableAnimation, Animation.Snapshot == SimulationSnapshot {
    package func encodeState() -> [UInt8]? {
        var writer = StateWriter()
        writer.raw("[")
        for (index, entry) in running.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"property\":")
            writer.string(entry.property)
            if let name = entry.name {
                writer.raw(",\"name\":")
                writer.string(name)
            }
            writer.raw(lanes.isRemoved(entry.lane) ? ",\"isRemoved\":true" : ",\"isRemoved\":false")
            let snapshot = lanes.animation(entry.lane).snapshot
            writer.raw(",\"snapshot\":{\"count\":")
            writer.integer(snapshot.count)
            writer.raw(",\"simulation\":")
            snapshot.simulation.write(into: &writer)
            writer.raw("}}")
        }
        writer.raw("]")
        return writer.bytes
    }

    package func decodeState(_ json: UnsafeRawBufferPointer) throws -> Bool {
        guard case .array(let items)? = try? JSONValue.parse(json) else { return false }
        var state: [MigratedAnimation] = []
        for item in items {
            guard case .string(let property) = item["property"], case .bool(let isRemoved) = item["isRemoved"],
                let count = item["snapshot"]?["count"]?.doubleValue, let simulationJSON = item["snapshot"]?["simulation"],
                let simulation = Simulation(state: simulationJSON), let components = Int(exactly: count)
            else { return false }
            var name: String?
            switch item["name"] {
            case nil, .null?: name = nil
            case .string(let text)?: name = text
            default: return false
            }
            state.append(MigratedAnimation(property: property, name: name, isRemoved: isRemoved,
                                           snapshot: SimulationSnapshot(count: components, simulation: simulation)))
        }
        try importState(state)
        return true
    }
}
