import MotionSchema
import MotionWire

/// The params each protocol v1 method takes (docs/protocol.md). Any other key is refused with
/// `request.invalid` before the method runs, as plans' unknown keys are (docs/vocabulary.md): a misspelled option
/// (`"target"` for `"targets"`, `"ephemral"`) changes nothing instead of being ignored.
enum MethodKeys {
    static let known: [String: Set<String>] = [
        "hello": ["protocol", "client"],
        "plan.add": ["target", "targets", "plan", "runtime", "name", "stagger"],
        "plan.remove": ["target", "name", "runtime"],
        "plan.sample": ["plan", "times", "property", "gestures", "applySettings"],
        "runtime.create": ["name", "ephemeral", "shared"],
        "runtime.destroy": ["name"],
        "runtime.state": ["runtime", "limit", "after"],
        "runtime.speed": ["runtime", "speed"],
        "timeline.attach": ["runtime", "offset"],
        "timeline.scrub": ["runtime", "offset"],
        "timeline.detach": ["runtime"],
        "subscribe": ["streams", "runtime", "targets", "maxRate", "display", "transport", "slots"],
        "display.sync": ["sub", "vblank", "period"],
        "unsubscribe": ["sub"],
        "gesture.push": ["gesture", "samples", "runtime"],
        "gesture.velocity": ["samples"],
        "router.configure": ["scheme", "routes", "transitions"],
        "router.remove": ["scheme"],
        "route.go": ["scheme", "to", "mode", "animated", "reuse", "perform"],
        "route.diff": ["scheme", "from", "to"],
        "route.resolve": ["scheme", "path", "from"],
        "route.state": ["scheme"],
        "plugins.list": [],
        "theme.get": ["scope", "shipped"],
        "metrics": [],
        "theme.set": ["theme", "scope"],
        "plugins.reload": ["id"],
        "status": ["clients"],
        "settings.set": ["speed", "reduceMotion"],
        "sync": [],
    ]

    /// Throws for the first key (in sorted order) that `method` does not take; unknown methods pass
    /// (dispatch answers them with `protocol.unknown_method`).
    static func check(_ method: String, _ params: Params) throws(EngineError) {
        guard let keys = known[method] else { return }
        for key in params.members.keys.sorted() where !keys.contains(key) {
            let hint = KeySuggestion.closest(to: key, in: keys).map { "; did you mean \($0)?" } ?? ""
            let list = keys.isEmpty ? "it takes no params" : "known: " + keys.sorted().joined(separator: ", ")
            throw EngineError(.invalidRequest, "\(key): unknown key for \(method) (\(list))\(hint)")
        }
    }
}
