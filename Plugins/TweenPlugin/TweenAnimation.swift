import MotionAnimation
import MotionPluginKit

/// `{"type":"Tween","property":"opacity","from"?:[0],"to":[1],"duration"?:0.25,
/// "timing"?:"swiftOut"|[a,b,c,d]|{"function":"name","args":[..]}}` (SPEC §3).
struct TweenPlan: AnimationPlan {
    var property: String
    var to: [Double]
    var from: [Double]?
    var duration: Double?
    var timing: TimingSpec?
}

/// The three ways a plan names its timing.
enum TimingSpec: Decodable {
    case preset(String)
    case bezier([Double])
    case function(name: String, arguments: [Double])

    private enum Keys: String, CodingKey { case function, args }

    init(from decoder: any Decoder) throws {
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

    func curve(context: PerformerContext) throws -> TimingCurve {
        switch self {
        case .preset(let name):
            guard let curve = TimingCurve.presets[name] else {
                throw PlanError("timing: unknown preset \"\(name)\"; known: \(TimingCurve.presets.keys.sorted().joined(separator: ", "))")
            }
            return curve
        case .bezier(let points):
            guard points.count == 4, points.allSatisfy(\.isFinite), (0...1).contains(points[0]), (0...1).contains(points[2]) else {
                throw PlanError("timing: expected [x1,y1,x2,y2] with x1 and x2 in [0, 1]")
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
struct TweenAnimation: PropertyAnimation {
    static let planType = "Tween"
    let count: Int
    private var tween: Tween

    init(plan: TweenPlan, current: PropertyState?, context: PerformerContext) throws {
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
        tween = Tween(from: from ?? current?.value ?? .zero, to: to, duration: duration, curve: curve)
    }

    var value: SIMD4<Double> { tween.value }
    var velocity: SIMD4<Double> { tween.velocity }
    var isFinished: Bool { tween.isFinished }
    mutating func advance(by dt: Double) { tween.advance(by: dt) }
}
