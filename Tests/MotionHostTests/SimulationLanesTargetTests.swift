import Foundation
import MotionKernels
import MotionTestSupport
import Testing

/// The spring and decay loop (`motion_simulation_advance`, `motion_simulation_advance_some`) as each target
/// compiles it alone and optimised (AVX-512, AVX2, SSE4.2, SSE2: the ones this CPU runs), against this
/// process's own loop, which `SimulationLanesTests` holds to the reference `Simulation`. The suite builds
/// for debugging, so without this the optimised, vectorised loops of the targets a machine does not pick
/// would run nowhere before they ship.
@Suite("Simulation lanes per target", .serialized)
struct SimulationLanesTargetTests {
    typealias Advance = @convention(c) (UnsafePointer<motion_simulation_lanes>?, Double,
                                        UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) -> Int
    typealias AdvanceSome = @convention(c) (UnsafePointer<motion_simulation_lanes>?, UnsafePointer<UInt32>?, Int, Double,
                                            UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) -> Int

    #if arch(x86_64)
    /// The targets this CPU runs (one case each; they compile in parallel).
    static let runnableTargets = (try? KernelTargets.runnable()) ?? []

    /// A target this CPU cannot run (AVX-512 on an AVX2-only EPYC) is skipped, visibly, with its reason.
    @Test(.enabled(if: runnableTargets.contains("x86-64-v4"), "this CPU has no AVX-512: the x86-64-v4 loop was not compared"))
    func theAVX512TargetsLoopMovesAsThisProcesssDoes() async throws {
        try await eachTargetsLoopMovesAsThisProcesssDoes(march: "x86-64-v4")
    }

    /// Every x86-64 machine runs these.
    @Test(arguments: ["x86-64", "x86-64-v2", "x86-64-v3"])
    func eachTargetsLoopMovesAsThisProcesssDoes(march: String) async throws {
        try #require(try KernelTargets.runnable().contains(march), "this CPU does not run \(march)")
        let directory = try CCompiler.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try await CCompiler.sharedLibrary(
            ["Sources/MotionKernels/simulation_lanes.c"], name: "liblanes-\(march).so", in: directory,
            defines: ["MOTION_KERNELS_ONE_TARGET"], includes: ["Sources/MotionKernels/include"],
            options: ["-march=\(march)"], compiler: KernelTargets.compiler, background: true)
        let handle = try #require(dlopen(library, RTLD_NOW | RTLD_LOCAL))
        let advance = unsafeBitCast(try #require(dlsym(handle, "motion_simulation_advance")), to: Advance.self)
        let advanceSome = unsafeBitCast(try #require(dlsym(handle, "motion_simulation_advance_some")), to: AdvanceSome.self)
        for width in 1...4 {
            for kind: UInt32 in [0, 1, 2] {
                for shared in [false, true] {
                    Self.compare(target: march, width: width, kind: kind, shared: shared, advance: advance, advanceSome: advanceSome)
                }
            }
        }
    }

    /// Every machine of this project has AVX2: its loop is the one most of them run.
    @Test func thisCPUHasTheAVX2Loop() throws {
        #expect(try KernelTargets.runnable().contains("x86-64-v3"), "this CPU has no AVX2: its loop was not compared")
    }
    #endif

    /// 53 lanes (vector bodies and a tail on every width) of one kind, moved by both loops through ticks
    /// of zero, short, long and many lengths, every fifth tick only some lanes: the same values,
    /// velocities, rest flags and columns, to 1e-9 relative.
    static func compare(target: String, width: Int, kind: UInt32, shared: Bool, advance: Advance, advanceSome: AdvanceSome) {
        let mine = Columns(width: width, kind: kind, shared: shared), theirs = Columns(width: width, kind: kind, shared: shared)
        defer { mine.deallocate(); theirs.deallocate() }
        let ticks: [Double] = [1 / 120, 1 / 120, 0, 1 / 240, 1 / 60, 0.035, 0.3, 0.0001] + Array(repeating: 1 / 120, count: 300)
        let some: [UInt32] = stride(from: 0, to: UInt32(Columns.count), by: 3).map { $0 }
        let what = "\(target), width \(width), kind \(kind)\(shared ? ", one force" : "")"
        for (tick, dt) in ticks.enumerated() {
            var lanes = (mine.lanes, theirs.lanes)
            let rested: (Int, Int)
            if tick % 5 == 4 {
                rested = (motion_simulation_advance_some(&lanes.0, some, some.count, dt, mine.values, mine.velocities),
                          advanceSome(&lanes.1, some, some.count, dt, theirs.values, theirs.velocities))
            } else {
                rested = (motion_simulation_advance(&lanes.0, dt, mine.values, mine.velocities),
                          advance(&lanes.1, dt, theirs.values, theirs.velocities))
            }
            #expect(rested.0 == rested.1, "lanes at rest, \(what), tick \(tick)")
            for (name, a, b, count) in [("values", mine.values, theirs.values, Columns.count * 4),
                                        ("velocities", mine.velocities, theirs.velocities, Columns.count * 4),
                                        ("columns", mine.storage, theirs.storage, mine.doubles)] {
                guard let index = (0..<count).first(where: { !Self.close(a[$0], b[$0]) }) else { continue }
                Issue.record("\(name)[\(index)] \(a[index]) here, \(b[index]) in \(what), tick \(tick)")
                return
            }
            #expect(memcmp(mine.ended, theirs.ended, Columns.count) == 0, "rest flags, \(what), tick \(tick)")
        }
    }

    static func close(_ a: Double, _ b: Double) -> Bool {
        a == b || abs(a - b) <= 1e-9 * max(1, abs(a), abs(b))
    }

    /// The columns of `count` lanes, laid out as `SimulationBlock` lays them out, in one allocation.
    final class Columns {
        static let count = 53
        let doubles: Int
        let storage: UnsafeMutablePointer<Double>
        let values = UnsafeMutablePointer<Double>.allocate(capacity: count * 4)
        let velocities = UnsafeMutablePointer<Double>.allocate(capacity: count * 4)
        let ended = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        let force: UnsafeMutablePointer<Double>
        let lanes: motion_simulation_lanes

        /// Offsets, velocities and targets of each component, tension, damping and seconds until rest: 3 × width + 3
        /// columns. Lane i's physics is one of six (under-, over- and critically damped, undamped); with
        /// `shared`, all the first.
        init(width: Int, kind: UInt32, shared: Bool) {
            let n = Self.count
            doubles = (3 * width + 3) * n
            let storage = UnsafeMutablePointer<Double>.allocate(capacity: doubles), force = UnsafeMutablePointer<Double>.allocate(capacity: 2)
            storage.initialize(repeating: 0, count: doubles)
            (self.storage, self.force) = (storage, force)
            values.initialize(repeating: 0, count: n * 4)
            velocities.initialize(repeating: 0, count: n * 4)
            let ended = self.ended
            ended.initialize(repeating: 0, count: n)
            func column(_ number: Int) -> UnsafeMutablePointer<Double> { storage + number * n }
            let tensions: [Double] = [120, 300, 20, 1000, 100, 5], dampings: [Double] = [12, 5, 0, 200, 20, 2]
            let drags: [Double] = [3, 1, 8, 1.5, 20, 2], restTimes = [0.05, 0.5, 0.01, 1, 0.2, 0.03]
            for lane in 0..<n {
                let physics = shared ? 0 : lane % 6
                for component in 0..<width {
                    column(component)[lane] = Double((lane * 37 + component * 11) % 23) - 11.5
                    column(width + component)[lane] = lane.isMultiple(of: 2) ? 0 : 400 - Double(component * 170 + lane * 13)
                    column(2 * width + component)[lane] = kind == 0 ? 0 : 100 + Double(component * 40 - lane * 9)
                }
                column(3 * width)[lane] = kind == 0 ? 0 : tensions[physics]
                column(3 * width + 1)[lane] = kind == 0 ? drags[physics] : dampings[physics]
                column(3 * width + 2)[lane] = restTimes[lane % 6]
                if lane == 0 { (force[0], force[1]) = (column(3 * width)[0], column(3 * width + 1)[0]) }
            }
            func four(_ first: Int) -> (UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?,
                                        UnsafeMutablePointer<Double>?, UnsafeMutablePointer<Double>?) {
                let at = { (component: Int) in component < width ? column(first + component) : nil }
                return (at(0), at(1), at(2), at(3))
            }
            lanes = motion_simulation_lanes(
                count: n, width: UInt32(width), rests_at_target: kind, offset: four(0), velocity: four(width),
                target: four(2 * width), tension: column(3 * width), damping: column(3 * width + 1),
                rests_in: column(3 * width + 2), ended: ended, shared_force: shared ? UnsafePointer(force) : nil)
        }

        func deallocate() {
            storage.deallocate(); values.deallocate(); velocities.deallocate(); ended.deallocate(); force.deallocate()
        }
    }
}
