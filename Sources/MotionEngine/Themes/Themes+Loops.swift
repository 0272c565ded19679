import MotionWire

/// A running loop whose curve or ends a retune changed (docs/themes.md#live-retune): in phase, the new
/// curve's value there would be a jump, so the loop is bridged, from the property's value and velocity, to
/// the end of the way it is on, in the time that way has left at the new duration; its cycles go on from
/// there with the new values, ending when and where they would have. The bridge and the rest are one
/// `Sequence`, journaled as a client's plan would be.
extension Themes {
    /// Where a running loop is, in its new duration.
    struct LoopPhase {
        /// The way under way in its cycle (0: there; 1: back, with `autoreverse`) and how far along it (0–1).
        var way: Int
        var wayDone: Double
        /// Cycles left, the one under way included (nil: forever).
        var cyclesLeft: Double?
        /// Ways per cycle: 2 with `autoreverse`.
        var perCycle: Double
        /// Seconds a way takes now.
        var duration: Double
    }

    /// A loop's curve and ends: when they change it is bridged (a change of its duration, delay or count
    /// alone is carried on in phase).
    static func shape(of plan: JSONValue) -> [JSONValue?] {
        ["type", "timing", "from", "to", "values", "keyTimes", "autoreverse"].map { plan[$0] }
    }

    /// The loop `plan` (as now resolved) bridged at `phase` from `value` and `velocity`; nil when it
    /// cannot be: its cycles end inside the way under way (a fraction of a cycle left, whose end only the
    /// curve knows), or its start is unknown.
    func loopBridge(_ plan: JSONValue, _ phase: LoopPhase, start: [Double]?, path: Bool, value: [Double],
                    velocity: [Double]) -> JSONValue? {
        let waysLeft = phase.cyclesLeft.map { $0 * phase.perCycle - Double(phase.way) }
        if let waysLeft, waysLeft < 1 - 1e-9 { return nil }
        let forward = phase.way == 0
        let time = (1 - phase.wayDone) * phase.duration
        guard time > 0 else { return nil }
        var bridge = plan
        for key in ["repeat", "autoreverse", "from", "delay"] { bridge[key] = nil }
        bridge["velocity"] = JSONValue(velocity)
        bridge["duration"] = .number(time)
        var rest = plan
        rest["velocity"] = nil
        if path {
            guard var values = plan["values"]?.arrayValue, values.count >= 2 else { return nil }
            var way = plan
            if !forward {
                // The way back: the path reversed (a segment's timing stays its own).
                let keyTimes = Self.keyTimes(of: plan, count: values.count)
                values.reverse()
                way["values"] = .array(values)
                way["keyTimes"] = .array(keyTimes.reversed().map { .number(1 - $0) })
                if let each = plan["timing"]?.arrayValue, each.first?.doubleValue == nil { way["timing"] = .array(each.reversed()) }
            }
            guard let ahead = Self.pathAhead(of: way, from: value, done: phase.wayDone, into: bridge) else { return nil }
            bridge = ahead
        } else {
            guard let start = plan["from"] ?? start.map(JSONValue.init), let end = plan["to"] else { return nil }
            bridge["to"] = forward ? end : start
            rest["from"] = start
        }
        // The cycles after the bridge: the way back of this one, or the next whole ones.
        if phase.perCycle > 1, forward {
            rest["delay"] = .number(-phase.duration)
            if let left = phase.cyclesLeft { rest["repeat"] = .number(left) }
        } else {
            rest["delay"] = nil
            if let left = phase.cyclesLeft {
                guard left - 1 > 1e-9 else { return bridge }
                rest["repeat"] = .number(left - 1)
            }
        }
        return ["type": .string(Composite.Kind.sequence.rawValue), "steps": [bridge, rest]]
    }
}
