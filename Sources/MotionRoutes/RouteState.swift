/// Where a router is: the ordered components on screen and the overlays with their options.
///
/// Two states are equal when their canonical forms are: hidden overlays are kept (a hide update carries
/// their options) but are not part of the canonical form, so they never make two states differ.
package struct RouteState: Sendable, CustomStringConvertible {
    package var components: [RouteComponent]
    package var overlays: [String: OverlayOptions]

    package init(components: [RouteComponent] = [], overlays: [String: OverlayOptions] = [:]) {
        self.components = components
        self.overlays = overlays
    }

    /// Everything after `scheme://`: components, then `?` and the visible overlays sorted by key.
    package var canonicalPath: String {
        var text = ""
        for (index, component) in components.enumerated() {
            text += component.serialized(isRoot: index == 0)
        }
        let visible = overlays.filter { $0.value.isVisible }.sorted { $0.key < $1.key }
        if !visible.isEmpty {
            text += "?" + visible.map { "\($0.key)=\($0.value.letters)" }.joined(separator: "&")
        }
        return text
    }

    /// The canonical URL: `scheme://` + `canonicalPath`.
    package func url(scheme: String) -> String { scheme + "://" + canonicalPath }

    package var description: String { canonicalPath }

    /// The same state without hidden overlays: what a router keeps once a transition has completed.
    package var normalized: RouteState {
        RouteState(components: components, overlays: overlays.filter { $0.value.isVisible })
    }
}

extension RouteState: Hashable {
    package static func == (lhs: RouteState, rhs: RouteState) -> Bool { lhs.canonicalPath == rhs.canonicalPath }
    package func hash(into hasher: inout Hasher) { hasher.combine(canonicalPath) }
}
