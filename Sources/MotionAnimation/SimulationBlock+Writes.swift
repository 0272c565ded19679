import MotionKernels
import MotionPluginKit

/// What a `SimulationBlock` writes to the host outside the tick's own loop: what a keeping advance
/// ("motion.kept/1") left unwritten, when the host asks for it or a lane goes, and the lanes a keeping
/// advance still writes.
extension SimulationBlock {
    /// Writes the value of every lane still `unwritten` as the last advance left it (the kernel at dt 0:
    /// nothing steps), for the host that asks for what `advanceAll(keep: true)` kept: not the lanes that
    /// came to rest or were read then (written then), nor those written since (`writeLane`).
    func writeCurrent(_ writer: PropertyBatchWriter?) {
        flushWrites(writer)
        guard count > 0, mayHaveUnwritten, let writer else { return }
        for start in stride(from: 0, to: count, by: Self.chunk) {
            let n = min(Self.chunk, count - start)
            shownWithoutStepping(from: start, count: n)
            let entries = compact(from: start, count: n) { lane in unwritten[start + lane] != 0 }
            writer.write(entries, handles: writeHandles, counts: writeCounts, values: writeValues, velocities: writeVelocities)
        }
        unwritten.update(repeating: 0, count: count)
        mayHaveUnwritten = false
    }

    /// Writes lane `index` as the last advance left it (before it goes, or when its property is read),
    /// if it is still `unwritten`.
    func writeLane(_ index: Int, _ writer: PropertyBatchWriter?) {
        flushWrites(writer)
        guard let writer, index < count, unwritten[index] != 0 else { return }
        unwritten[index] = 0
        shownWithoutStepping(from: index, count: 1)
        writer.write(1, handles: handles + index, counts: writeCounts, values: writeValues, velocities: writeVelocities)
    }

    /// Writes those of lanes `start..<start + n` that came to rest at the last advance, whose property is
    /// in `read` or that are `listed`, as that advance left them (the kernel at dt 0, given its rest flags).
    func writeSelected(from start: Int, count n: Int, rested: Int, read: UnsafeBufferPointer<UInt8>?,
                       listed: UnsafeBufferPointer<UInt32>, _ writer: PropertyBatchWriter?) {
        let selected = read != nil
            ? motion_simulation_select(endedFlags + start, handles + start, n, read?.baseAddress, read?.count ?? 0, selectedLanes)
            : motion_simulation_select_listed(endedFlags + start, start, n, rested, listed.baseAddress, listed.count, selectedLanes)
        guard selected > 0, let writer else { return }
        var lanes = kernelLanes(from: start, count: n)
        _ = motion_simulation_advance_some(&lanes, selectedLanes, selected, 0, writeValues, writeVelocities)
        for entry in 0..<selected {
            writeHandles[entry] = handles[start + Int(selectedLanes[entry])]
            unwritten[start + Int(selectedLanes[entry])] = 0
        }
        writer.write(selected, handles: writeHandles, counts: writeCounts, values: writeValues, velocities: writeVelocities)
    }

    /// Lanes `start..<start + n` as the last advance showed them, into the write buffers: the kernel at dt
    /// 0 (nothing steps), its rest flags in `scratchFlags` so that `endedFlags` keeps the advance's.
    private func shownWithoutStepping(from start: Int, count n: Int) {
        var lanes = kernelLanes(from: start, count: n, ended: scratchFlags)
        _ = motion_simulation_advance(&lanes, 0, writeValues, writeVelocities)
    }

    /// Moves the write entries of lanes `start + j` for which `keeps(j)` to the front (handles in `writeHandles`).
    private func compact(from start: Int, count n: Int, keeps: (Int) -> Bool) -> Int {
        var kept = 0
        for lane in 0..<n where keeps(lane) {
            if kept != lane {
                for component in 0..<4 {
                    writeValues[kept * 4 + component] = writeValues[lane * 4 + component]
                    writeVelocities[kept * 4 + component] = writeVelocities[lane * 4 + component]
                }
            }
            writeHandles[kept] = handles[start + lane]
            kept += 1
        }
        return kept
    }

    /// Sends the writes of this tick's `advance(_:by:ended:)` calls to the host in one call.
    func flushWrites(_ writer: PropertyBatchWriter?) {
        guard pendingWrites > 0 else { return }
        writer?.write(pendingWrites, handles: writeHandles, counts: writeCounts, values: writeValues, velocities: writeVelocities)
        pendingWrites = 0
    }

    func hold(entry: Int, at value: SIMD4<Double>) {
        for component in 0..<width {
            writeValues[entry * 4 + component] = value[component]
            writeVelocities[entry * 4 + component] = 0
        }
    }
}
