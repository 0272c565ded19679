/// One step of a transition, as `route.diff` returns it and `route.update` reports it.
public struct RouteUpdate: Sendable, Equatable {
    public enum Operation: String, Sendable, CaseIterable {
        case hide, replace, pop, push, present, select, show
    }

    public var op: Operation
    public var key: String
    /// The component this update adds or names (`replace`, `pop`, `push`, `present`, `select`).
    public var component: RouteComponent?
    /// For `pop`: how many components stay.
    public var depth: Int?
    /// For `hide` and `show`: the overlay's options in the destination (hidden when it has none).
    public var options: OverlayOptions?

    public init(op: Operation, key: String, component: RouteComponent? = nil, depth: Int? = nil,
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
