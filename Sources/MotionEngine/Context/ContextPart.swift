import Logging

/// A concept the `EngineContext` holds (the journal, the routers, plugin installs, dry runs, display
/// frames, …). It owns its own state and reaches the others only through its coordinator: these are the
/// coordinator's members every concept may use.
protocol ContextPart {
    var context: EngineContext { get }
}

extension ContextPart {
    var engine: Engine { context.engine }
    var hub: SubscriptionHub { context.hub }
    var sessions: SessionTable { context.sessions }
    var settings: EngineSettings { context.settings }
    var logger: Logger { context.logger }
    var clock: EventClock { context.clock }
    var hooks: HostHooks { context.hooks }
    /// Seconds since the daemon started: the `t` of every event.
    var time: Double { context.time }
}
