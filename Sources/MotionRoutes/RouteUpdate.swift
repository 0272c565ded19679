/// One step of a transition, as `route.diff` returns it and `route.update` reports it.
package struct RouteUpdate: Sendable, Equatable {
    package enum Operation: String, Sendable, CaseIterable {
        case hide, replace, pop, push, present, select, show
    }

    package var op: Operation
    package var key: String
    /// The component this update adds or names (`replace`, `pop`, `push`, `present`, `select`).
    package var component: RouteComponent?
    /// For `pop`: how many components stay.
    package var depth: Int?
    /// For `hide` and `show`: the overlay's options in the destination (hidden when it has none).
    package var options: OverlayOptions?

    package init(op: Operation, key: String, component: RouteComponent? = nil, depth: Int? = nil,
                options: OverlayOptions? = nil) {
        self.op = op
        self.key = key
        self.component = component
        self.depth = depth
        self.options = options
    }

    static func adding(_ component: RouteComponent) -> RouteUpdate {
        let op: Operation = switch component.segue {
        case .push: .push
        case .modal: .present
        case .tab: .select
        }
        return RouteUpdate(op: op, key: component.key, component: component)
    }
}
