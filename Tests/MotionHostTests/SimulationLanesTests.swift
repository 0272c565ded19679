@testable import MotionAnimation
import MotionPluginAPI
@testable import MotionPluginKit
import Synchronization
import Testing

/// What the capture host below was sent, by property handle.
private let written = Mutex<[UInt32: (value: [Double], velocity: [Double])]>([:])

/// A host that only takes batch writes, and records them.
nonisolated(unsafe) private let captureWriter: PropertyBatchWriter = {
    let host = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<motion_host>.size, alignment: 16)
    host.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<motion_host>.size)
    let table = UnsafeMutablePointer<motion_properties>.allocate(capacity: 1)
    table.initialize(to: motion_properties(
        struct_size: UInt32(MemoryLayout<motion_properties>.size), reserved: 0,
        write_properties: { _, handles, counts, values, velocities, n in
            guard let handles, let counts, let values, let velocities else { return }
            written.withLock { table in
                for entry in 0..<n {
                    let count = Int(counts[entry]), base = entry * 4
                    table[handles[entry]] = ((0..<count).map { values[base + $0] }, (0..<count).map { velocities[base + $0] })
                }
            }
        }))
    return PropertyBatchWriter(host: UnsafePointer(host.assumingMemoryBound(to: motion_host.self)), table: UnsafePointer(table))
}()

/// The columns and the vectorised C loop (`SimulationLanes`) against `Simulation`, the reference that
/// plan.sample, the timeline and hot swap use: the same published values, velocities and rest ticks, for
/// springs and decays of 1 to 4 components, at frame rates that take zero, one, two and many steps per tick.
@Suite("Simulation lanes", .serialized)
struct SimulationLanesTests {
    /// Six states; with `oneForce`, all with the first one's tension, damping (or drag) and threshold.
    static func simulations(width: Int, spring: Bool, oneForce: Bool = false) -> [Simulation] {
        var result: [Simulation] = []
        for variant in 0..<6 {
            let physics = oneForce ? 0 : variant
            var value = SIMD4<Double>(), velocity = SIMD4<Double>(), target = SIMD4<Double>()
            for component in 0..<width {
                value[component] = Double(variant * 37 % 11) - 3 + Double(component) * 1.5
                velocity[component] = variant.isMultiple(of: 2) ? 0 : 400 - Double(component * 170 + variant * 13)
                target[component] = 100 + Double(component * 40 - variant * 9)
            }
            let force: Simulation.Force = spring
                ? .spring(target: target, tension: [120, 300, 20, 1000, 60, 5][physics], damping: [12, 5, 0.5, 40, 1, 2][physics])
                : .decay(drag: [3, 1, 8, 1.5, 20, 2][physics])
            var simulation = Simulation(value: value, velocity: velocity, force: force, threshold: [0.1, 0.01, 1, 1e-3, 0.5, 0.05][physics])
            // Some start mid-flight, between two internal steps.
            if variant >= 3 { simulation.advance(by: 0.0123 * Double(variant), components: width) }
            result.append(simulation)
        }
        return result
    }

    static let ticks: [Double] = Array(repeating: 1 / 120, count: 40) + Array(repeating: 1 / 240, count: 15)
        + Array(repeating: 1 / 60, count: 10) + [0.035, 0.05, 0.008, 0.008, 0.0001, 0.3] + Array(repeating: 1 / 120, count: 3000)

    /// With `oneForce`, the kernel reads the block's one force once (`shared_force`), not per lane.
    @Test(arguments: [true, false], 1...4)
    func theColumnsMoveAsTheReferenceDoes(spring: Bool, width: Int) {
        checkAgainstReference(spring: spring, width: width, oneForce: false)
        checkAgainstReference(spring: spring, width: width, oneForce: true)
    }

    func checkAgainstReference(spring: Bool, width: Int, oneForce: Bool) {
        let block = SimulationBlock(width: width, restsAtTarget: spring)
        let base = UInt32(spring ? 0 : 1000) + UInt32(width * 100)
        var references = Self.simulations(width: width, spring: spring, oneForce: oneForce)
        /// `lanes[index]`: the reference in that lane (lanes move when one is removed).
        var lanes: [Int] = []
        for (number, simulation) in references.enumerated() where !simulation.isSettled {
            let index = block.append(simulation, handle: base + UInt32(number), owner: UnsafeMutableRawPointer(bitPattern: 8)!)
            #expect(index == lanes.count)
            lanes.append(number)
            let shown = block.simulation(index).published
            #expect(Self.close(shown.value, simulation.published.value, width) && Self.close(shown.velocity, simulation.published.velocity, width),
                    "the lane form of \(number) is the same state")
        }
        let appended = lanes.count
        #expect(block.sharesOneForce == (oneForce || appended == 1))
        var rested = 0
        for (tick, dt) in Self.ticks.enumerated() where !lanes.isEmpty {
            var ended: [Int] = []
            block.advanceAll(by: dt, writer: captureWriter) { index, interrupted in
                #expect(!interrupted)
                ended.append(index)
            }
            let sent = written.withLock { $0 }
            for (index, number) in lanes.enumerated() {
                references[number].advance(by: dt, components: width)
                let expected = references[number].published
                guard let got = sent[base + UInt32(number)] else {
                    Issue.record("no write for simulation \(number) at tick \(tick)")
                    continue
                }
                #expect(got.value.count == width && got.velocity.count == width)
                #expect(Self.close(SIMD4(got.value + Array(repeating: 0, count: 4 - width)), expected.value, width),
                        "value of \(number) at tick \(tick) (dt \(dt)): \(got.value) vs \(expected.value)")
                #expect(Self.close(SIMD4(got.velocity + Array(repeating: 0, count: 4 - width)), expected.velocity, width),
                        "velocity of \(number) at tick \(tick) (dt \(dt)): \(got.velocity) vs \(expected.velocity)")
                #expect(ended.contains(index) == references[number].isSettled, "simulation \(number) rests at tick \(tick)")
            }
            for index in ended.sorted(by: >) {
                let moved = block.remove(index)
                #expect(moved?.from == (index == lanes.count - 1 ? nil : lanes.count - 1))
                lanes[index] = lanes[lanes.count - 1]
                lanes.removeLast()
                rested += 1
            }
        }
        #expect(lanes.isEmpty, "every simulation came to rest")
        #expect(rested == appended)
    }

    /// Lanes that share a force until one is given another, then share it again once that one is gone;
    /// the block's lanes move as their references through every change.
    @Test func aBlockSharesItsForceOnlyWhileEveryLaneHasIt() {
        let block = SimulationBlock(width: 2, restsAtTarget: true)
        var references = Self.simulations(width: 2, spring: true, oneForce: true)
        for (number, simulation) in references.enumerated() {
            _ = block.append(simulation, handle: 7000 + UInt32(number), owner: UnsafeMutableRawPointer(bitPattern: 8)!)
        }
        #expect(block.sharesOneForce)
        references[2] = Self.simulations(width: 2, spring: true)[3]
        block.set(2, references[2])
        #expect(!block.sharesOneForce)
        for _ in 0..<3 {
            block.advanceAll(by: 1 / 120, writer: captureWriter) { _, _ in }
            let sent = written.withLock { $0 }
            for number in references.indices {
                references[number].advance(by: 1 / 120, components: 2)
                #expect(Self.close(SIMD4(sent[7000 + UInt32(number)]!.value + [0, 0]), references[number].published.value, 2),
                        "lane \(number)")
            }
        }
        // Lane 5 moves into 2's place.
        #expect(block.remove(2)?.from == 5)
        #expect(block.sharesOneForce)
        block.advanceAll(by: 1 / 120, writer: captureWriter) { _, _ in }
        let sent = written.withLock { $0 }
        for number in [0, 1, 3, 4, 5] {
            references[number].advance(by: 1 / 120, components: 2)
            #expect(Self.close(SIMD4(sent[7000 + UInt32(number)]!.value + [0, 0]), references[number].published.value, 2),
                    "lane \(number) after the other force left")
        }
    }

    @Test func aLaneCanBeSteppedAloneAndHeldWhereItWas() {
        let block = SimulationBlock(width: 2, restsAtTarget: true)
        var references = Self.simulations(width: 2, spring: true)
        for (number, simulation) in references.enumerated() {
            _ = block.append(simulation, handle: 5000 + UInt32(number), owner: UnsafeMutableRawPointer(bitPattern: 8)!)
        }
        let before = block.simulation(4).published.value
        block.setRemoved(4, true)
        var ended: [(Int, Bool)] = []
        block.advance([1, 4], by: 1 / 120) { ended.append(($0, $1)) }
        block.flushWrites(captureWriter)
        references[1].advance(by: 1 / 120, components: 2)
        let sent = written.withLock { $0 }
        #expect(Self.close(SIMD4(sent[5001]!.value + [0, 0]), references[1].published.value, 2))
        // The removed lane is shown where it was, at rest, and ends interrupted; the others did not move.
        #expect(sent[5004]!.value == [before[0], before[1]] && sent[5004]!.velocity == [0, 0])
        #expect(ended.count == 1 && ended[0] == (4, true))
        #expect(sent[5000] == nil && sent[5002] == nil)
        #expect(Self.close(block.simulation(0).published.value, references[0].published.value, 2))
    }

    /// A keeping advance (no one reads, "motion.unread/1") steps the kernel without writing any value,
    /// then writes the lanes that came to rest and those whose property is read (`read`), at dt 0: the
    /// same values, bit for bit, as a writing advance of the same lanes; `writeCurrent` gives the rest.
    @Test(arguments: [true, false], 1...4)
    func aKeepingBlockWritesWhatIsReadAndWhatRestsAsAWritingOneDoes(spring: Bool, width: Int) {
        // The lanes read given as a flag per handle, then as a list of lanes; springs with
        // overshootClamping too (a crossing inside a tick's steps is not seen again at dt 0).
        for clamps in spring ? [false, true] : [false] {
            checkKeeping(spring: spring, width: width, listed: false, clamps: clamps)
            checkKeeping(spring: spring, width: width, listed: true, clamps: clamps)
        }
    }

    func checkKeeping(spring: Bool, width: Int, listed: Bool, clamps: Bool) {
        let writing = SimulationBlock(width: width, restsAtTarget: spring, clampsAtTarget: clamps)
        let keeping = SimulationBlock(width: width, restsAtTarget: spring, clampsAtTarget: clamps)
        let simulations = Self.simulations(width: width, spring: spring) + Self.simulations(width: width, spring: spring, oneForce: true)
        // Handle h is lane h of both (nothing is removed below); even handles are read.
        var read = [UInt8](repeating: 0, count: simulations.count)
        for (number, simulation) in simulations.enumerated() where !simulation.isSettled {
            _ = writing.append(simulation, handle: UInt32(number), owner: UnsafeMutableRawPointer(bitPattern: 8)!)
            _ = keeping.append(simulation, handle: UInt32(number), owner: UnsafeMutableRawPointer(bitPattern: 8)!)
        }
        for index in stride(from: 0, to: read.count, by: 2) { read[index] = 1 }
        // Lanes at rest stay in both blocks (nothing removes them): they rest again at every tick.
        var clampedRests = 0
        defer { #expect(!clamps || clampedRests > 0, "clamped springs came to rest") }
        for (tick, dt) in Self.ticks.prefix(200).enumerated() {
            written.withLock { $0.removeAll() }
            var restedNow = Set<UInt32>()
            writing.advanceAll(by: dt, writer: captureWriter) { index, _ in restedNow.insert(writing.handles[index]) }
            let expected = written.withLock { table in defer { table.removeAll() }; return table }
            var keptRested = Set<UInt32>()
            let readLanes = (0..<keeping.count).filter { read[Int(keeping.handles[$0])] != 0 }.map(UInt32.init)
            read.withUnsafeBufferPointer { read in
                readLanes.withUnsafeBufferPointer { readLanes in
                    keeping.advanceAll(by: dt, writer: captureWriter, keep: true, read: listed ? nil : read,
                                       readLanes: listed ? readLanes : .init(start: nil, count: 0)) { index, _ in
                        keptRested.insert(keeping.handles[index])
                    }
                }
            }
            let sent = written.withLock { $0 }
            #expect(keptRested == restedNow, "the same lanes rest at tick \(tick)")
            if clamps { clampedRests += restedNow.count }
            let live = Set(expected.keys)
            let wanted = live.filter { read[Int($0)] != 0 || restedNow.contains($0) }
            #expect(Set(sent.keys) == wanted, "tick \(tick): written \(sent.keys.sorted()), wanted \(wanted.sorted())")
            for (handle, got) in sent {
                #expect(got.value == expected[handle]?.value && got.velocity == expected[handle]?.velocity,
                        "handle \(handle) at tick \(tick): \(got.value) \(got.velocity) vs \(expected[handle].map { "\($0.value) \($0.velocity)" } ?? "none")")
            }
            if tick % 7 == 3 {
                // What was kept, asked for: one lane for a read of its property (`writeLane`), then every
                // other lane neither at rest nor read, as the writing block wrote them, each once.
                let unread = live.subtracting(wanted)
                written.withLock { $0.removeAll() }
                var alone = Set<UInt32>()
                if let first = unread.min(), let lane = (0..<keeping.count).first(where: { keeping.handles[$0] == first }) {
                    keeping.writeLane(lane, captureWriter)
                    alone.insert(first)
                    let one = written.withLock { table in defer { table.removeAll() }; return table }
                    #expect(Set(one.keys) == alone && one[first]?.value == expected[first]?.value, "one lane at tick \(tick)")
                }
                keeping.writeCurrent(captureWriter)
                let current = written.withLock { $0 }
                #expect(Set(current.keys) == unread.subtracting(alone), "the rest, not the lane written already, at tick \(tick)")
                for handle in unread.subtracting(alone) {
                    #expect(current[handle]?.value == expected[handle]?.value && current[handle]?.velocity == expected[handle]?.velocity,
                            "kept handle \(handle) at tick \(tick)")
                }
                written.withLock { $0.removeAll() }
                keeping.writeCurrent(captureWriter)
                #expect(written.withLock { $0 }.isEmpty, "asked again: nothing more")
            }
        }
    }

    static func close(_ a: SIMD4<Double>, _ b: SIMD4<Double>, _ width: Int) -> Bool {
        (0..<width).allSatisfy { abs(a[$0] - b[$0]) <= 1e-9 * max(1, abs(b[$0])) }
    }
}
