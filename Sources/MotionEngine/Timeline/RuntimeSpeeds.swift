/// A runtime's own speed (docs/protocol.md, `runtime.speed`): slow motion of one runtime for its owner,
/// beside the admin's global speed (which multiplies it). A runtime at its own speed leaves the shared
/// advance groups: each tick its performers are advanced one by one by dt × speed, and its timeline clock
/// runs at that speed too, so a scrub or replay lands where the slowed motion was. At speed 1 it joins the
/// groups again. Not kept across a restart: it is a tool for watching motion, not part of the motion.
extension Timelines {
    static let runtimeSpeeds: ClosedRange<Double> = 0.01...10

    func setSpeed(_ speed: Double, runtime scope: RuntimeScope) {
        guard speed != scope.speed else { return }
        let wasOwnPace = scope.speed != 1
        scope.speed = speed
        if !wasOwnPace {
            for performer in scope.performers { engine.stopAdvancing(performer) }
            engine.cycle.slowedRuntimes.append(scope)
        } else if speed == 1 {
            engine.cycle.slowedRuntimes.removeAll { $0 === scope }
            guard scope.timeline.pausedAt == nil else { return }
            for performer in scope.performers where !performer.tokens.isEmpty && performer.isContinuous {
                engine.startAdvancing(performer)
            }
        }
    }

    /// Whether a runtime at its own speed has an animation running (the clock must tick for it).
    var hasOwnPacedMotion: Bool {
        engine.cycle.slowedRuntimes.contains { $0.activeTokens > 0 && $0.timeline.pausedAt == nil }
    }

    /// In the frame: the performers of runtimes at their own speed, by dt × speed.
    func advanceOwnPacedRuntimes(by dt: Double) {
        engine.cycle.slowedRuntimes.removeAll { engine.runtimes[$0.name] !== $0 }      // destroyed meanwhile
        for scope in engine.cycle.slowedRuntimes where scope.timeline.pausedAt == nil && !scope.isClosing {
            scope.timeline.pausedTotal += dt * (1 - scope.speed)
            let scaled = dt * scope.speed
            for target in scope.targetOrder {
                for performer in target.performers.values where performer.isContinuous && !performer.tokens.isEmpty {
                    guard let instance = performer.instance, let advance = performer.table.pointee.advance else { continue }
                    engine.calling(performer.label, "advance") { advance(instance, scaled) }
                }
            }
        }
    }
}
