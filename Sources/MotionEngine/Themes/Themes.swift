import MotionSchema
import MotionWire

/// Motion themes (docs/themes.md): the system theme every program's plans resolve their `@name`
/// tokens in, and each uid's overlay, whose tokens win for that uid's runtimes only. `theme.set` changes
/// them live (`theme.changed`); the host keeps both in the state directory.
package final class Themes: ContextPart {
    unowned let context: EngineContext
    package private(set) var system: Theme
    /// Where the system theme came from: `shipped` or the file or request that set it.
    package private(set) var systemOrigin = "shipped"
    package private(set) var overlays: [UInt32: Theme] = [:]
    /// The config's theme (or `motiond`): what `theme.set {theme: null}` goes back to.
    private(set) var configured: Theme
    private(set) var configuredOrigin = "shipped"
    /// Running plans that used tokens, by property (`Themes+Retune`), how many per uid, and the last
    /// generation given.
    var tuned: [String: Tuned] = [:]
    var tunedPerUID: [UInt32: Int] = [:]
    var tunedGeneration: UInt64 = 0
    /// Retunes under way, worked in slices (`Themes+Retune`), and the last one's number.
    var retunes: [UInt64: Retune] = [:]
    var retuneID: UInt64 = 0

    init(context: EngineContext) {
        self.context = context
        system = context.engine.vocabulary.baseTheme
        configured = system
    }

    /// The shipped themes by name (docs/themes.md): the vocabulary's.
    var shipped: [String: Theme] { engine.vocabulary.themes }

    /// The token `name` of `kind` as `uid` sees it: its overlay's, else the system's.
    func token(_ kind: Theme.Kind, _ name: String, for uid: UInt32?) -> (value: JSONValue, origin: String)? {
        if let uid, let value = overlays[uid]?[kind, name] { return (value, "user") }
        if let value = system[kind, name] { return (value, "system") }
        // Routes' springs always exist: a theme without them has motiond's (`TransitionPlans.themed`).
        if kind == .springs, name.hasPrefix("route."), let value = engine.vocabulary.baseTheme[kind, name] { return (value, engine.vocabulary.baseTheme.name) }
        return nil
    }

    /// `plan` with its `@name` references replaced by the tokens `uid` sees (`TokenResolution`); the
    /// tokens it used. A plan without references comes back as it is, at the cost of one walk.
    func resolve(_ plan: JSONValue, for uid: UInt32?) throws(EngineError) -> (plan: JSONValue, used: Set<String>) {
        guard Self.mayRefer(plan) else { return (plan, []) }
        let engine = self.engine
        var resolution = TokenResolution(
            lookup: { [unowned self] kind, name in token(kind, name, for: uid)?.value },
            known: { [unowned self] kind in Array(Set(system.names(kind) + (uid.flatMap { overlays[$0]?.names(kind) } ?? []))) },
            takesKey: { type, key in engine.planType(type, takes: key) })
        let resolved = try resolution.resolve(plan)
        // Tokens fill a plan in: held to a plan's size as resolved (a small plan naming a large token
        // many times is not a way past it).
        try EngineContext.checkSize(of: resolved)
        return (resolved, resolution.used)
    }

    /// Whether a plan holds a string starting with `@` anywhere (most plans do not: no resolution).
    static func mayRefer(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): text.hasPrefix("@")
        case .object(let members): members.values.contains(where: mayRefer)
        case .array(let elements): elements.contains(where: mayRefer)
        default: false
        }
    }

    /// The system theme and overlays as the host read them from the state directory or the config.
    package func restore(system: Theme?, origin: String, overlays: [UInt32: Theme], configured: Theme? = nil, configuredOrigin: String = "shipped") {
        if let configured { (self.configured, self.configuredOrigin) = (configured, configuredOrigin) }
        if let system { (self.system, systemOrigin) = (system, origin) }
        self.overlays = overlays
    }

    // MARK: Requests

    /// `theme.get {scope?}`: the effective tokens (default), the system's or the caller's overlay's,
    /// each `{value, origin}`.
    func get(_ params: Params, in session: Session) throws(EngineError) -> JSONValue {
        // `{shipped: name}`: that shipped theme as a theme file holds it.
        if let name = try params.optionalName("shipped") {
            guard let theme = shipped[name] else {
                throw EngineError(.themeInvalid, "shipped: \"\(name)\" is not a shipped theme (shipped: \(shipped.keys.sorted().joined(separator: ", ")))")
            }
            return theme.json
        }
        let scope = try params.optionalName("scope") ?? "effective"
        guard ["effective", "system", "user"].contains(scope) else {
            throw EngineError(.invalidRequest, "scope: expected \"effective\", \"system\" or \"user\"")
        }
        var groups: [String: JSONValue] = [:]
        for kind in Theme.Kind.allCases {
            var entries: [String: JSONValue] = [:]
            if scope != "user" {
                for name in system.names(kind) { entries[name] = ["value": system[kind, name]!, "origin": "system"] }
            }
            if scope != "system", let overlay = overlays[session.uid] {
                for name in overlay.names(kind) { entries[name] = ["value": overlay[kind, name]!, "origin": "user"] }
            }
            groups[kind.rawValue] = .object(entries)
        }
        var result: JSONValue = ["scope": .string(scope), "system": .string(system.name), "systemOrigin": .string(systemOrigin),
                                 "tokens": .object(groups), "shipped": .array(shipped.keys.sorted().map { .string($0) })]
        if let overlay = overlays[session.uid] { result["user"] = .string(overlay.name) }
        return result
    }

    /// `theme.set {theme, scope?}`: a shipped theme's name or a theme object; `scope: "user"` sets the
    /// caller's overlay (`theme: null` removes it), otherwise the system theme (an admin's). Kept before
    /// the reply; `theme.changed {scope, uid?, tokens}` names the tokens whose values changed.
    func set(_ params: Params, request: Request, in session: Session) throws(EngineError) -> JSONValue? {
        let scope = try params.optionalName("scope") ?? "system"
        guard scope == "system" || scope == "user" else { throw EngineError(.invalidRequest, "scope: expected \"system\" or \"user\"") }
        if scope == "system", session.role != .admin {
            throw EngineError(.accessDenied, "theme.set of the system theme is for root and the admin group; scope \"user\" sets your own overlay")
        }
        let next: Theme?
        switch params["theme"] {
        case .string(let name)?:
            guard let named = shipped[name] else {
                let hint = KeySuggestion.closest(to: name, in: shipped.keys).map { "; did you mean \($0)?" } ?? ""
                throw EngineError(.themeInvalid, "theme: \"\(name)\" is not a shipped theme\(hint) (shipped: \(shipped.keys.sorted().joined(separator: ", ")))")
            }
            next = named
        case .object?:
            let theme = try Theme(json: params["theme"]!)
            try checkUses(of: theme)
            try checkReferences(of: theme, overlaying: scope == "user")
            next = theme
        case .null?: next = scope == "user" ? nil : configured
        default: throw EngineError(.invalidRequest, "theme: expected a shipped theme's name, a theme object, or null (\(scope == "user" ? "to remove your overlay" : "back to the config's theme"))")
        }
        let uid = session.uid
        if scope == "user", let next, next.count > settings.quotas.themeTokens {
            throw EngineError(.quotaExceeded, "quota themeTokens: the overlay holds \(next.count) tokens; uid \(uid) may hold \(settings.quotas.themeTokens) (its quota; see the config file's quotas)")
        }
        let before = scope == "system" ? system : overlays[uid] ?? Theme(name: "none")
        let after = next ?? Theme(name: "none")
        if scope == "system" {
            (system, systemOrigin) = params["theme"] == .null ? (configured, configuredOrigin)
                : (after, params["theme"]?.stringValue == nil ? "theme.set" : "shipped")
        } else {
            overlays[uid] = next
        }
        let changed = Self.changedTokens(before, after)
        var fields: [String: JSONValue] = ["scope": .string(scope), "tokens": .array(changed.map { .string($0) })]
        if scope == "user" { fields["uid"] = .number(Double(uid)) }
        // An overlay's change is that uid's business (and its admins'): traced as its default runtime's.
        engine.trace(TraceEvent(kind: "theme.changed", runtime: scope == "user" ? OwnedName.key(uid, Engine.defaultRuntime) : nil, fields: fields))
        if !changed.isEmpty { retune(uid: scope == "user" ? uid : nil, lane: uid) }
        let result: JSONValue = ["scope": .string(scope), "theme": .string(after.name), "changed": .array(changed.map { .string($0) })]
        guard let keep = hooks.themeSet else { return result }
        let requestID = request.id, sessionID = session.id
        session.owedReplies += 1
        // A system theme set back to the config's is no longer kept (the config's applies at a start).
        keep(scope == "user" ? uid : nil, params["theme"] == .null ? nil : next?.json) { context in
            context.sessions[sessionID]?.sendOwedReply(WireMessage.result(id: requestID, result))
        }
        return nil
    }

    /// `kind.name` of every token whose value differs between two themes (added and removed ones too).
    static func changedTokens(_ before: Theme, _ after: Theme) -> [String] {
        var changed: [String] = []
        for kind in Theme.Kind.allCases {
            for name in Set(before.names(kind) + after.names(kind)) where before[kind, name] != after[kind, name] {
                changed.append("\(kind.rawValue).\(name)")
            }
        }
        return changed.sorted()
    }
}
