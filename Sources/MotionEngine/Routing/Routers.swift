import Logging
import MotionRoutes
import MotionWire

/// Every uid's routers (docs/routes.md), by `OwnedName` key: their configuration and state, where they
/// are saved, and the transitions they perform (`Routers+Requests`, `Routers+Transitions`,
/// `Routers+Screens`, `Routers+Restore`). Each transition is a `RouteTransition`, a state machine that
/// takes time as a parameter and returns actions; this type carries them out.
///
/// Owned by the `EngineContext`, on the engine thread.
package final class Routers: ContextPart {
    unowned let context: EngineContext
    /// Routers by `OwnedName` key.
    package internal(set) var all: [String: Router] = [:]
    /// Where routers are saved (nil without `--state-dir`: in memory only).
    var store: (any RouterStorage)?
    var nextTransitionID: UInt64 = 0
    /// Routers whose `router.configure` is being saved: busy until it is applied.
    var configuringSchemes: Set<String> = []

    init(context: EngineContext) {
        self.context = context
    }

    /// Some transition waits for its runtime to come to rest: the clock keeps ticking for it.
    var isWaiting: Bool { all.values.contains { $0.running?.isWaitingForRuntime == true } }
}
