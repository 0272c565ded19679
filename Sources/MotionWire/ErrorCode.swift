/// Stable, dotted error codes of protocol v1. Clients match on these; messages are for people.
public enum ErrorCode: String, Sendable, CaseIterable {
    /// The line is not valid UTF-8 JSON, or not a JSON object.
    case parse = "protocol.parse"
    /// The line exceeds the advertised maximum; the connection is closed after this error.
    case tooLarge = "protocol.too_large"
    /// The method is not part of the protocol.
    case unknownMethod = "protocol.unknown_method"
    /// A request other than `hello` arrived before `hello`.
    case helloRequired = "protocol.hello_required"
    /// No `hello` came within the first seconds; the connection is closed after this error.
    case helloTimeout = "protocol.hello_timeout"
    /// A request line did not arrive whole within 10 s of its first byte; the connection is closed after this error.
    case lineTimeout = "protocol.line_timeout"
    /// The client asked for a protocol version this server does not speak.
    case unsupportedVersion = "protocol.unsupported_version"
    /// The client could not keep up with its subscriptions and is disconnected.
    case slowConsumer = "protocol.slow_consumer"
    /// A field is missing or has the wrong type; the message names the field.
    case invalidRequest = "request.invalid"
    /// A documented limit was passed (a plan's size, a list's length); the message names the limit.
    case limitExceeded = "request.limit"
    /// A request with this idempotency key is still being applied (docs/protocol.md#idempotency-keys).
    case requestPending = "request.pending"
    /// The plan's `type` is not registered; the message lists the known types.
    case unknownPlanType = "plan.unknown_type"
    /// The plugin refused the plan; the message is the plugin's.
    case invalidPlan = "plan.invalid"
    /// A theme (`theme.set`, a theme file) is malformed; the message names the token and what is wrong.
    case themeInvalid = "theme.invalid"
    case runtimeNotFound = "runtime.not_found"
    case runtimeExists = "runtime.exists"
    /// The `default` runtime cannot be destroyed.
    case runtimeProtected = "runtime.protected"
    case subscriptionNotFound = "subscription.not_found"
    /// Too many subscriptions on one connection.
    case subscriptionLimit = "subscription.limit"
    /// The method needs the admin role (root or the configured admin group).
    case accessDenied = "access.denied"
    /// The caller's uid holds as much as its quota allows (the message names the quota).
    case quotaExceeded = "quota.exceeded"
    /// `timeline.scrub` on a runtime with no scrubber attached.
    case timelineNotAttached = "timeline.not_attached"
    /// No router is configured for the scheme (`router.configure` first).
    case routerNotFound = "router.not_found"
    /// The destination names a route key the router does not declare; nothing changed.
    case noRoute = "router.no_route"
    /// `route.go` with `mode: "start"` (or `router.configure`) while a transition runs.
    case routerBusy = "router.busy"
    /// The URL or path does not follow the route grammar; the message names the problem.
    case routeMalformed = "route.malformed"
    /// The URL's scheme is not the router's.
    case routeSchemeMismatch = "route.scheme_mismatch"
    /// `up(n=…)` or a pop reaches past the root.
    case routeOutOfRange = "route.out_of_range"
    /// Durable state could not be written; the change was not acknowledged.
    case stateWriteFailed = "state.write_failed"
    /// The connection was refused: too many connections in total or from this user.
    case connectionLimit = "server.connection_limit"
    /// The server is shutting down.
    case shuttingDown = "server.shutting_down"
    /// The system refused what a request needs (a shared-memory region: memory, a mapping or a
    /// descriptor); nothing changed: the same request may succeed later.
    case resourcesExhausted = "server.resources_exhausted"
    /// An unexpected failure inside the daemon.
    case internalError = "server.internal"
}
