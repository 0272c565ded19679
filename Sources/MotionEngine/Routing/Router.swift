import DequeModule
import MotionRoutes
import MotionWire

/// One scheme's router on the engine thread: its routes, where it is, the transition it performs and the
/// ones queued behind it.
package final class Router {
    typealias Reply = (Result<JSONValue, EngineError>) -> Void

    /// A `route.go` waiting for its turn. It is resolved when it starts, against the state of that moment.
    struct Request {
        var to: String
        var animated: Bool
        var reuse: Bool
        /// False records the destination without performing updates: the UI already moved there
        /// (Navigator's back-button sync and `forceUrl`; `scheme://` is its `reset`).
        var perform = true
        var reply: Reply
    }

    static let runtimePrefix = EngineContext.reservedRuntimePrefix + "route."
    static let maximumQueue = 256

    let scheme: String
    /// The uid that configured it (docs/protocol.md#ownership-and-quotas); other uids do not see it.
    let owner: UInt32
    var configuration: RouterConfiguration
    var state: RouteState
    var running: RouteTransition?
    /// What was wrong with it when it was restored (plan types not loaded, a URL that no longer parses);
    /// shown by `route.state` until it is configured again.
    var problems: [String] = []
    var queue: Deque<Request> = []
    /// The plans of its transition's phase still to be added, and the errors of those added so far: a
    /// phase is added in slices (`Routers.drive`).
    var phaseLeft: ArraySlice<(target: String, plan: JSONValue)> = []
    var phaseErrors: [String] = []
    /// The next slice of its transition waits in its owner's lane for the engine thread.
    var continues = false

    init(scheme: String, owner: UInt32, configuration: RouterConfiguration, state: RouteState = RouteState()) {
        self.scheme = scheme
        self.owner = owner
        self.configuration = configuration
        self.state = state
    }

    /// Its key among every uid's routers (`OwnedName`).
    var key: String { OwnedName.key(owner, scheme) }
    /// The runtime whose screens this router animates (its owner's); its going idle completes an update.
    var runtime: String { OwnedName.key(owner, Self.runtimePrefix + scheme) }
    /// Bytes of state it keeps (configuration and URL, as saved), counted against the `stateBytes` quota.
    var stateBytes: Int { JSONWriter.bytes(configuration.json).count + url.utf8.count }
    var url: String { state.url(scheme: scheme) }
    var isBusy: Bool { running != nil || !queue.isEmpty }

    /// Where `text` leads from the current state: a URL of this scheme, a DeepTransition path, or with
    /// `reuse` one component that Reinstate's rule pops back to or pushes. Every key must be a declared
    /// route; a plain `/` takes the route's own kind (a modal route is presented).
    func destination(for text: String, reuse: Bool) throws(EngineError) -> RouteState {
        var destination: RouteState
        do throws(RouteError) {
            if reuse {
                destination = state.reinstating(try RouteComponent(parsing: text))
            } else if RouteURL.looksAbsolute(text) {
                let url = try RouteURL(parsing: text)
                guard url.scheme == scheme else {
                    throw RouteError(.schemeMismatch, "\(url.scheme):// sent to the router of \(scheme)://")
                }
                destination = url.state
            } else {
                destination = try RoutePath.resolve(text, from: state)
            }
        } catch {
            throw EngineError(routeError: error)
        }
        for index in destination.components.indices {
            let key = destination.components[index].key
            guard let route = configuration.routes[key], let segue = route.kind.defaultSegue else {
                throw noRoute(key, "a screen")
            }
            if destination.components[index].segue == .push { destination.components[index].segue = segue }
        }
        for (key, options) in destination.overlays where options.isVisible && configuration.routes[key] == nil {
            throw noRoute(key, "an overlay")
        }
        return destination
    }

    private func noRoute(_ key: String, _ role: String) -> EngineError {
        let known = configuration.routes.keys.sorted().joined(separator: ", ")
        return EngineError(.noRoute, "\"\(key)\" is not \(role) route of \(scheme):// (declared: \(known))")
    }
}

extension EngineError {
    init(routeError: RouteError) {
        let code: ErrorCode = switch routeError.code {
        case .malformed: .routeMalformed
        case .schemeMismatch: .routeSchemeMismatch
        case .outOfRange: .routeOutOfRange
        }
        self.init(code, routeError.message)
    }
}
