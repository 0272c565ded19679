/// The updates that take a router from one state to another (docs/routes.md), in this order: hide the overlays
/// that stop being visible; one removal back to the first divergent component (`replace` when that is
/// the root, else `pop` with the number of components kept); one `push`/`present`/`select` per new
/// component; show the overlays that become visible. Overlays go in key order.
///
/// Unlike Navigator, a destination with no components pops to the root (`pop` with depth 0) instead of
/// yielding no updates.
package enum RouteDiff {
    package static func updates(from source: RouteState, to destination: RouteState) -> [RouteUpdate] {
        var updates: [RouteUpdate] = []
        let keys = Set(source.overlays.keys).union(destination.overlays.keys).sorted()
        for key in keys where isVisible(key, in: source) && !isVisible(key, in: destination) {
            updates.append(RouteUpdate(op: .hide, key: key, options: destination.overlays[key] ?? .hidden))
        }
        let old = source.components, new = destination.components
        let divergence = old.indices.first { index in
            index >= new.count || !old[index].isSameScreen(as: new[index])
        } ?? old.count
        if divergence == 0, let root = new.first {
            updates.append(RouteUpdate(op: .replace, key: root.key, component: root))
        } else if divergence < old.count {
            updates.append(RouteUpdate(op: .pop, key: old[divergence].key, component: old[divergence], depth: divergence))
        }
        let firstAdded = divergence == 0 ? 1 : divergence
        if firstAdded < new.count {
            updates += new[firstAdded...].map(RouteUpdate.adding)
        }
        for key in destination.overlays.keys.sorted() where isVisible(key, in: destination) && !isVisible(key, in: source) {
            updates.append(RouteUpdate(op: .show, key: key, options: destination.overlays[key]))
        }
        return updates
    }

    private static func isVisible(_ key: String, in state: RouteState) -> Bool {
        state.overlays[key]?.isVisible ?? false
    }
}

extension RouteState {
    /// The state after one update of a diff.
    package func applying(_ update: RouteUpdate) -> RouteState {
        var next = self
        switch update.op {
        case .hide, .show: next.overlays[update.key] = update.options
        case .replace: next.components = update.component.map { [$0] } ?? []
        case .pop: next.components = Array(components.prefix(update.depth ?? 0))
        case .push, .present, .select: if let component = update.component { next.components.append(component) }
        }
        return next
    }
}
