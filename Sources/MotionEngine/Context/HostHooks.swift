import MotionWire

/// What the daemon lends the engine thread, set once at start (`MotionDaemon`). All nil (tests, tools):
/// blocking work runs inline and nothing is handed to another thread.
package struct HostHooks: Sendable {
    /// `plugins.reload`: hands the request to the plugin manager, which answers through `reply` on the
    /// engine thread once the files are probed and swapped.
    package var reloadPlugins: (@Sendable (_ id: String?, _ reply: @escaping @Sendable (EngineContext, JSONValue) -> Void) -> Void)?
    /// Runs blocking work (durable saves) on another thread; `onEngineThread` brings its answer back.
    package var offload: (@Sendable (_ work: @escaping @Sendable () -> Void) -> Void)?
    package var onEngineThread: (@Sendable (_ body: @escaping @Sendable (EngineContext) -> Void) -> Void)?
    /// `onEngineThread` for work done for a connection of `uid` (nil: credentials unknown), a dry run's
    /// next slice: it waits in that uid's lane, taking turns with other uids' requests; `first`: before
    /// that lane's waiting requests (a journal group's next slice: everyone's changes wait on it, not
    /// that uid's backlog).
    package var onEngineThreadFor: (@Sendable (_ uid: UInt32?, _ first: Bool, _ body: @escaping @Sendable (EngineContext) -> Void) -> Void)?

    /// A large amount of memory was just freed (the last destroyed runtime's): the host returns freed
    /// pages to the system, off the engine thread.
    package var memoryFreed: (@Sendable () -> Void)?
    /// An admin set speed or reduce motion live (`settings.set`): the host keeps them across restarts,
    /// then calls `kept` on the engine thread (the reply waits for it).
    package var settingsSet: (@Sendable (_ speed: Double, _ reduceMotion: Bool,
                                         _ kept: @escaping @Sendable (EngineContext) -> Void) -> Void)?
    /// `metrics`: the Prometheus text, rendered by the host's registry (`uid` nil: every uid's series;
    /// otherwise that uid's only).
    package var metricsText: (@Sendable (_ context: EngineContext, _ uid: UInt32?) -> String)?
    /// `theme.set`: the host keeps the system theme (`uid` nil) or a uid's overlay (`theme` nil: removed)
    /// in the state directory, then calls `kept` on the engine thread.
    package var themeSet: (@Sendable (_ uid: UInt32?, _ theme: JSONValue?, _ kept: @escaping @Sendable (EngineContext) -> Void) -> Void)?

    package init() {}
}
