import CHostSupport
import Foundation
import Logging
import MotionEngine
import MotionPluginAPI
import MotionSchema
import MotionWire

/// `motiond --validate`'s checks, run in a child process against one plugin file (so a plugin that
/// crashes takes only the child down, and the parent names the check it crashed in). Each check is
/// announced on stdout before it runs and its outcome after, one JSON object per line.
package enum ConformanceSuite {
    package enum Status: String, Sendable {
        case pass, warn, fail
    }

    struct Outcome {
        var status: Status
        var detail: String
        static func pass(_ detail: String) -> Outcome { Outcome(status: .pass, detail: detail) }
        static func warn(_ detail: String) -> Outcome { Outcome(status: .warn, detail: detail) }
        static func fail(_ detail: String) -> Outcome { Outcome(status: .fail, detail: detail) }
    }

    /// Runs every check on `file`; returns the child's exit status (0: no check failed).
    package static func runChild(file: String) -> Int32 {
        var failed = false
        func check(_ name: String, _ body: () -> Outcome) {
            emit(["check": .string(name), "status": "running"])
            let outcome = body()
            if outcome.status == .fail { failed = true }
            emit(["check": .string(name), "status": .string(outcome.status.rawValue), "detail": .string(outcome.detail)])
        }
        let host = HostServices(logger: Logger(label: "motiond.validate"))
        var loaded: PluginDescriptor?
        check("descriptor") {
            switch PluginLoader.load(file: file, host: host) {
            case .failure(let error): return .fail(error.reason)
            case .success(let descriptor):
                loaded = descriptor
                let raw = descriptor.pointer.pointee
                return .pass("\(descriptor.id) \(descriptor.version), ABI \(raw.abi_major).\(raw.abi_minor), "
                    + "\(descriptor.factories.count) plan type\(descriptor.factories.count == 1 ? "" : "s"), "
                    + "\(descriptor.functions.count) timing function\(descriptor.functions.count == 1 ? "" : "s")")
            }
        }
        guard let plugin = loaded else { return 1 }
        for factory in plugin.factories {
            FactoryChecks(plugin: plugin, factory: factory, host: host).run(check)
        }
        return failed ? 1 : 0
    }

    static func emit(_ line: JSONValue) {
        print(JSONWriter.string(line))
        fflush(nil)
    }
}

/// The checks of one plan type.
struct FactoryChecks {
    let plugin: PluginDescriptor
    let factory: FactoryDescriptor
    let host: HostServices
    typealias Outcome = ConformanceSuite.Outcome

    var type: String { factory.planType }

    func run(_ check: (String, () -> Outcome) -> Void) {
        let schema = factory.schema
        check("\(type): schema") {
            guard let schema else {
                return .warn("no plan_schema: the host cannot check its plans, so a misspelt key reaches the plugin")
            }
            return .pass("declared: keys " + schema.properties.keys.sorted().joined(separator: ", ")
                + (schema.required.isEmpty ? "" : "; required " + schema.required.joined(separator: ", ")))
        }
        if let schema {
            check("\(type): unknown keys are refused") {
                let plan = schema.unknownKeyExample(planType: type)
                do throws(EngineError) {
                    try engine().addPlan(plan, to: "validate")
                    return .warn("its schema accepts any key (\"additionalProperties\": true): a misspelt key is ignored")
                } catch {
                    return error.code == .invalidPlan ? .pass(error.message) : .fail("\(error.code.rawValue): \(error.message)")
                }
            }
            check("\(type): plans its schema refuses are refused") { refusals(schema) }
        }
        let plans: [(String, JSONValue)] = schema.map { schema in
            [("minimal", schema.example(planType: type, full: false)), ("full", schema.example(planType: type, full: true))]
        } ?? []
        for (label, plan) in plans {
            check("\(type): accepts a \(label) valid plan") {
                do throws(EngineError) {
                    try engine().addPlan(plan, to: "validate")
                    return .pass(JSONWriter.string(plan))
                } catch {
                    // Every declared key at once may combine keys that exclude each other (a spring given in
                    // two forms), which a schema of this subset cannot say: worth a look, not a failure.
                    if label == "full" {
                        return .warn("refused every declared key at once (keys that exclude each other?): \(error.message)")
                    }
                    return .fail("refused \(JSONWriter.string(plan)), which its schema accepts: \(error.message)")
                }
            }
        }
        // The minimal plan starts from the property's current value (none: zero), so it moves.
        guard let plan = plans.first?.1 else { return }
        if factory.isContinuous {
            check("\(type): advance") { advance(plan) }
        }
        check("\(type): destroy releases everything") { destroy(plan) }
        if factory.isContinuous, plan["property"]?.stringValue != nil {
            check("\(type): yields a claimed property") { yieldCheck(plan) }
        }
        if factory.isContinuous {
            check("\(type): migration round trip") { migration(plan) }
        }
        if factory.kept != nil, plan["property"]?.stringValue != nil {
            check("\(type): values it keeps") { keptCheck(plan) }
        }
    }

    /// A fresh engine with the plugin and the validator's claiming plan type.
    func engine(host: HostServices? = nil) -> Engine {
        var builder = PluginRegistryBuilder()
        builder.add(plugin)
        if let claimer = try? DescriptorCheck.check(UnsafeRawPointer(ClaimingPlugin.descriptor), file: "<validator>").get() {
            builder.add(claimer)
        }
        return Engine(registry: builder.freeze(), host: host ?? self.host, vocabulary: .none)
    }

    private func values(_ engine: Engine, _ plan: JSONValue) -> [Double] {
        guard let property = plan["property"]?.stringValue else { return [] }
        return engine.value(of: property, target: "validate") ?? []
    }

    /// Plans with one thing wrong each (a required key missing, a wrong type, out of range, not in an
    /// enum): the host refuses every one with `plan.invalid` before the plugin sees it.
    private func refusals(_ schema: JSONSchema) -> Outcome {
        let cases = schema.invalidExamples(planType: type)
        let engine = engine()
        for (reason, plan) in cases {
            do throws(EngineError) {
                try engine.addPlan(plan, to: "validate")
                return .fail("accepted a plan \(reason): \(JSONWriter.string(plan))")
            } catch {
                guard error.code == .invalidPlan else { return .fail("a plan \(reason): \(error.code.rawValue), not plan.invalid: \(error.message)") }
            }
        }
        let kinds = [("without its required", "a required key left out"), ("wrong type", "a wrong type"),
                     ("out of its range", "out of range"), ("not one of its values", "not in an enum")]
        let counts = kinds.compactMap { key, label in
            let count = cases.filter { $0.reason.contains(key) }.count
            return count > 0 ? "\(count) \(label)" : nil
        }
        return .pass("\(cases.count) refused with plan.invalid naming the field" + (counts.isEmpty ? "" : ": " + counts.joined(separator: ", ")))
    }

    private func advance(_ plan: JSONValue) -> Outcome {
        let engine = engine()
        do throws(EngineError) { try engine.addPlan(plan, to: "validate") } catch { return .fail(error.message) }
        let frame = 1.0 / 120
        var ticks = 0
        var durations: [UInt64] = []
        durations.reserveCapacity(120 * 60)
        // Heap allocations inside advance (where libmotion-malloc-count.so is preloaded), after the first
        // ticks (growth) and but for the last (an animation's end traces).
        let counter = AllocationCounter()
        var allocatingTicks = 0, countedTicks = 0, allocations: UInt = 0
        var lastValues: [Double] = [], changedAt = 0
        let before = motion_heap_in_use()
        while engine.isAnimating, ticks < 120 * 60 {
            let usage = ThreadUsage.now()
            let started = WorkClock.now()
            let allocated = counter?.count ?? 0
            engine.advance(by: frame)
            let allocatedAfter = counter?.count ?? 0
            durations.append(WorkClock.now() - started)
            if ticks >= 3, engine.isAnimating {
                countedTicks += 1
                if allocatedAfter > allocated {
                    allocatingTicks += 1
                    allocations += allocatedAfter - allocated
                }
            }
            engine.clearFrame()
            ticks += 1
            // Every client's frames wait for each advance (docs/operations.md, "A plugin that stalls"). A
            // tick that computed that long fails, and so does one that blocked (a sleep, I/O) that long; one
            // during which the validator was only preempted (a busy machine) counts its CPU time alone.
            let after = ThreadUsage.now()
            let blocked = after.voluntary != usage.voluntary, preempted = after.involuntary != usage.involuntary
            let took = preempted && !blocked ? after.cpuNanos &- usage.cpuNanos : durations.last ?? 0
            if Double(took) > frame * 1e9 {
                return .fail("one advance of one performer took \(Self.milliseconds(took)) ms, more than a frame interval "
                    + "(\(Self.milliseconds(UInt64(frame * 1e9))) ms at 120 Hz): every client's frames would wait for it")
            }
            if ticks == 120 {
                let now = motion_heap_in_use()
                if now > before + (1 << 20) { return .fail("memory in use grew by \(now - before) bytes in the first second of advancing") }
            }
            let now = values(engine, plan)
            if !now.allSatisfy(\.isFinite) {
                return .fail("wrote a value that is not finite after \(ticks) ticks: \(now)")
            }
            if now != lastValues { (lastValues, changedAt) = (now, ticks) }
        }
        let grown = Int(motion_heap_in_use()) - Int(before)
        var memory = grown > (64 << 10) ? "; memory in use grew by \(grown) bytes while advancing" : ""
        // A failure before the warnings below (an allocation warning hid a token kept for ever).
        if engine.isAnimating, plan["property"] != nil, ticks - changedAt >= 120 * 10 {
            return .fail("holds its token at rest: still active after \(ticks / 120) s with its value unchanged for the last "
                + "\((ticks - changedAt) / 120) s, so its runtime never goes idle (release the token when it settles)" + memory)
        }
        if counter == nil {
            memory += "; allocations not counted (libmotion-malloc-count.so not found)"
        } else if allocatingTicks > 0 {
            // An advance runs on the frame clock's thread, where malloc may take a lock or fault in memory.
            // A warning, not a failure: a debug build of a Swift plugin allocates where its release does not.
            let settled = engine.isAnimating ? "still animating after \(ticks) ticks" : "settled after \(ticks) ticks"
            return .warn("\(settled); allocated on \(allocatingTicks) of \(countedTicks) advances (\(allocations) allocations): an "
                + "advance should not allocate (keep what it needs in the performer; check a release build)" + memory)
        } else if countedTicks > 0 {
            memory += ", no allocation in \(countedTicks) advances"
        }
        if let median = durations.sorted().dropFirst(durations.count / 2).first, median > 100_000 {
            return .warn("an advance of one performer takes \(Self.milliseconds(median)) ms (median of \(ticks) ticks): "
                + "\(Int(frame * 1e9) / Int(median)) such performers fill a frame" + memory)
        }
        if engine.isAnimating { return .warn("still animating after 60 s of ticks (\(ticks) ticks)" + memory) }
        return .pass("settled after \(ticks) ticks (\(String(format: "%.2f", Double(ticks) * frame)) s), values finite" + memory)
    }

    static func milliseconds(_ nanoseconds: UInt64) -> String { String(format: "%.2f", Double(nanoseconds) / 1e6) }

    private func destroy(_ plan: JSONValue) -> Outcome {
        let engine = engine()
        do throws(EngineError) {
            try engine.createRuntime("validate.destroy")
            try engine.addPlan(plan, to: "validate", in: "validate.destroy")
            for _ in 0..<3 {
                engine.advance(by: 1.0 / 120)
                engine.clearFrame()
            }
            try engine.destroyRuntime("validate.destroy")
        } catch {
            return .fail(error.message)
        }
        guard engine.performerCount == 0, engine.activeTokenCount == 0 else {
            return .fail("\(engine.performerCount) performers and \(engine.activeTokenCount) tokens left after the runtime was destroyed")
        }
        return .pass("no performer or token left")
    }

    private func yieldCheck(_ plan: JSONValue) -> Outcome {
        guard factory.yield != nil else {
            return .warn("no motion.yield/1: a newer plan of another type on its property cannot stop it")
        }
        let engine = engine()
        let observer = Recorder()
        engine.observer = observer
        do throws(EngineError) {
            try engine.addPlan(plan, to: "validate")
            for _ in 0..<3 { engine.advance(by: 1.0 / 120) }
            let held = values(engine, plan)
            try engine.addPlan(["type": .string(ClaimingPlugin.planType), "property": plan["property"]!], to: "validate")
            for _ in 0..<30 { engine.advance(by: 1.0 / 120) }
            let after = values(engine, plan)
            guard after == held else { return .fail("kept writing \(plan["property"]!) after another performer claimed it: \(held) → \(after)") }
        } catch {
            return .fail(error.message)
        }
        let ended = observer.events.contains { $0.kind == "animation.ended" && $0.fields["reason"] == "interrupted" }
        return ended ? .pass("stopped writing, ended \"interrupted\"") : .warn("stopped writing, but traced no animation.ended \"interrupted\"")
    }

    private func migration(_ plan: JSONValue) -> Outcome {
        guard let lookup = plugin.pointer.pointee.get_extension, lookup(MOTION_MIGRATE_EXTENSION) != nil else {
            return .warn("no motion.migrate/1: when a new build is swapped in, running animations finish on the old one")
        }
        let swapped = engine(), twin = engine(host: HostServices(logger: Logger(label: "motiond.validate.twin")))
        do throws(EngineError) {
            for engine in [swapped, twin] {
                try engine.addPlan(plan, to: "validate")
                for _ in 0..<10 { engine.advance(by: 1.0 / 120) }
            }
            let before = values(swapped, plan)
            var builder = PluginRegistryBuilder(extending: swapped.registry)
            _ = builder.replace(with: plugin, hash: "validate")
            let report = try swapped.swaps.swap(to: builder.freeze(), pluginID: plugin.id)
            guard report.migrated == 1 else { return .fail("migrated \(report.migrated) of 1 running performers") }
            let after = values(swapped, plan)
            guard after == before else { return .fail("the value jumped at the swap: \(before) → \(after)") }
            for engine in [swapped, twin] { for _ in 0..<10 { engine.advance(by: 1.0 / 120) } }
            let (moved, stayed) = (values(swapped, plan), values(twin, plan))
            guard zip(moved, stayed).allSatisfy({ abs($0 - $1) <= 1e-9 * max(1, abs($1)) }) else {
                return .fail("after the swap it moved differently from an unswapped twin: \(moved) vs \(stayed)")
            }
            return .pass("value and motion continue as without the swap")
        } catch {
            return .fail(error.message)
        }
    }

    /// "motion.kept/1": while no one reads, the plugin may keep values; asked for them, it must give
    /// exactly what it would have written. A writing and a keeping engine run side by side, read now and
    /// then: every other read asks the keeping one's plugin for everything it kept (`write_kept`), the
    /// others for the property read (`write_kept_some`, where the plugin has it).
    private func keptCheck(_ plan: JSONValue) -> Outcome {
        let writing = engine(), keeping = engine(host: HostServices(logger: Logger(label: "motiond.validate.kept")))
        keeping.unread.writesUnread = true
        let property = plan["property"]?.stringValue ?? ""
        func state(_ engine: Engine) -> [[Double]] {
            [engine.value(of: property, target: "validate") ?? [], engine.velocity(of: property, target: "validate") ?? []]
        }
        do throws(EngineError) {
            for engine in [writing, keeping] { try engine.addPlan(plan, to: "validate") }
            var reads = 0, ticks = 0
            while ticks < 120 * 10 {
                for engine in [writing, keeping] {
                    engine.advance(by: 1.0 / 120)
                    engine.clearFrame()
                }
                ticks += 1
                guard ticks % 7 == 0 || !writing.isAnimating else { continue }
                reads += 1
                if reads % 2 == 0 { keeping.refreshKeptValues() }
                let (written, kept) = (state(writing), state(keeping))
                guard written == kept else {
                    return .fail("after \(ticks) ticks, asked for what it kept it gave value \(kept[0]), velocity \(kept[1]); it writes \(written[0]), \(written[1])")
                }
                if !writing.isAnimating { break }
            }
            return .pass("asked for what it kept, all of it or one property, it gave what it writes (\(reads) reads over \(ticks) ticks)")
        } catch {
            return .fail(error.message)
        }
    }

    private final class Recorder: TraceObserver {
        var events: [TraceEvent] = []
        func engine(_ engine: Engine, didTrace event: TraceEvent) { events.append(event) }
    }
}
