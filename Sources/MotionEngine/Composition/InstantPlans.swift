import MotionWire

/// When plans complete at once (docs/vocabulary.md): never, under reduce motion (every plan not marked
/// `"essential": true`), or at speed 0 (every plan).
package enum InstantMotion: Sendable, Equatable {
    case off
    case reduceMotion
    case all
}

/// A plan's counterpart that finishes at once with the values it would end with.
enum InstantPlans {
    /// The same plan type, so the end is traced as usual (`animation.ended` `finished`): a tween or
    /// keyframes of no duration, a spring that starts at its `to` at rest, a decay that starts where it
    /// would come to rest (`current` is the property's value, for a decay without `from`). Plans of
    /// other types are kept as they are.
    static func instant(_ plan: JSONValue, current: [Double]? = nil) -> JSONValue {
        var instant = plan
        instant["delay"] = nil
        switch plan["type"]?.stringValue {
        case "Tween", "Keyframes":
            instant["duration"] = 0
            return instant
        case "Spring":
            guard let to = plan["to"]?.arrayValue else { return plan }
            instant["from"] = .array(to)
            instant["velocity"] = .array(to.map { _ in 0 })
            return instant
        case "Decay":
            // a = −drag·v comes to rest v/drag further on.
            guard let velocity = plan["velocity"]?.arrayValue?.compactMap(\.doubleValue) else { return plan }
            let drag = plan["drag"]?.doubleValue ?? 3
            let start = plan["from"]?.arrayValue?.compactMap(\.doubleValue) ?? current ?? []
            let rest = velocity.indices.map { index in (index < start.count ? start[index] : 0) + velocity[index] / drag }
            instant["from"] = .array(rest.map(JSONValue.number))
            instant["velocity"] = .array(velocity.map { _ in 0 })
            return instant
        default:
            return plan
        }
    }
}
