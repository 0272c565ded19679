import MotionWire

/// Who may read and change what (docs/protocol.md#ownership-and-quotas): a client reaches its own uid's runtimes by their plain names
/// (`default` is its own), another uid's as `<uid>/<name>` only where that one is shared (to read) or the
/// client is an admin. Anything else is answered as if it did not exist.
extension EngineContext {
    enum Access {
        case read
        case change
        /// Subscribing: the caller's own runtimes may not exist yet (the filter waits for them).
        case subscribe
        /// Pausing, scrubbing or slowing (timeline.*, runtime.speed): a change of pace, not of content, so
        /// also allowed on the runtime of the caller's own router (its route transitions, docs/routes.md).
        case pace
    }

    /// Whether `access` may not touch `plain`, a runtime name in the caller's namespace, because the
    /// daemon keeps it (its own routers' runtimes are open to `pace`).
    private func isProtected(_ plain: Substring, for access: Access) -> Bool {
        guard plain.hasPrefix(Self.reservedRuntimePrefix) else { return false }
        switch access {
        case .change: return true
        case .pace: return !plain.hasPrefix(Router.runtimePrefix)
        case .read, .subscribe: return false
        }
    }

    /// The key (`OwnedName`) of the runtime `name` (nil: `default`) as `session` may reach it for
    /// `access`, or `runtime.not_found` / `runtime.protected`.
    func runtimeKey(_ name: String?, for session: Session, _ access: Access) throws(EngineError) -> String {
        let name = name ?? Engine.defaultRuntime
        let (owner, plain) = OwnedName.ownerPrefix(of: name) ?? (session.uid, name[...])
        let key = OwnedName.key(owner, plain)
        if owner == session.uid, plain == Engine.defaultRuntime, engine.runtimes[key] == nil {
            // Every uid has its own default; it comes into being when first used.
            guard (engine.usage[owner]?.runtimes ?? 0) < settings.quotas.runtimes else { throw quotaExceeded("runtimes", owner) }
            try engine.createRuntime(key)
        }
        if access == .subscribe, owner == session.uid { return key }
        // Created by a request of this uid still being journaled: later changes queue behind it.
        if owner == session.uid, engine.runtimes[key] == nil, journal.pendingCreates[key] != nil {
            if isProtected(plain, for: access) {
                throw EngineError(.runtimeProtected, "runtime: \"\(name)\" belongs to the daemon")
            }
            return key
        }
        guard let scope = engine.runtimes[key],
            owner == session.uid || session.role == .admin || (access != .change && access != .pace && scope.isShared)
        else {
            throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(name)\"")
        }
        if isProtected(plain, for: access) {
            throw EngineError(.runtimeProtected, "runtime: \"\(name)\" belongs to the daemon")
        }
        return key
    }

    /// A new runtime's key in the caller's namespace (`runtime.create`).
    func newRuntimeKey(_ name: String, for session: Session) throws(EngineError) -> String {
        guard !name.hasPrefix(Self.reservedRuntimePrefix) else {
            throw EngineError(.invalidRequest, "name: runtime names starting with \"\(Self.reservedRuntimePrefix)\" are reserved")
        }
        guard OwnedName.ownerPrefix(of: name) == nil else {
            throw EngineError(.invalidRequest, "name: \"<uid>/<name>\" names another uid's runtime; choose a name that does not start with digits and '/'")
        }
        let key = OwnedName.key(session.uid, name)
        guard engine.runtimes[key] == nil, journal.pendingCreates[key] == nil else {
            throw EngineError(.runtimeExists, "name: runtime \"\(name)\" exists")
        }
        let pending = journal.pendingCreates.keys.reduce(0) { $0 + (OwnedName.split($1).owner == session.uid ? 1 : 0) }
        if (engine.usage[session.uid]?.runtimes ?? 0) + pending >= settings.quotas.runtimes {
            throw quotaExceeded("runtimes", session.uid)
        }
        return key
    }

    func quotaExceeded(_ quota: String, _ uid: UInt32) -> EngineError {
        EngineError(.quotaExceeded, "quota \(quota): uid \(uid) holds \(settings.quotas[quota] ?? 0) \(quota == "stateBytes" ? "bytes of router state" : quota == "filterTargets" ? "target names in subscription filters" : quota == "shmSlots" ? "slots in shared-memory subscriptions" : quota == "shmRegions" ? "shared-memory regions" : quota) (its quota; see the config file's quotas)")
    }

    /// The quotas a plan added to the runtime is held to (nil for the daemon's own runtimes).
    func quotas(of key: String) -> Quotas? {
        OwnedName.split(key).owner == nil ? nil : settings.quotas
    }

    /// Usage and quotas per uid, for admins' `status`.
    func usageByUID() -> JSONValue {
        var uids = Set(engine.usage.keys).union(journal.kept.ownerBytes.keys).union(engine.store.liveByOwner.keys)
        for router in routers.all.values { uids.insert(router.owner) }
        let entries = uids.sorted().map { uid -> JSONValue in
            let usage = engine.usage[uid] ?? Engine.Usage()
            let owned = routers.all.values.filter { $0.owner == uid }
            return [
                "uid": .number(Double(uid)), "runtimes": .number(Double(usage.runtimes)),
                "performers": .number(Double(usage.performers)), "routers": .number(Double(owned.count)),
                "animations": .number(Double(engine.animations(of: uid))),
                "stateBytes": .number(Double(owned.reduce(0) { $0 + $1.stateBytes })),
                "gestures": .number(Double(engine.runtimes.values.reduce(0) { $0 + ($1.owner == uid ? $1.gestures.count : 0) })),
                "journalBytes": .number(Double(journal.kept.ownerBytes[uid] ?? 0)),
                "filterTargets": .number(Double(MethodTable(context: self).filterTargets(of: uid))),
                "properties": .number(Double(engine.store.liveByOwner[uid] ?? 0)),
                "shmSlots": .number(Double(MethodTable(context: self).sharedSlots(of: uid))),
                "subscriptions": .number(Double(MethodTable(context: self).subscriptions(of: uid))),
                "shmRegions": .number(Double(MethodTable(context: self).sharedRegions(of: uid))),
                "planBytes": .number(Double(usage.planBytes)),
            ]
        }
        var quotas: [String: JSONValue] = [:]
        for name in Quotas.names { quotas[name] = .number(Double(settings.quotas[name] ?? 0)) }
        return ["quotas": .object(quotas), "uids": .array(entries)]
    }
}
