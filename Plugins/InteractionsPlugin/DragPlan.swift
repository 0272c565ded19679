import MotionPluginKit

/// `{"property":"position","gesture":"finger","axis"?:"x"|"y"|"both","bounds"?:{"min":[..],"max":[..]},
/// "rubberBand"?:0.55}`: what `Draggable` and `Tossable` share.
struct DragPlan: Decodable {
    var property: String
    var gesture: String
    var axis: String?
    var bounds: Bounds?
    var rubberBand: Double?

    struct Bounds: Decodable {
        var min: [Double]
        var max: [Double]
    }

    static let schema: [String: PlanSchema] = [
        "property": PlanSchema.string().described("The property of the target the pointer moves."),
        "gesture": PlanSchema.string().described("The gesture of this runtime it follows (`gesture.push`)."),
        "axis": PlanSchema.string(oneOf: ["x", "y", "both"]).described("Which of the pointer's axes move it (default both)."),
        "bounds": PlanSchema.object(["min": .vector, "max": .vector], required: ["min", "max"])
            .described("Past these the property is rubber-banded (UIScrollView's curve)."),
        "rubberBand": PlanSchema.number(minimum: 0, maximum: 10).described("The rubber band's constant c (default 0.55)."),
    ]
}

/// How a pointer's translation moves a property: which axes, within which bounds, with UIScrollView's
/// rubber band past them.
struct DragRule {
    var axis: String
    var minimum: SIMD4<Double>?
    var maximum: SIMD4<Double>?
    var rubberBand: Double

    init(_ plan: DragPlan) throws {
        axis = plan.axis ?? "both"
        rubberBand = plan.rubberBand ?? 0.55
        if let bounds = plan.bounds {
            guard bounds.min.count == bounds.max.count, (1...4).contains(bounds.min.count),
                  zip(bounds.min, bounds.max).allSatisfy({ $0.isFinite && $1.isFinite && $0 <= $1 }) else {
                throw PlanError("bounds: expected min and max of the same length, min ≤ max")
            }
            var minimum = SIMD4<Double>(repeating: -.infinity), maximum = SIMD4<Double>(repeating: .infinity)
            for index in bounds.min.indices {
                minimum[index] = bounds.min[index]
                maximum[index] = bounds.max[index]
            }
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// The pointer's 2-D vector as the property's components: on a 1-component property the chosen axis
    /// (x unless `axis` is "y"); on larger ones x to component 0 and y to component 1, each if chosen.
    func mapped(_ vector: SIMD2<Double>, components: Int) -> SIMD4<Double> {
        var result = SIMD4<Double>()
        if components == 1 {
            result[0] = axis == "y" ? vector.y : vector.x
        } else {
            if axis != "y" { result[0] = vector.x }
            if axis != "x" { result[1] = vector.y }
        }
        return result
    }

    /// `value` with UIScrollView's rubber band past each bound: past it by d, it shows
    /// bound ± (1 − 1/(d·c/D + 1))·D (c = rubberBand, D = max − min on that axis).
    func banded(_ value: SIMD4<Double>) -> SIMD4<Double> {
        guard let minimum, let maximum else { return value }
        var result = value
        for index in 0..<4 where minimum[index].isFinite {
            let dimension = max(maximum[index] - minimum[index], 1e-9)
            if value[index] > maximum[index] {
                result[index] = maximum[index] + band(value[index] - maximum[index], dimension)
            } else if value[index] < minimum[index] {
                result[index] = minimum[index] - band(minimum[index] - value[index], dimension)
            }
        }
        return result
    }

    private func band(_ distance: Double, _ dimension: Double) -> Double {
        (1 - 1 / (distance * rubberBand / dimension + 1)) * dimension
    }

    func clamped(_ value: SIMD4<Double>) -> SIMD4<Double> {
        guard let minimum, let maximum else { return value }
        return value.clamped(lowerBound: minimum, upperBound: maximum)
    }
}
