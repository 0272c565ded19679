import MotionWire

/// Each runtime's timeline as the engine keeps it (`Timeline`): its clock, pausing it, what is recorded on
/// it, and its own speed (`RuntimeSpeeds.swift`). A room of the engine (docs/architecture.md), made when
/// needed (`Engine.timelines`), its state each runtime's `timeline` and `speed`, and `cycle.slowedRuntimes`.
struct Timelines {
    unowned let engine: Engine

    /// The runtime's clock: seconds since it was created, not counting time paused by a scrubber.
    func clock(ofRuntime name: String) -> Double? {
        engine.runtimes[name].map { $0.timeline.clock(now: engine.time) }
    }

    /// Stops or restarts a runtime's clock: its performers receive no `advance` while it is paused.
    func setPaused(_ paused: Bool, runtime scope: RuntimeScope) {
        if paused {
            guard scope.timeline.pausedAt == nil else { return }
            scope.timeline.pausedAt = engine.time
            for performer in scope.performers { engine.stopAdvancing(performer) }
        } else {
            guard let pausedAt = scope.timeline.pausedAt else { return }
            scope.timeline.pausedTotal += engine.time - pausedAt
            scope.timeline.pausedAt = nil
            for performer in scope.performers where !performer.tokens.isEmpty && performer.isContinuous {
                engine.startAdvancing(performer)
            }
        }
    }

    /// Remembers a plan added or removed by a client (not one a performer emitted: a replay emits it
    /// again).
    func recordOnTimeline(_ change: TimelineEntry.Change, target: String, in scope: RuntimeScope) {
        guard engine.cycle.emitDepth == 0, scope.recordsTimeline else { return }
        scope.timeline.record(TimelineEntry(time: scope.timeline.clock(now: engine.time), target: target, change: change))
    }

    func timeline(of name: String) -> Timeline? { engine.runtimes[name]?.timeline }

    func updateTimeline(of name: String, _ body: (inout Timeline) -> Void) {
        guard let scope = engine.runtimes[name] else { return }
        body(&scope.timeline)
    }

    /// Every property of a runtime with its handle, for copying values between runtimes.
    func properties(ofRuntime name: String) -> [(target: String, property: String, handle: UInt32)] {
        guard let scope = engine.runtimes[name] else { return [] }
        return scope.targets.values.flatMap { target in
            target.properties.map { (target.name, $0.key, $0.value) }
        }.filter { engine.store.count(of: $0.handle) > 0 }
    }

    /// Writes a value into a runtime's property (creating it), as a frame will carry it.
    func write(_ value: [Double], velocity: [Double], to property: String, target: String, runtime name: String) {
        guard let scope = engine.runtimes[name], (1...PropertyStore.width).contains(value.count) else { return }
        let targetScope = scope.target(target)
        let handle = targetScope.properties[property] ?? {
            let handle = engine.store.intern(.init(runtime: name, target: target, property: property), shared: scope.isShared, hidden: scope.isDryRun)
            targetScope.properties[property] = handle
            return handle
        }()
        value.withUnsafeBufferPointer { values in
            velocity.withUnsafeBufferPointer { velocities in
                engine.store.write(handle, value: values.baseAddress!, velocity: velocity.count == value.count ? velocities.baseAddress : nil,
                            count: value.count)
            }
        }
    }
}
