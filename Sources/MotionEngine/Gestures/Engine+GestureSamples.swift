import MotionWire

extension Engine {
    /// Applies pushed samples to the gesture `name` of `scope` (docs/vocabulary.md#interactions): `began` starts it afresh, a
    /// sample without a phase continues it, `ended` sets the release velocity (its own position is not
    /// added to the tracker), `cancelled` sets it to 0. Traces `gesture.began` / `gesture.ended`, records
    /// the samples on the timeline, then advances the performers reading the gesture by 0 s.
    func apply(_ samples: [GestureSample], toGesture name: String, in scope: RuntimeScope) {
        var gesture = scope.gestures[name] ?? Gesture()
        for (sample, phase) in samples.map({ ($0.sample, $0.phase) }) {
            gesture.lastTime = sample.time
            gesture.position = sample.position
            switch phase ?? (gesture.isActive ? .moved : .began) {
            case .began:
                gesture.phase = .began
                gesture.origin = sample.position
                gesture.tracker.reset()
                gesture.tracker.add(sample)
                gesture.releaseVelocity = []
                gesture.generation += 1
                trace(TraceEvent(kind: "gesture.began", runtime: scope.name, fields: [
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
                trace(TraceEvent(kind: "gesture.ended", runtime: scope.name, fields: [
                    "gesture": .string(name), "velocity": JSONValue(velocity), "cancelled": .bool(cancelled),
                    "position": JSONValue(sample.position), "t": .number(sample.time)]))
            }
        }
        scope.gestures[name] = gesture
        if let handle = scope.gestureHandles[name], let slot = gestureSlots[handle] { slot.state = Self.readable(gesture) }
        recordOnTimeline(.gesture(samples), target: name, in: scope)
        gestureChanged(name, in: scope)
    }
}
