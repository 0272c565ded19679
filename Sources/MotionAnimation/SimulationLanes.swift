import MotionKernels
import MotionPluginKit

/// The running springs or decays of one animation type for one host, in columns (structure of arrays)
/// that one vectorised C loop steps, `motion_simulation_advance` (BENCHMARKS.md; BENCHMARKS.md).
///
/// Lanes are grouped in blocks by component count and kind (spring or decay), so that each block's loop
/// has a fixed width. A lane's id is `index << 4 | block`; removing one moves its block's last lane into
/// its place and tells that lane's owner. Used on the host's engine thread only.
package final class SimulationLanes<Animation: SimulatedAnimation>: AnimationLaneSet {
    typealias Owner = AnimationPerformer<Animation>

    package var ownerCount = 0
    package var delayingOwners = 0
    package var gathered: [Int] = []
    /// Block `kind << 2 | (width − 1)`; kind 0 rests at its target (spring), 1 where it stops (decay),
    /// 2 at its target or the first time it reaches it (a spring with `overshootClamping`).
    private static var blockCount: Int { 12 }
    private let blocks: [SimulationBlock] = (0..<blockCount).map {
        SimulationBlock(width: $0 & 3 + 1, restsAtTarget: $0 >> 2 != 1, clampsAtTarget: $0 >> 2 == 2)
    }
    /// Lanes that end at this tick's `finishTick`.
    private var ended: [(lane: Int, interrupted: Bool)] = []
    /// Scratch for `advance(_:by:)`: the selected lanes of each block.
    private var selection: [[UInt32]] = Array(repeating: [], count: blockCount)
    /// The last `advanceAll` kept its values (no one read them, "motion.unread/1"): `writeKept` writes
    /// them when the host asks, and a lane that goes is written first. `keptWriter` is that advance's.
    private var kept = false
    private var keptWriter: PropertyBatchWriter?
    /// The lane `finishTick` is ending: the tick wrote its last value (at rest, or held where it was).
    private var endingLane: Int?
    /// Per property handle: its lane (−1: none here; −2: several) and how many lanes write it (a handover
    /// can give a property two for a moment). A keeping tick finds the lanes of the few properties a
    /// filtered subscriber reads from the host's list, without a look at every lane (when a handle read
    /// has several lanes, it looks at every lane instead).
    private var laneOfHandle: [Int32] = []
    private var lanesOfHandle: [UInt16] = []
    private var laneCount: Int { blocks.reduce(0) { $0 + $1.count } }
    /// Scratch for `advanceAll`: per block, the lanes of the properties read (ascending).
    private var readLanes: [[UInt32]] = Array(repeating: [], count: blockCount)

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

    package func add(_ animation: Animation, handle: PropertyHandle, owner: AnimationPerformer<Animation>) -> Int {
        let block = Self.block(for: animation)
        let index = blocks[block].append(animation.simulation, handle: handle.rawValue,
                                         owner: Unmanaged.passUnretained(owner).toOpaque())
        note(index << 4 | block, handle: handle.rawValue)
        return index << 4 | block
    }

    private func note(_ lane: Int, handle: UInt32) {
        let slot = Int(handle)
        if slot >= laneOfHandle.count {
            let grown = max(slot + 1, laneOfHandle.count * 2)
            laneOfHandle.append(contentsOf: repeatElement(-1, count: grown - laneOfHandle.count))
            lanesOfHandle.append(contentsOf: repeatElement(0, count: grown - lanesOfHandle.count))
        }
        laneOfHandle[slot] = Int32(lane)
        lanesOfHandle[slot] &+= 1
    }

    /// Called while `lane` is still in its block.
    private func forget(_ lane: Int, handle: UInt32) {
        let slot = Int(handle)
        lanesOfHandle[slot] &-= 1
        if lanesOfHandle[slot] == 0 {
            laneOfHandle[slot] = -1
        } else if laneOfHandle[slot] == Int32(lane) || laneOfHandle[slot] == -2 {
            // One of several lanes of the property went (a handover, rare): the one left is looked for.
            laneOfHandle[slot] = lanesOfHandle[slot] == 1 ? Int32(survivor(of: handle, besides: lane)) : -2
        }
    }

    /// The lane of `handle` other than `lane` (−2 if none is found).
    private func survivor(of handle: UInt32, besides lane: Int) -> Int {
        for (number, block) in blocks.enumerated() {
            for index in 0..<block.count where block.handles[index] == handle && index << 4 | number != lane {
                return index << 4 | number
            }
        }
        return -2
    }

    package func replace(_ lane: Int, with animation: Animation) -> Int {
        let (block, index) = Self.split(lane)
        if Self.block(for: animation) == block {
            blocks[block].set(index, animation.simulation)
            blocks[block].setRemoved(index, false)
            return lane
        }
        let handle = blocks[block].handles[index], owner = blocks[block].owners[index]
        remove(lane)
        let newBlock = Self.block(for: animation)
        let newLane = blocks[newBlock].append(animation.simulation, handle: handle, owner: owner) << 4 | newBlock
        note(newLane, handle: handle)
        return newLane
    }

    package func animation(_ lane: Int) -> Animation {
        let (block, index) = Self.split(lane)
        return Animation(count: blocks[block].width, simulation: blocks[block].simulation(index))
    }

    package func remove(_ lane: Int) {
        let (block, index) = Self.split(lane)
        if kept, lane != endingLane { blocks[block].writeLane(index, keptWriter) }
        forget(lane, handle: blocks[block].handles[index])
        if let moved = blocks[block].remove(index) {
            let handle = Int(blocks[block].handles[index])
            if laneOfHandle[handle] == Int32(moved.from << 4 | block) { laneOfHandle[handle] = Int32(index << 4 | block) }
            Unmanaged<Owner>.fromOpaque(moved.owner).takeUnretainedValue()
                .laneMoved(from: moved.from << 4 | block, to: index << 4 | block)
        }
        // An empty set keeps nothing, and holds on to no writer (whose host may go before the set does).
        if kept, blocks.allSatisfy({ $0.count == 0 }) {
            kept = false
            keptWriter = nil
        }
    }

    package func isRemoved(_ lane: Int) -> Bool {
        let (block, index) = Self.split(lane)
        return blocks[block].removed[index]
    }

    package func setRemoved(_ lane: Int, _ isRemoved: Bool) {
        let (block, index) = Self.split(lane)
        blocks[block].setRemoved(index, isRemoved)
    }

    // MARK: Frame

    package func advanceAll(by dt: Double, writer: PropertyBatchWriter?) {
        guard dt > 0 else { return }
        // Every lane is stepped: either all are written now, or what they hold is kept.
        let keep = writer?.writesUnread == true
        var read = keep ? writer?.readProperties : nil
        // A short list of the properties read (a few filtered targets): their lanes, not a look at each.
        if read != nil, let list = writer?.readPropertyList, list.count * 8 < laneCount, findLanes(of: list) { read = nil }
        for (number, block) in blocks.enumerated() where block.count > 0 {
            readLanes[number].withUnsafeBufferPointer { readLanes in
                block.advanceAll(by: dt, writer: writer, keep: keep, read: read, readLanes: readLanes) { index, interrupted in
                    ended.append((index << 4 | number, interrupted))
                }
            }
        }
        for number in readLanes.indices where !readLanes[number].isEmpty { readLanes[number].removeAll(keepingCapacity: true) }
        kept = keep
        if keep { keptWriter = writer }
    }

    /// The lanes of `handles` into `readLanes`, block by block, ascending; false (and none) when a handle
    /// read has more than one lane, or one not known.
    private func findLanes(of handles: UnsafeBufferPointer<UInt32>) -> Bool {
        for handle in handles where Int(handle) < laneOfHandle.count && lanesOfHandle[Int(handle)] > 0 {
            let lane = Int(laneOfHandle[Int(handle)])
            guard lanesOfHandle[Int(handle)] == 1, lane >= 0 else {
                for number in readLanes.indices { readLanes[number].removeAll(keepingCapacity: true) }
                return false
            }
            readLanes[lane & 15].append(UInt32(lane >> 4))
        }
        for number in readLanes.indices where readLanes[number].count > 1 { readLanes[number].sort() }
        return true
    }

    package func writeKept() {
        guard kept else { return }
        kept = false
        for block in blocks where block.count > 0 { block.writeCurrent(keptWriter) }
    }

    /// The lanes of `handles` as the last advance left them (the others stay kept); every lane when a
    /// handle has several.
    package func writeKept(handles: UnsafeBufferPointer<UInt32>) {
        guard kept else { return }
        for handle in handles where Int(handle) < laneOfHandle.count && lanesOfHandle[Int(handle)] > 0 {
            let lane = Int(laneOfHandle[Int(handle)])
            guard lanesOfHandle[Int(handle)] == 1, lane >= 0 else { return writeKept() }
            blocks[lane & 15].writeLane(lane >> 4, keptWriter)
        }
    }

    package func advance(_ selected: [Int], by dt: Double) {
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

    package func finishTick(writer: PropertyBatchWriter?) {
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
