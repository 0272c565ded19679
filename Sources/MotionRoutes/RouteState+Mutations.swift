/// Navigator's transition-builder transforms, each returning a new state (`NAVTransitionBuilder`).
extension RouteState {
    /// Appends a component written as in a URL (`show::2`, `!player`). Navigator's `push(nil)` throws.
    package func pushing(_ text: String?) throws(RouteError) -> RouteState {
        guard let text, !text.isEmpty else { throw RouteError(.malformed, "push: a component is required") }
        var next = self
        next.components.append(try RouteScanner.component(text))
        return next
    }

    package func popping(_ count: Int = 1) throws(RouteError) -> RouteState {
        guard count >= 0, count <= components.count else {
            throw RouteError(.outOfRange, "pop(\(count)): the route is only \(components.count) levels deep")
        }
        var next = self
        next.components.removeLast(count)
        return next
    }

    /// Sets the last component's data; does nothing without components.
    package func settingData(_ data: String?) -> RouteState {
        var next = self
        if !next.components.isEmpty { next.components[next.components.count - 1].data = data }
        return next
    }

    package func settingOverlay(_ key: String, _ options: OverlayOptions) -> RouteState {
        var next = self
        next.overlays[key] = options
        return next
    }

    /// `present(key)`: visible and modal (9). `dismiss(key)`: hidden and modal (8).
    package func presenting(_ key: String) -> RouteState { settingOverlay(key, [.visible, .modal]) }
    package func dismissing(_ key: String) -> RouteState { settingOverlay(key, .modal) }
    package func animating(_ key: String, visible: Bool) -> RouteState { settingOverlay(key, visible ? .visible : .hidden) }

    /// `root(key)`: pops everything and pushes `key`; overlays are kept.
    package func rooting(_ text: String) throws(RouteError) -> RouteState {
        try RouteState(components: [], overlays: overlays).pushing(text)
    }

    /// Navigator's `resolve(key)`: back to the *first* component with that key if there is one, else push.
    package func resolving(_ text: String) throws(RouteError) -> RouteState {
        let component = try RouteScanner.component(text)
        guard let index = components.firstIndex(where: { $0.key == component.key }) else {
            return try pushing(text)
        }
        var next = self
        next.components.removeSubrange((index + 1)...)
        return next
    }

    /// Reinstate's navigation-stack rule: back to the *nearest* (top-most) equal component if the stack
    /// holds one, else push it. Going to the component already on top changes nothing.
    package func reinstating(_ component: RouteComponent) -> RouteState {
        var stack = NavigationStack(states: components)
        _ = stack.transition(to: component, equal: { $0.isSameScreen(as: $1) })
        var next = self
        next.components = stack.states
        return next
    }
}
