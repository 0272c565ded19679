import MotionKernels
import MotionPluginKit

/// The running springs or decays of one animation type for one host, in columns (structure of arrays)
/// that one vectorised C loop steps, `motion_simulation_advance` (SPEC §8; BENCHMARKS.md).
///
/// Lanes are grouped in blocks by component count and kind (spring or decay), so that each block's loop
/// has a fixed width. A lane's id is `index << 4 | block`; removing one moves its block's last lane into
/// its place and tells that lane's owner. Used on the host's engine thread only.
public final class SimulationLanes<Animation: SimulatedAnimation>: AnimationLaneSet {
    typealias Owner = AnimationPerformer<Animation>

    public var ownerCount = 0
    public var delayingOwners = 0
    /// Block `kind << 2 | (width − 1)`; kind 0 rests at its target (spring), 1 where it stops (decay),
    /// 2 at its target or the first time it reaches it (a spring with `overshootClamping`).
    private let blocks: [SimulationBlock] = (0..<12).map {
        SimulationBlock(width: $0 & 3 + 1, restsAtTarget: $0 >> 2 != 1, clampsAtTarget: $0 >> 2 == 2)
    }
    /// Lanes that end at this tick's `finishTick`.
    private var ended: [(lane: Int, interrupted: Bool)] = []
    /// Scratch for `advance(_:by:)`: the selected lanes of each block.
    private var selection: [[UInt32]] = Array(repeating: [], count: 12)
    /// The last `advanceAll` kept its values (no one read them, "motion.unread/1"): `writeKept` writes
    /// them when the host asks, and a lane that goes is written first. `keptWriter` is that advance's.
    private var kept = false
    private var keptWriter: PropertyBatchWriter?
    /// The lane `finishTick` is ending: the tick wrote its last value (at rest, or held where it was).
    private var endingLane: Int?

    static func shared(host: UInt) -> SimulationLanes {
        sharedLaneSet(SimulationLanes.self, host: host) { SimulationLanes() }
    }

    private static func block(for animation: Animation) -> Int {
        let kind: Int
        switch animation.simulation.force {
        case .spring: kind = animation.simulation.clampsAtTarget ? 2 : 0
        case .decay: kind = 1
        }
        return kind << 2 | (min(max(animation.count, 1), 4) - 1)
    }

    private static func split(_ lane: Int) -> (block: Int, index: Int) { (lane & 15, lane >> 4) }

    public func add(_ animation: Animation, handle: PropertyHandle, owner: AnimationPerformer<Animation>) -> Int {
        let block = Self.block(for: animation)
        let index = blocks[block].append(animation.simulation, handle: handle.rawValue,
                                         owner: Unmanaged.passUnretained(owner).toOpaque())
        return index << 4 | block
    }

    public func replace(_ lane: Int, with animation: Animation) -> Int {
        let (block, index) = Self.split(lane)
        if Self.block(for: animation) == block {
            blocks[block].set(index, animation.simulation)
            blocks[block].setRemoved(index, false)
            return lane
        }
        let handle = blocks[block].handles[index], owner = blocks[block].owners[index]
        remove(lane)
        let newBlock = Self.block(for: animation)
        return blocks[newBlock].append(animation.simulation, handle: handle, owner: owner) << 4 | newBlock
    }

    public func animation(_ lane: Int) -> Animation {
        let (block, index) = Self.split(lane)
        return Animation(count: blocks[block].width, simulation: blocks[block].simulation(index))
    }

    public func remove(_ lane: Int) {
        let (block, index) = Self.split(lane)
        if kept, lane != endingLane { blocks[block].writeBeforeRemoval(index, keptWriter) }
        if let moved = blocks[block].remove(index) {
            Unmanaged<Owner>.fromOpaque(moved.owner).takeUnretainedValue()
                .laneMoved(from: moved.from << 4 | block, to: index << 4 | block)
        }
        // An empty set keeps nothing, and holds on to no writer (whose host may go before the set does).
        if kept, blocks.allSatisfy({ $0.count == 0 }) {
            kept = false
            keptWriter = nil
        }
    }

    public func isRemoved(_ lane: Int) -> Bool {
        let (block, index) = Self.split(lane)
        return blocks[block].removed[index]
    }

    public func setRemoved(_ lane: Int, _ isRemoved: Bool) {
        let (block, index) = Self.split(lane)
        blocks[block].setRemoved(index, isRemoved)
    }

    // MARK: Frame

    public func advanceAll(by dt: Double, writer: PropertyBatchWriter?) {
        guard dt > 0 else { return }
        // Every lane is stepped: either all are written now, or what they hold is kept.
        let keep = writer?.writesUnread == true
        let read = keep ? writer?.readProperties : nil
        for (number, block) in blocks.enumerated() where block.count > 0 {
            block.advanceAll(by: dt, writer: writer, keep: keep, read: read) { index, interrupted in
                ended.append((index << 4 | number, interrupted))
            }
        }
        kept = keep
        if keep { keptWriter = writer }
    }

    public func writeKept() {
        guard kept else { return }
        kept = false
        for block in blocks where block.count > 0 { block.writeCurrent(keptWriter) }
    }

    public func advance(_ selected: [Int], by dt: Double) {
        guard dt > 0 else { return }
        for lane in selected {
            let (block, index) = Self.split(lane)
            selection[block].append(UInt32(index))
        }
        for (number, block) in blocks.enumerated() where !selection[number].isEmpty {
            block.advance(selection[number], by: dt) { index, interrupted in ended.append((index << 4 | number, interrupted)) }
            selection[number].removeAll(keepingCapacity: true)
        }
    }

    public func finishTick(writer: PropertyBatchWriter?) {
        for block in blocks { block.flushWrites(writer) }
        guard !ended.isEmpty else { return }
        // Highest index first: the lanes still to end keep their indices while earlier ones are removed.
        ended.sort { $0.lane > $1.lane }
        for (lane, interrupted) in ended {
            let (block, index) = Self.split(lane)
            endingLane = lane
            Unmanaged<Owner>.fromOpaque(blocks[block].owners[index]).takeUnretainedValue()
                .laneEnded(lane, reason: interrupted ? "interrupted" : "finished")
            endingLane = nil
        }
        ended.removeAll(keepingCapacity: true)
    }
}
