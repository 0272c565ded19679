import ArgumentParser
import Foundation
import Logging
import MotionEngine
import MotionHost
import MotionWire

/// Springs advanced per tick inside the engine, no socket: the real dlopen'd Spring plugin, N targets
/// with one moving spring each. Reports the median tick (advance only, with no one reading the values and
/// with every value written to the property store, and advance + frame encoding for one subscriber of
/// every property), per spring.
struct EngineBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine", abstract: "Measure ticks of N springs in-process (no socket): advance, and advance + frame encoding.")

    @Option(help: "Number of targets, each with one plan (a spring unless --plan says otherwise).") var springs = 10_000
    @Option(help: "The plan on each target: spring, clamped (a spring with overshootClamping), tween, keyframes, sequence (of two tweens), group (two tweens on two properties: two animations per target).")
    var plan = "spring"
    @Option(help: "Components per spring (1-4).") var dimensions = 2
    @Option(help: "Ticks to measure.") var ticks = 100
    @Flag(help: "Print one JSON object instead of text.") var json = false
    @Flag(help: "Measure the advance only, not the ticks with frame encoding (for profiling the advance).") var advanceOnly = false

    func run() async throws {
        let build = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            .deletingLastPathComponent()
        let logger = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
        let host = HostServices(logger: logger)
        let registry = PluginLoader.buildRegistry(directories: [(build.path, true)], host: host)
        let engine = Engine(registry: registry, host: host, vocabulary: .shipped)
        let context = EngineContext(engine: engine, settings: EngineSettings(), logger: logger)
        let output = CountingOutput()
        context.openLocalSession(1, output: output)
        context.receive(line: Array(#"{"id":1,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        let target = JSONValue(Array(repeating: 1000.0, count: dimensions))
        let started = Date()
        let (perTarget, animations) = try Self.plan(plan, target: target)
        for index in 0..<springs { try engine.addPlan(perTarget, to: "s\(index)") }
        let setup = Date().timeIntervalSince(started)
        let dt = 1.0 / 120
        let counter = AllocationCounter()
        /// Sorted tick times, and allocations per tick counted around the ticks alone.
        func measure(_ body: () -> Void) -> (times: [Double], allocations: Double?) {
            var times = [Double](repeating: 0, count: ticks)
            var allocations: UInt = 0
            for _ in 0..<5 { body() }  // warm-up: buffers grow to their working size

            for tick in 0..<ticks {
                let allocationsBefore = counter?.count ?? 0
                let start = DispatchTime.now().uptimeNanoseconds
                body()
                times[tick] = Double(DispatchTime.now().uptimeNanoseconds - start)
                allocations += (counter?.count ?? 0) - allocationsBefore
            }
            return (times.sorted(), counter.map { _ in Double(allocations) / Double(ticks) })
        }
        // With no one to read them (the daemon's tick with no frame subscriber), the shipped springs keep
        // their values ("motion.kept/1"); with a reader, every value is written to the property store.
        engine.unread.writesUnread = true
        let (unread, unreadAllocations) = measure {
            engine.advance(by: dt)
            engine.clearFrame()
        }
        engine.unread.writesUnread = false
        let (advance, advanceAllocations) = measure {
            engine.advance(by: dt)
            engine.clearFrame()
        }
        func nanosecondsPerSpring(_ times: [Double]) -> Double { (times[ticks / 2] / Double(springs) * 10).rounded() / 10 }
        if advanceOnly {
            return print("\(springs) \(plan) × \(dimensions)-D, \(ticks) ticks: advance \((advance[ticks / 2] / 1e4).rounded() / 100) ms (\(nanosecondsPerSpring(advance)) ns/spring), no one reading \((unread[ticks / 2] / 1e4).rounded() / 100) ms (\(nanosecondsPerSpring(unread)) ns/spring)")
        }
        context.receive(line: Array(#"{"id":2,"method":"subscribe","params":{"streams":["frames"]}}"#.utf8), from: 1)
        let before = output.bytes
        // What the daemon's engine loop does around each tick (`EngineLoop`): the tick, its statistics,
        // its share-out among uids and the metrics' record of it (docs/operations.md#metrics: no allocation).
        let metrics = DaemonMetrics()
        let (full, fullAllocations) = measure {
            let started = WorkClock.now()
            context.tick(dt: dt)
            let work = WorkClock.now() &- started
            context.ticks.statistics.record(workNanos: work, latenessNanos: 0, overrun: false)
            context.ticks.shareOut(work)
            metrics.recordTick(work: work, lateness: 0, overrun: false)
        }
        let bytesPerTick = Double(output.bytes - before) / Double(ticks)
        let result: JSONValue = [
            "springs": .number(Double(springs)), "plan": .string(plan),
            "advanceNsPerAnimation": .number((advance[ticks / 2] / Double(springs * animations) * 10).rounded() / 10),
            "dimensions": .number(Double(dimensions)), "ticks": .number(Double(ticks)),
            "advanceMedianMs": .number((advance[ticks / 2] / 1e4).rounded() / 100),
            "advanceNsPerSpring": .number(nanosecondsPerSpring(advance)),
            "advanceUnreadMedianMs": .number((unread[ticks / 2] / 1e4).rounded() / 100),
            "advanceUnreadNsPerSpring": .number(nanosecondsPerSpring(unread)),
            "allocationsPerUnreadAdvance": unreadAllocations.map(JSONValue.number) ?? .null,
            "tickWithFramesMedianMs": .number((full[ticks / 2] / 1e4).rounded() / 100),
            "tickWithFramesP99Ms": .number((full[min(ticks - 1, ticks * 99 / 100)] / 1e4).rounded() / 100),
            "tickWithFramesNsPerSpring": .number((full[ticks / 2] / Double(springs) * 10).rounded() / 10),
            "frameBytesPerTick": .number(bytesPerTick.rounded()), "setupSeconds": .number((setup * 100).rounded() / 100),
            // Measured only under LD_PRELOAD of libmotion-malloc-count.so (scripts/bench does it).
            "allocationsPerAdvance": advanceAllocations.map(JSONValue.number) ?? .null,
            "allocationsPerTickWithFrames": fullAllocations.map(JSONValue.number) ?? .null,
        ]
        if json { return print(JSONWriter.string(result)) }
        if let advanceAllocations, let fullAllocations {
            print("allocations per tick: advance \(advanceAllocations), with frame encoding \(fullAllocations)")
        }
        print("\(plan): \(result["advanceNsPerAnimation"]!.doubleValue!) ns per animation per tick; no one reading: \(result["advanceUnreadNsPerSpring"]!.doubleValue!) ns per spring")
        print("\(springs) \(plan) × \(dimensions)-D, \(ticks) ticks: advance \(result["advanceMedianMs"]!.doubleValue!) ms (\(result["advanceNsPerSpring"]!.doubleValue!) ns/spring); with frame encoding \(result["tickWithFramesMedianMs"]!.doubleValue!) ms (\(result["tickWithFramesNsPerSpring"]!.doubleValue!) ns/spring), \(Int(bytesPerTick)) bytes/tick")
    }
}

extension EngineBench {
    /// Each kind's plan, moving for the whole measurement (hours long), and its animations per target.
    static func plan(_ kind: String, target: JSONValue) throws -> (JSONValue, Int) {
        let zero = JSONValue((target.arrayValue ?? []).map { _ in 0.0 })
        let tween: (String) -> JSONValue = { ["type": "Tween", "property": .string($0), "to": target, "duration": 3600, "timing": "ease-in-out"] }
        switch kind {
        case "spring": return (["type": "Spring", "property": "position", "to": target, "tension": 120, "damping": 0.05, "threshold": 1e-9], 1)
        case "clamped":
            return (["type": "Spring", "property": "position", "to": target, "tension": 1e-4, "damping": 0, "threshold": 1e-9,
                     "overshootClamping": true], 1)
        case "tween": return (tween("position"), 1)
        case "keyframes":
            return (["type": "Keyframes", "property": "position", "values": [zero, target, zero], "duration": 3600,
                     "timing": ["ease-in", "ease-out"]], 1)
        case "sequence": return (["type": "Sequence", "steps": [tween("position"), tween("position")]], 1)
        case "group": return (["type": "Group", "plans": [tween("position"), tween("scale")]], 2)
        default: throw ValidationError("--plan: expected spring, clamped, tween, keyframes, sequence or group")
        }
    }
}

/// Counts the bytes a subscriber would be sent.
final class CountingOutput: ClientOutput, @unchecked Sendable {
    // @unchecked: used from one thread in this benchmark.
    private(set) var bytes = 0
    var backlog: Int { 0 }
    func send(_ line: [UInt8]) { bytes += line.count }
    func send(bytes line: UnsafeRawBufferPointer) { bytes += line.count }
    func close() {}
}
