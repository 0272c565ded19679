import MotionRoutes
import MotionWire

/// Route values as the protocol writes them (docs/routes.md).
extension RouteComponent {
    var json: JSONValue {
        ["key": .string(key), "data": data.map(JSONValue.string) ?? .null, "segue": .string(segue.rawValue),
         "params": .object(params.mapValues(JSONValue.string))]
    }
}

extension RouteUpdate {
    /// `{op, key, data?, params?, depth?, options?}`: component updates carry `data` (null when the
    /// component has none) and `params` when it has some; `pop` its `depth`; `show`/`hide` the overlay's
    /// option bitmask.
    var json: JSONValue {
        var members: [String: JSONValue] = ["op": .string(op.rawValue), "key": .string(key)]
        if let component {
            members["data"] = component.data.map(JSONValue.string) ?? .null
            if !component.params.isEmpty { members["params"] = .object(component.params.mapValues(JSONValue.string)) }
            if op != .pop { members["segue"] = .string(component.segue.rawValue) }
        }
        if let depth { members["depth"] = .number(Double(depth)) }
        if let options { members["options"] = .number(Double(options.rawValue)) }
        return .object(members)
    }
}

extension RouteState {
    func json(scheme: String) -> JSONValue {
        [
            "url": .string(url(scheme: scheme)), "components": .array(components.map(\.json)),
            "overlays": .object(overlays.filter { $0.value.isVisible }.mapValues { .string($0.letters) }),
        ]
    }
}
