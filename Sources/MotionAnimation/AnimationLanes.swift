import MotionPluginKit

/// The running animations of every performer of one animation type in this plugin image, in contiguous
/// arrays (one lane per animated property), so that a tick steps them all in one loop (BENCHMARKS.md). Any
/// animation type works here; springs and decays use the faster `SimulationLanes`.
///
/// Lanes are packed: removing one moves the last lane into its place and tells that lane's owner.
/// There is one set per host, used on that host's engine thread only, like the performers that own it.
package final class AnimationLanes<Animation: PropertyAnimation>: AnimationLaneSet {
    typealias Owner = AnimationPerformer<Animation>

    private(set) var animations: ContiguousArray<Animation> = []
    private(set) var handles: ContiguousArray<UInt32> = []
    /// Unowned: a performer gives its lanes back in `deinit`.
    private(set) var owners: ContiguousArray<Unmanaged<Owner>> = []
    private var removedFlags: ContiguousArray<Bool> = []
    package var ownerCount = 0
    package var delayingOwners = 0
    package var gathered: [Int] = []

    /// This tick's writes, sent to the host in one call.
    private var writeHandles: ContiguousArray<UInt32> = []
    private var writeCounts: ContiguousArray<UInt8> = []
    private var writeValues: ContiguousArray<Double> = []
    private var writeVelocities: ContiguousArray<Double> = []
    private var writeCount = 0
    private var ended: [Int] = []

    private static var width: Int { 4 }

    /// The lanes of `Animation` in this image for one host (see `PerformerContext.hostIdentity`), shared
    /// by all of that host's performers of the type.
    static func shared(host: UInt) -> AnimationLanes {
        sharedLaneSet(AnimationLanes.self, host: host) { AnimationLanes() }
    }

    var count: Int { animations.count }

    package func add(_ animation: Animation, handle: PropertyHandle, owner: AnimationPerformer<Animation>) -> Int {
        animations.append(animation)
        handles.append(handle.rawValue)
        owners.append(Unmanaged.passUnretained(owner))
        removedFlags.append(false)
        return animations.count - 1
    }

    package func replace(_ lane: Int, with animation: Animation) -> Int {
        animations[lane] = animation
        removedFlags[lane] = false
        return lane
    }

    package func animation(_ lane: Int) -> Animation { animations[lane] }

    package func isRemoved(_ lane: Int) -> Bool { removedFlags[lane] }

    package func setRemoved(_ lane: Int, _ isRemoved: Bool) { removedFlags[lane] = isRemoved }

    /// Frees `lane`: the last lane moves into it and its owner learns the new index.
    package func remove(_ lane: Int) {
        let last = animations.count - 1
        if lane != last {
            animations.swapAt(lane, last)
            handles.swapAt(lane, last)
            owners.swapAt(lane, last)
            removedFlags.swapAt(lane, last)
            owners[lane].takeUnretainedValue().laneMoved(from: last, to: lane)
        }
        animations.removeLast()
        handles.removeLast()
        owners.removeLast()
        removedFlags.removeLast()
    }

    // MARK: Frame

    // Called through `AnimationLaneSet`, an existential: without these, the shipped animations' loops run
    // unspecialized, copying each animation through its value witnesses (a quarter of a tween's tick).
    @_specialize(where Animation == TweenAnimation)
    @_specialize(where Animation == KeyframesAnimation)
    package func advanceAll(by dt: Double, writer: PropertyBatchWriter?) {
        reserveWrites(animations.count)
        withLanes { lanes in
            for lane in 0..<lanes.animations.count { lanes.step(lane, by: dt) }
        }
    }

    @_specialize(where Animation == TweenAnimation)
    @_specialize(where Animation == KeyframesAnimation)
    package func advance(_ selected: [Int], by dt: Double) {
        reserveWrites(writeCount + animations.count)
        withLanes { lanes in
            for lane in selected { lanes.step(lane, by: dt) }
        }
    }

    /// Sends this tick's writes in one call, then ends the lanes that finished or were removed (highest
    /// lane first, so that the lanes still to end keep their indices).
    @_specialize(where Animation == TweenAnimation)
    @_specialize(where Animation == KeyframesAnimation)
    package func finishTick(writer: PropertyBatchWriter?) {
        if let writer {
            writeHandles.withUnsafeBufferPointer { handles in
                writeCounts.withUnsafeBufferPointer { counts in
                    writeValues.withUnsafeBufferPointer { values in
                        writeVelocities.withUnsafeBufferPointer { velocities in
                            writer.write(writeCount, handles: handles.baseAddress!, counts: counts.baseAddress!,
                                         values: values.baseAddress!, velocities: velocities.baseAddress!)
                        }
                    }
                }
            }
        }
        writeCount = 0
        guard !ended.isEmpty else { return }
        ended.sort(by: >)
        for lane in ended {
            owners[lane].takeUnretainedValue().laneEnded(lane, reason: removedFlags[lane] ? "interrupted" : "finished")
        }
        ended.removeAll(keepingCapacity: true)
    }

    /// One borrow of every array the tick touches: no copies of animations, no reference counting per lane.
    private func withLanes(_ body: (inout Borrowed) -> Void) {
        animations.withUnsafeMutableBufferPointer { animations in
            handles.withUnsafeBufferPointer { handles in
                removedFlags.withUnsafeBufferPointer { isRemoved in
                    writeHandles.withUnsafeMutableBufferPointer { writeHandles in
                        writeCounts.withUnsafeMutableBufferPointer { writeCounts in
                            writeValues.withUnsafeMutableBufferPointer { writeValues in
                                writeVelocities.withUnsafeMutableBufferPointer { writeVelocities in
                                    var borrowed = Borrowed(
                                        animations: animations, handles: handles, isRemoved: isRemoved, writeHandles: writeHandles,
                                        writeCounts: writeCounts, writeValues: writeValues, writeVelocities: writeVelocities,
                                        writeCount: writeCount, ended: ended)
                                    ended = []
                                    body(&borrowed)
                                    writeCount = borrowed.writeCount
                                    ended = borrowed.ended
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    struct Borrowed {
        let animations: UnsafeMutableBufferPointer<Animation>
        let handles: UnsafeBufferPointer<UInt32>
        let isRemoved: UnsafeBufferPointer<Bool>
        let writeHandles: UnsafeMutableBufferPointer<UInt32>
        let writeCounts: UnsafeMutableBufferPointer<UInt8>
        let writeValues: UnsafeMutableBufferPointer<Double>
        let writeVelocities: UnsafeMutableBufferPointer<Double>
        var writeCount: Int
        var ended: [Int]

        @inline(__always)
        mutating func step(_ lane: Int, by dt: Double) {
            let removed = isRemoved[lane]
            // A removed plan leaves the value where it was, at rest; anything else moves on.
            let before = animations[lane].state
            let state = removed ? before : animations[lane].advanceAndState(by: dt)
            // Nothing changed (a step curve between its jumps or at its end): nothing written, so no frame
            // repeats the value the last one carried; a lane that finished so still ends.
            if !removed, state.value == before.value, state.velocity == before.velocity {
                if animations[lane].isFinished { ended.append(lane) }
                return
            }
            let entry = writeCount
            writeCount += 1
            let base = entry * 4
            writeHandles[entry] = handles[lane]
            writeCounts[entry] = UInt8(truncatingIfNeeded: animations[lane].count)
            let velocity = removed ? SIMD4<Double>() : state.velocity
            for component in 0..<4 {
                writeValues[base + component] = state.value[component]
                writeVelocities[base + component] = velocity[component]
            }
            if removed || animations[lane].isFinished { ended.append(lane) }
        }
    }

    private func reserveWrites(_ entries: Int) {
        guard writeHandles.count < entries else { return }
        let more = entries - writeHandles.count
        writeHandles.append(contentsOf: repeatElement(0, count: more))
        writeCounts.append(contentsOf: repeatElement(0, count: more))
        writeValues.append(contentsOf: repeatElement(0, count: more * Self.width))
        writeVelocities.append(contentsOf: repeatElement(0, count: more * Self.width))
    }
}
