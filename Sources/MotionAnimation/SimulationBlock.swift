import GrowingMemory
import MotionKernels
import MotionPluginKit

/// One block of `SimulationLanes`: lanes of one width and kind, column by column, plus the buffers a tick
/// writes into (in the layout of "motion.properties/1" writes, so they go to the host as they are).
final class SimulationBlock {
    let width: Int
    let restsAtTarget: Bool
    /// Springs with `overshootClamping` (kernel mode 2).
    let clampsAtTarget: Bool
    private(set) var count = 0
    private var capacity = 0

    // Columns, `capacity` long, in one arena: offsets (position − target), velocities and targets `width`
    // of each, then tensions, dampings, thresholds and the seconds until each rests (docs/vocabulary.md#exact-motion:
    // the kernel takes each lane's exact transition from its tension and damping, and rests it at the time
    // its rule first holds, `RestTime`). A decay's target is where it rests.
    private var arena: ColumnArena
    private var offsets: [UnsafeMutablePointer<Double>] = []
    private var velocities: [UnsafeMutablePointer<Double>] = []
    private var targets: [UnsafeMutablePointer<Double>] = []
    private var tensions: UnsafeMutablePointer<Double>
    private var dampings: UnsafeMutablePointer<Double>
    private var thresholds: UnsafeMutablePointer<Double>
    private var restsIn: UnsafeMutablePointer<Double>
    /// How many lanes have each force. With one (a UI's springs mostly share their physics), the kernel
    /// computes its transition once per tick (`sharedForce`) instead of once per lane.
    private var forces: [Force: Int] = [:]
    private let sharedForce = UnsafeMutablePointer<Double>.allocate(capacity: 2)
    var sharesOneForce: Bool { forces.count == 1 }
    var endedFlags: UnsafeMutablePointer<UInt8> { endedStorage.pointer }
    var handles: UnsafeMutablePointer<UInt32> { handleStorage.pointer }
    /// `Unmanaged<AnimationPerformer<…>>` of each lane, unretained (a performer gives its lanes back).
    var owners: UnsafeMutablePointer<UnsafeMutableRawPointer> { ownerStorage.pointer }
    var removed: UnsafeMutablePointer<Bool> { removedStorage.pointer }
    private var removedCount = 0

    // Writes: entry i is `counts[i]` (= width) components at `values + 4i`, `velocities + 4i`.
    var writeValues: UnsafeMutablePointer<Double> { writeValueStorage.pointer }
    var writeVelocities: UnsafeMutablePointer<Double> { writeVelocityStorage.pointer }
    var writeCounts: UnsafeMutablePointer<UInt8> { writeCountStorage.pointer }
    /// Handles of the entries when they are not lane by lane (`advance(_:by:ended:)`, held lanes).
    var writeHandles: UnsafeMutablePointer<UInt32> { writeHandleStorage.pointer }
    var pendingWrites = 0
    /// Where `shownWithoutStepping` lets the kernel put its rest flags: `endedFlags` must keep saying which
    /// lanes came to rest at the last advance.
    let scratchFlags = UnsafeMutablePointer<UInt8>.allocate(capacity: SimulationBlock.chunk)
    /// The lanes of a chunk that a keeping advance still writes (`motion_simulation_select…`).
    let selectedLanes = UnsafeMutablePointer<UInt32>.allocate(capacity: SimulationBlock.chunk)
    /// 1 for a lane whose value a keeping advance left unwritten ("motion.kept/1") and that nothing has
    /// written since: what the host's asking writes, each once (a value another writer put there after
    /// the lane was written for one read must not be written over by the next). `SimulationBlock+Writes`.
    var unwritten: UnsafeMutablePointer<UInt8> { unwrittenStorage.pointer }
    // The per-lane arrays above, each grown in place once large (`GrowingArray`).
    private var endedStorage = GrowingArray<UInt8>(), handleStorage = GrowingArray<UInt32>()
    private var ownerStorage = GrowingArray<UnsafeMutableRawPointer>(), removedStorage = GrowingArray<Bool>()
    private var writeValueStorage = GrowingArray<Double>(), writeVelocityStorage = GrowingArray<Double>()
    private var writeCountStorage = GrowingArray<UInt8>(), writeHandleStorage = GrowingArray<UInt32>()
    private var unwrittenStorage = GrowingArray<UInt8>()
    var mayHaveUnwritten = false

    init(width: Int, restsAtTarget: Bool, clampsAtTarget: Bool = false) {
        self.width = width
        self.restsAtTarget = restsAtTarget
        self.clampsAtTarget = clampsAtTarget
        arena = ColumnArena(columns: 3 * width + 4)
        (tensions, dampings, thresholds, restsIn) = (arena.column(0), arena.column(0), arena.column(0), arena.column(0))
        locateColumns()
    }

    /// Points the columns into the arena (after it moved).
    private func locateColumns() {
        offsets = (0..<width).map { arena.column($0) }
        velocities = (0..<width).map { arena.column(width + $0) }
        targets = (0..<width).map { arena.column(2 * width + $0) }
        tensions = arena.column(3 * width)
        dampings = arena.column(3 * width + 1)
        thresholds = arena.column(3 * width + 2)
        restsIn = arena.column(3 * width + 3)
    }

    /// A lane's force as bit patterns (a NaN damping still names one force).
    private struct Force: Hashable {
        var tension, damping: UInt64
    }

    deinit {
        scratchFlags.deallocate()
        selectedLanes.deallocate()
        sharedForce.deallocate()
        arena.deallocate()
        for storage in [endedStorage, unwrittenStorage, writeCountStorage] { storage.deallocate() }
        for storage in [handleStorage, writeHandleStorage] { storage.deallocate() }
        writeValueStorage.deallocate()
        writeVelocityStorage.deallocate()
        ownerStorage.deallocate()
        removedStorage.deallocate()
    }

    // MARK: Lanes

    func append(_ simulation: Simulation, handle: UInt32, owner: UnsafeMutableRawPointer) -> Int {
        if count == capacity { grow(to: max(64, capacity * 2)) }
        let index = count
        count += 1
        handles[index] = handle
        owners[index] = owner
        removed[index] = false
        endedFlags[index] = 0
        unwritten[index] = 0
        assign(index, simulation)
        return index
    }

    func set(_ index: Int, _ simulation: Simulation) {
        forget(force(at: index))
        unwritten[index] = 0
        assign(index, simulation)
    }

    private func force(at index: Int) -> Force {
        Force(tension: tensions[index].bitPattern, damping: dampings[index].bitPattern)
    }

    private func forget(_ force: Force) {
        guard let lanes = forces[force] else { return }
        forces[force] = lanes > 1 ? lanes - 1 : nil
    }

    private func assign(_ index: Int, _ simulation: Simulation) {
        let shown = simulation.published
        var target = SIMD4<Double>()
        switch simulation.force {
        case .spring(let springTarget, let tension, let damping):
            target = springTarget
            tensions[index] = tension
            dampings[index] = damping
        case .decay(let drag):
            tensions[index] = 0
            dampings[index] = drag
            let resting = simulation.timeToRest
            if resting.isFinite { target = RestTime.decayRest(value: shown.value, velocity: shown.velocity, drag: drag, after: resting) }
        }
        for component in 0..<width {
            targets[component][index] = target[component]
            offsets[component][index] = shown.value[component] - target[component]
            velocities[component][index] = shown.velocity[component]
        }
        thresholds[index] = simulation.threshold
        restsIn[index] = simulation.timeToRest
        forces[force(at: index), default: 0] += 1
    }

    func simulation(_ index: Int) -> Simulation {
        var value = SIMD4<Double>(), velocity = SIMD4<Double>(), target = SIMD4<Double>()
        // A lane that came to rest by time shows its target (a decay's is where it rested: the offset went
        // on past it in the tick that rested it).
        let rested = restsIn[index] <= 0
        for component in 0..<width {
            target[component] = targets[component][index]
            value[component] = rested ? target[component] : offsets[component][index] + target[component]
            velocity[component] = velocities[component][index]
        }
        let force: Simulation.Force = restsAtTarget
            ? .spring(target: target, tension: tensions[index], damping: dampings[index])
            : .decay(drag: dampings[index])
        return Simulation(value: value, velocity: velocity, force: force, threshold: thresholds[index], restsIn: restsIn[index],
                          clampsAtTarget: clampsAtTarget)
    }

    func setRemoved(_ index: Int, _ isRemoved: Bool) {
        guard removed[index] != isRemoved else { return }
        removed[index] = isRemoved
        removedCount += isRemoved ? 1 : -1
    }

    /// Frees `index`; returns the lane moved into it (its old index and owner), if any.
    func remove(_ index: Int) -> (from: Int, owner: UnsafeMutableRawPointer)? {
        setRemoved(index, false)
        forget(force(at: index))
        let last = count - 1
        count -= 1
        guard index != last else { return nil }
        for component in 0..<width {
            offsets[component][index] = offsets[component][last]
            velocities[component][index] = velocities[component][last]
            targets[component][index] = targets[component][last]
        }
        tensions[index] = tensions[last]
        dampings[index] = dampings[last]
        thresholds[index] = thresholds[last]
        restsIn[index] = restsIn[last]
        endedFlags[index] = endedFlags[last]
        unwritten[index] = unwritten[last]
        handles[index] = handles[last]
        owners[index] = owners[last]
        removed[index] = removed[last]
        return (last, owners[index])
    }

    // MARK: Frame

    /// Lanes stepped per kernel call in `advanceAll`: their writes go to the host while still in cache.
    static let chunk = 2048

    /// Steps every lane and writes them through `writer`; `ended(index, interrupted)` hears each lane that
    /// ends at this tick. With `keep` (no one reads this tick's values, "motion.unread/1") only the lanes
    /// that end and those of properties read (a byte per handle in `read`, or the lanes in `readLanes`,
    /// ascending) are written: the others are written when the host asks (`writeCurrent`) or when they go.
    func advanceAll(by dt: Double, writer: PropertyBatchWriter?, keep: Bool = false, read: UnsafeBufferPointer<UInt8>? = nil,
                    readLanes: UnsafeBufferPointer<UInt32> = .init(start: nil, count: 0), ended: (Int, Bool) -> Void) {
        // A removed plan leaves the value where it was, at rest: its lane is shown as before the step.
        var held: [(index: Int, value: SIMD4<Double>)] = []
        if removedCount > 0 {
            for index in 0..<count where removed[index] { held.append((index, simulation(index).published.value)) }
        }
        // Every lane is unwritten after a keeping advance but those written below; none after a writing one.
        if keep || mayHaveUnwritten { unwritten.update(repeating: keep ? 1 : 0, count: count) }
        mayHaveUnwritten = keep
        var resting = 0, listed = 0
        for start in stride(from: 0, to: count, by: Self.chunk) {
            let n = min(Self.chunk, count - start)
            var lanes = kernelLanes(from: start, count: n)
            // Kept: the kernel writes no values at all (half its cost and more; BENCHMARKS.md).
            let rested = motion_simulation_advance(&lanes, dt, keep ? nil : writeValues, keep ? nil : writeVelocities)
            resting += rested
            if !keep {
                writer?.write(n, handles: handles + start, counts: writeCounts, values: writeValues, velocities: writeVelocities)
            } else {
                // Lanes at rest are about to go (the host cannot ask later); read ones are read every tick.
                let first = listed
                while listed < readLanes.count, Int(readLanes[listed]) < start + n { listed += 1 }
                if rested > 0 || read != nil || listed > first {
                    writeSelected(from: start, count: n, rested: rested, read: read,
                                  listed: UnsafeBufferPointer(rebasing: readLanes[first..<listed]), writer)
                }
            }
        }
        if !held.isEmpty {
            for (entry, lane) in held.enumerated() {
                writeHandles[entry] = handles[lane.index]
                unwritten[lane.index] = 0
                hold(entry: entry, at: lane.value)
                ended(lane.index, true)
            }
            writer?.write(held.count, handles: writeHandles, counts: writeCounts, values: writeValues, velocities: writeVelocities)
        }
        guard resting > 0 else { return }
        var found = 0
        for index in 0..<count where endedFlags[index] != 0 {
            if !removed[index] { ended(index, false) }
            found += 1
            if found == resting { break }
        }
    }

    /// Steps the lanes at `indices` only, appending their writes to this tick's.
    func advance(_ indices: [UInt32], by dt: Double, ended: (Int, Bool) -> Void) {
        // Written now (stepped or held): no longer what a keeping advance left.
        for index in indices { unwritten[Int(index)] = 0 }
        var moving: [UInt32] = []
        for index in indices {
            if removed[Int(index)] {
                let entry = pendingWrites
                pendingWrites += 1
                writeHandles[entry] = handles[Int(index)]
                hold(entry: entry, at: simulation(Int(index)).published.value)
                ended(Int(index), true)
            } else {
                moving.append(index)
            }
        }
        guard !moving.isEmpty else { return }
        var lanes = kernelLanes(from: 0, count: count)
        let first = pendingWrites
        let resting = moving.withUnsafeBufferPointer { moving in
            motion_simulation_advance_some(&lanes, moving.baseAddress, moving.count, dt, writeValues + first * 4,
                                           writeVelocities + first * 4)
        }
        for (offset, index) in moving.enumerated() {
            writeHandles[first + offset] = handles[Int(index)]
            if resting > 0, endedFlags[Int(index)] != 0 { ended(Int(index), false) }
        }
        pendingWrites += moving.count
    }

    /// The kernel's view of lanes `start..<start + n`.
    func kernelLanes(from start: Int, count n: Int, ended: UnsafeMutablePointer<UInt8>? = nil) -> motion_simulation_lanes {
        func column(_ columns: [UnsafeMutablePointer<Double>], _ component: Int) -> UnsafeMutablePointer<Double>? {
            component < columns.count ? columns[component] + start : nil
        }
        var shared: UnsafePointer<Double>?
        if forces.count == 1, n > 0 {
            (sharedForce[0], sharedForce[1]) = (tensions[start], dampings[start])
            shared = UnsafePointer(sharedForce)
        }
        return motion_simulation_lanes(
            count: n, width: UInt32(width), rests_at_target: clampsAtTarget ? 2 : restsAtTarget ? 1 : 0,
            offset: (column(offsets, 0), column(offsets, 1), column(offsets, 2), column(offsets, 3)),
            velocity: (column(velocities, 0), column(velocities, 1), column(velocities, 2), column(velocities, 3)),
            target: (column(targets, 0), column(targets, 1), column(targets, 2), column(targets, 3)),
            tension: tensions + start, damping: dampings + start, rests_in: restsIn + start, ended: ended ?? endedFlags + start, shared_force: shared)
    }

    /// Room for `newCapacity` lanes: in place once large (`GrowingArray`, `ColumnArena`), copying nothing.
    private func grow(to newCapacity: Int) {
        arena.grow(to: newCapacity, keeping: count)
        locateColumns()
        endedStorage.grow(to: newCapacity, keeping: count)
        unwrittenStorage.grow(to: newCapacity, keeping: count)
        handleStorage.grow(to: newCapacity, keeping: count)
        ownerStorage.grow(to: newCapacity, keeping: count)
        removedStorage.grow(to: newCapacity, keeping: count)
        // Write buffers hold nothing between ticks; what they held stays (finite), the rest reads 0, and
        // the counts are all `width`.
        writeValueStorage.grow(to: newCapacity * 4, keeping: capacity * 4, zeroed: true)
        writeVelocityStorage.grow(to: newCapacity * 4, keeping: capacity * 4, zeroed: true)
        writeCountStorage.grow(to: newCapacity, keeping: capacity, fill: UInt8(width))
        writeHandleStorage.grow(to: newCapacity, keeping: 0)
        capacity = newCapacity
    }
}
