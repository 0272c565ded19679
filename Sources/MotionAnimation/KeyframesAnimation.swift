import MotionPluginKit

/// `{"type":"Keyframes","property":"x","values":[[0],[1.2],[1]],"keyTimes"?:[0,0.7,1],
/// "timing"?:"ease-out"|[one per segment],"duration"?:0.25,"delay"?,"repeat"?,"autoreverse"?,"velocity"?}` (docs/vocabulary.md):
/// CAKeyframeAnimation's values, keyTimes and timingFunctions. Without `keyTimes` the values are evenly
/// spaced; without `timing` every segment is linear.
package struct KeyframesPlan: AnimationPlan {
    package var property: String
    package var values: [[Double]]
    package var keyTimes: [Double]?
    package var timing: KeyframeTiming?
    package var duration: Double?
    package var delay: Double?
    package var `repeat`: RepeatCount?
    package var autoreverse: Bool?
    /// Its velocity at the start (units per second), beyond which the path takes over (`Tween.launch`): a
    /// theme's retune carries a running Keyframes on with it.
    package var velocity: [Double]?
}

/// One timing function for every segment, or one per segment.
package enum KeyframeTiming: Codable, Sendable {
    case all(TimingSpec)
    case each([TimingSpec])

    package init(from decoder: any Decoder) throws {
        if let one = try? TimingSpec(from: decoder) {
            self = .all(one)
        } else if let each = try? decoder.singleValueContainer().decode([TimingSpec].self) {
            self = .each(each)
        } else {
            throw PlanError("timing: expected a timing function or an array of one per segment")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .all(let one): try one.encode(to: encoder)
        case .each(let each):
            var container = encoder.singleValueContainer()
            try container.encode(each)
        }
    }

    func curves(segments: Int, context: PerformerContext) throws -> [TimingCurve] {
        switch self {
        case .all(let one): return Array(repeating: try one.curve(context: context), count: segments)
        case .each(let each):
            guard each.count == segments else { throw PlanError("timing: \(each.count) timing functions for \(segments) segments") }
            return try each.map { try $0.curve(context: context) }
        }
    }
}

package struct KeyframesAnimation: MigratableAnimation {
    package static let planType = "Keyframes"
    package let count: Int
    private var tween: Tween
    private let plan: KeyframesPlan

    package struct Snapshot: Codable, Sendable {
        var plan: KeyframesPlan
        var elapsed: Double, value: SIMD4<Double>, velocity: SIMD4<Double>
    }

    package var snapshot: Snapshot { Snapshot(plan: plan, elapsed: tween.elapsed, value: tween.value, velocity: tween.velocity) }

    package init(snapshot: Snapshot, context: PerformerContext) throws {
        try self.init(plan: snapshot.plan, current: nil, context: context)
        tween.resume(elapsed: snapshot.elapsed, value: snapshot.value, velocity: snapshot.velocity)
    }

    package init(plan: KeyframesPlan, current: PropertyState?, context: PerformerContext) throws {
        guard plan.values.count >= 2 else { throw PlanError("values: expected at least 2 values") }
        count = plan.values[0].count
        let values = try plan.values.enumerated().map { index, value in try vector(value, field: "values[\(index)]", count: plan.values[0].count, of: "values[0]") }
        let keyTimes = plan.keyTimes ?? values.indices.map { Double($0) / Double(values.count - 1) }
        guard keyTimes.count == values.count else { throw PlanError("keyTimes: expected \(values.count) times, one per value") }
        guard keyTimes.first == 0, keyTimes.last == 1, zip(keyTimes, keyTimes.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw PlanError("keyTimes: expected times that start at 0, end at 1 and never decrease")
        }
        let curves = try plan.timing?.curves(segments: values.count - 1, context: context)
            ?? Array(repeating: .linear, count: values.count - 1)
        let duration = try parameter(plan.duration, field: "duration", default: 0.25, in: 0...3600)
        self.plan = plan
        let path = Keyframes(values: values, keyTimes: keyTimes, curves: curves)
        tween = Tween(from: values[0], to: values[values.count - 1], duration: duration, curve: .linear,
                      repeatCount: plan.repeat?.cycles ?? 1, autoreverses: plan.autoreverse ?? false, keyframes: path)
        if let velocity = plan.velocity {
            // As a Tween's: what the path does not give at the start is launched (`Tween.startVelocity`).
            let wanted = try vector(velocity, field: "velocity", count: count, of: "values[0]")
            tween = Tween(from: values[0], to: values[values.count - 1], duration: duration, curve: .linear,
                          repeatCount: tween.repeatCount, autoreverses: tween.autoreverses, keyframes: path,
                          launch: tween.launch(toStartAt: wanted))
        }
    }

    package var value: SIMD4<Double> { tween.value }
    package var velocity: SIMD4<Double> { tween.velocity }
    package var isFinished: Bool { tween.isFinished }
    package var overrun: Double { tween.overrun }
    package mutating func advance(by dt: Double) { tween.advance(by: dt) }
}

extension KeyframesPlan: Codable, Sendable {}
