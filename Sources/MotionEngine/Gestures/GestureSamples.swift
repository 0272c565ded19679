import MotionWire

extension Gestures {
    /// Applies pushed samples to the gesture `name` of `scope` (docs/vocabulary.md#interactions): `began` starts it afresh, a
    /// sample without a phase continues it, `ended` sets the release velocity (its own position is not
    /// added to the tracker), `cancelled` sets it to 0. Traces `gesture.began` / `gesture.ended`, records
    /// the samples on the timeline. The performers reading the gesture are advanced by 0 s at every
    /// change of phase and after the last sample, so each phase reaches them in order however the
    /// samples were batched (docs/protocol.md, gesture.push: a whole flick pushed at once is a drag and a release).
    func apply(_ samples: [GestureSample], toGesture name: String, in scope: RuntimeScope) {
        var gesture = scope.gestures[name] ?? Gesture()
        func publish() {
            scope.gestures[name] = gesture
            if let handle = scope.gestureHandles[name], let slot = engine.gestureSlots[handle] { slot.state = Self.readable(gesture) }
            gestureChanged(name, in: scope)
        }
        for (index, (sample, phase)) in samples.map({ ($0.sample, $0.phase) }).enumerated() {
            // The state before a new phase is what its readers must have seen: a drag's last move
            // before its release, the end of one gesture before the next begins.
            let resolved = phase ?? (gesture.isActive ? .moved : .began)
            if index > 0, resolved != .moved || !gesture.isActive { publish() }
            defer { if resolved == .began, index < samples.count - 1 { publish() } }
            gesture.lastTime = sample.time
            gesture.position = sample.position
            switch resolved {
            case .began:
                gesture.phase = .began
                gesture.origin = sample.position
                gesture.tracker.reset()
                gesture.tracker.add(sample)
                gesture.releaseVelocity = []
                gesture.generation += 1
                engine.trace(TraceEvent(kind: "gesture.began", runtime: scope.name, fields: [
                    "gesture": .string(name), "position": JSONValue(sample.position), "t": .number(sample.time)]))
            case .moved:
                if !gesture.isActive {
                    gesture.origin = sample.position
                    gesture.generation += 1
                }
                gesture.phase = .moved
                gesture.tracker.add(sample)
            case .ended, .cancelled:
                let cancelled = phase == .cancelled
                // A finger that rested more than 40 ms before it lifted flings nothing (as Flutter).
                let paused = (gesture.tracker.samples.last.map { sample.time - $0.time } ?? 0) > VelocityTracker.maximumGap
                let velocity = cancelled || paused ? Array(repeating: 0.0, count: sample.position.count) : gesture.tracker.velocity(dimension: sample.position.count).velocity
                gesture.phase = cancelled ? .cancelled : .ended
                gesture.releaseVelocity = velocity
                engine.trace(TraceEvent(kind: "gesture.ended", runtime: scope.name, fields: [
                    "gesture": .string(name), "velocity": JSONValue(velocity), "cancelled": .bool(cancelled),
                    "position": JSONValue(sample.position), "t": .number(sample.time)]))
            }
        }
        publish()
        engine.timelines.recordOnTimeline(.gesture(samples), target: name, in: scope)
    }
}
