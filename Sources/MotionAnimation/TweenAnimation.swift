import MotionPluginKit

/// `{"type":"Tween","property":"opacity","from"?:[0],"to":[1],"duration"?:0.25,
/// "timing"?:"swiftOut"|"ease-in-out"|"cubic-bezier(…)"|"steps(4, jump-start)"|"linear(0, 0.8 60%, 1)"|
/// [a,b,c,d]|{"function":"name","args":[..]}}` (docs/vocabulary.md).
package struct TweenPlan: AnimationPlan {
    package var property: String
    package var to: [Double]
    package var from: [Double]?
    package var duration: Double?
    package var timing: TimingSpec?
    package var delay: Double?
    package var `repeat`: RepeatCount?
    package var autoreverse: Bool?
    /// Its velocity at the start (units per second), beyond which the curve takes over (`Tween.launch`).
    package var velocity: [Double]?
}

/// `repeat`: a number of cycles, or `"forever"`.
package enum RepeatCount: Codable, Sendable, Equatable {
    case count(Double)
    case forever

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Double.self) {
            guard count.isFinite, count > 0 else { throw PlanError("repeat: expected a positive number of cycles or \"forever\"") }
            self = .count(count)
        } else if (try? container.decode(String.self)) == "forever" {
            self = .forever
        } else {
            throw PlanError("repeat: expected a positive number of cycles or \"forever\"")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .count(let count): try container.encode(count)
        case .forever: try container.encode("forever")
        }
    }

    package var cycles: Double {
        switch self {
        case .count(let count): count
        case .forever: .infinity
        }
    }
}

/// The three ways a plan names its timing.
package enum TimingSpec: Codable, Sendable {
    case preset(String)
    case bezier([Double])
    case function(name: String, arguments: [Double])

    private enum Keys: String, CodingKey { case function, args }

    package init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if let name = try? container.decode(String.self) {
                self = .preset(name)
                return
            }
            if let points = try? container.decode([Double].self) {
                self = .bezier(points)
                return
            }
        }
        guard let object = try? decoder.container(keyedBy: Keys.self),
            let name = try? object.decode(String.self, forKey: .function)
        else {
            throw PlanError("timing: expected a preset name, [x1,y1,x2,y2] or {\"function\":name,\"args\":[..]}")
        }
        guard let arguments = try? object.decodeIfPresent([Double].self, forKey: .args) ?? [] else {
            throw PlanError("timing.args: expected an array of numbers")
        }
        self = .function(name: name, arguments: arguments)
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .preset(let name):
            var container = encoder.singleValueContainer()
            try container.encode(name)
        case .bezier(let points):
            var container = encoder.singleValueContainer()
            try container.encode(points)
        case .function(let name, let arguments):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .function)
            try container.encode(arguments, forKey: .args)
        }
    }

    package func curve(context: PerformerContext) throws -> TimingCurve {
        switch self {
        case .preset(let name):
            return try CSSTiming.parse(name).get()
        case .bezier(let points):
            guard points.count == 4, points.allSatisfy(\.isFinite), (0...1).contains(points[0]), (0...1).contains(points[2]),
                  UnitBezier.allowedY.contains(points[1]), UnitBezier.allowedY.contains(points[3]) else {
                throw PlanError("timing: expected [x1,y1,x2,y2] with x1 and x2 in [0, 1], y1 and y2 within ±1000")
            }
            return .bezier(UnitBezier(points[0], points[1], points[2], points[3]))
        case .function(let name, let arguments):
            let curve = try context.curve(named: name, arguments: arguments)
            return .function { curve($0) }
        }
    }
}

/// Without `from` a tween starts from the property's current value; a new Tween on a moving property
/// starts from wherever the old one had got to.
package struct TweenAnimation: MigratableAnimation {
    package static let planType = "Tween"
    package let count: Int
    private var tween: Tween
    /// Kept so that a new build can bind the same curve (a plugin function is a closure here).
    private let timing: TimingSpec?

    package struct Snapshot: Codable, Sendable {
        var count: Int
        var from: SIMD4<Double>, to: SIMD4<Double>, duration: Double, timing: TimingSpec?
        var repeatCount: RepeatCount?, autoreverses: Bool?
        var elapsed: Double, value: SIMD4<Double>, velocity: SIMD4<Double>
        /// Absent from builds before `velocity` (none then).
        var launch: SIMD4<Double>?
    }

    package var snapshot: Snapshot {
        Snapshot(count: count, from: tween.from, to: tween.to, duration: tween.duration, timing: timing,
                 repeatCount: tween.repeatCount.isInfinite ? .forever : .count(tween.repeatCount), autoreverses: tween.autoreverses,
                 elapsed: tween.elapsed, value: tween.value, velocity: tween.velocity, launch: tween.launch == .zero ? nil : tween.launch)
    }

    package init(snapshot: Snapshot, context: PerformerContext) throws {
        guard (1...4).contains(snapshot.count) else { throw PlanError("state.count: expected 1 to 4") }
        count = snapshot.count
        timing = snapshot.timing
        tween = Tween(from: snapshot.from, to: snapshot.to, duration: snapshot.duration,
                      curve: try snapshot.timing?.curve(context: context) ?? .swiftOut,
                      repeatCount: snapshot.repeatCount?.cycles ?? 1, autoreverses: snapshot.autoreverses ?? false,
                      launch: snapshot.launch ?? .zero)
        tween.resume(elapsed: snapshot.elapsed, value: snapshot.value, velocity: snapshot.velocity)
    }

    package init(plan: TweenPlan, current: PropertyState?, context: PerformerContext) throws {
        let to = try vector(plan.to, field: "to")
        let components = plan.to.count
        count = components
        let duration = plan.duration ?? 0.25
        guard duration >= 0, duration.isFinite, duration <= 3600 else {
            throw PlanError("duration: expected 0 to 3600 seconds")
        }
        let from = try plan.from.map { try vector($0, field: "from", count: components) }
        var curve = TimingCurve.swiftOut
        if let timing = plan.timing { curve = try timing.curve(context: context) }
        timing = plan.timing
        tween = Tween(from: from ?? current?.value ?? .zero, to: to, duration: duration, curve: curve,
                      repeatCount: plan.repeat?.cycles ?? 1, autoreverses: plan.autoreverse ?? false)
        if let velocity = plan.velocity {
            // What the curve does not give at the start is launched (and fades out by the end). The curve's
            // own start velocity is its mean over the first thousandth (`Tween.startVelocity`): its slope
            // at 0 may be 0/0 or vertical.
            let wanted = try vector(velocity, field: "velocity", count: components)
            tween = Tween(from: tween.from, to: to, duration: duration, curve: curve, repeatCount: tween.repeatCount,
                          autoreverses: tween.autoreverses, launch: tween.launch(toStartAt: wanted))
        }
    }

    package var value: SIMD4<Double> { tween.value }
    package var velocity: SIMD4<Double> { tween.velocity }
    package var isFinished: Bool { tween.isFinished }
    package var overrun: Double { tween.overrun }
    package mutating func advance(by dt: Double) { tween.advance(by: dt) }
}
