import MotionWire

extension Engine {
    /// Creates a runtime. An ephemeral one belongs to `owner` (a session) and ends with it.
    /// Its key says whose it is (`OwnedName`); a shared one is readable by every uid.
    /// A `dryRun` runtime is the daemon's scratch space (see `RuntimeScope.isDryRun`).
    package func createRuntime(_ name: String, ephemeralOwner owner: UInt64? = nil, shared: Bool = false,
                              recordsTimeline: Bool = true, dryRun: Bool = false) throws(EngineError) {
        guard !name.isEmpty else { throw EngineError(.invalidRequest, "name: must not be empty") }
        guard runtimes[name] == nil else {
            throw EngineError(.runtimeExists, "name: runtime \"\(OwnedName.split(name).name)\" exists")
        }
        let scope = RuntimeScope(name: name, ephemeralOwner: owner, isShared: shared, createdAt: time,
                                 recordsTimeline: recordsTimeline && !dryRun, isDryRun: dryRun)
        runtimes[name] = scope
        if let uid = scope.owner {
            ledger.usage[uid, default: Usage()].runtimes += 1
            if ledger.tokenCounts[uid] == nil { ledger.tokenCounts[uid] = TokenCount() }
            scope.ownerTokens = ledger.tokenCounts[uid]
        }
    }

    /// Animations (is-active tokens) held in the runtimes of `uid`.
    package func animations(of uid: UInt32) -> Int { ledger.tokenCounts[uid]?.value ?? 0 }

    /// Destroys a runtime: its performers are destroyed, its tokens released, its properties forgotten.
    /// It is gone at once; a large one is freed in slices between ticks (`Engine+Teardown`), its
    /// owner's quotas of performers and properties charged until it is.
    package func destroyRuntime(_ name: String) throws(EngineError) {
        guard name != Self.defaultRuntime else {
            throw EngineError(.runtimeProtected, "name: the \"default\" runtime always exists")
        }
        guard let scope = runtimes.removeValue(forKey: name) else {
            throw EngineError(.runtimeNotFound, "name: no runtime named \"\(name)\"")
        }
        if let uid = scope.owner { ledger.usage[uid, default: Usage()].runtimes -= 1 }
        retire(scope)
        trace(TraceEvent(kind: "runtime.destroyed", runtime: name))
    }

    /// Ends a target of a runtime: its performers are destroyed (their animations stop where they are,
    /// their tokens are released), its properties forgotten, and `runtime.state` no longer lists it.
    /// Routers end the targets of screens that left their URL (docs/routes.md).
    /// Without `announcing`, no `target.removed` (a target that a refused plan made and no one saw).
    package func removeTarget(_ name: String, in runtime: String, announcing: Bool = true) {
        guard let scope = runtimes[runtime], let target = scope.targets.removeValue(forKey: name) else { return }
        let wasActive = scope.activeTokens > 0
        for performer in target.performers.values.sorted(by: { $0.id < $1.id }) {
            stopAdvancing(performer)
            destroyInstance(performer)
            releaseCharges(of: performer)
            scope.activeTokens -= performer.tokens.count
            performer.tokens.removeAll()
            performers[performer.id] = nil
            scope.performerCount -= 1
            if let uid = scope.owner { ledger.usage[uid, default: Usage()].performers -= 1 }
        }
        target.performers.removeAll()
        target.named.removeAll()
        scope.targetOrder.remove(at: target.ordinal)
        for (ordinal, remaining) in scope.targetOrder.enumerated().dropFirst(target.ordinal) { remaining.ordinal = ordinal }
        for handle in target.properties.values where Int(handle) < animators.count { animators[Int(handle)] = nil }
        store.remove(Array(target.properties.values))
        composition.waits.removeAll(inRuntime: runtime, target: name)
        if !composition.composites.isEmpty { composites.dropComposites(of: runtime, target: name) }
        if announcing { trace(TraceEvent(kind: "target.removed", runtime: runtime, target: name)) }
        if wasActive, scope.activeTokens == 0 { trace(TraceEvent(kind: "runtime.idle", runtime: runtime)) }
    }

    /// Ephemeral runtimes created by `owner`, for clean-up when its connection closes.
    package func ephemeralRuntimes(ownedBy owner: UInt64) -> [String] {
        runtimes.values.filter { $0.ephemeralOwner == owner }.map(\.name).sorted()
    }

    /// `runtime.state` pages hold at most this many targets.
    package static let maximumStatePage = 1000
    /// Properties after which a `runtime.state` page ends (with the whole target that reached it): each
    /// is a few µs of the engine thread, and a page of 122,000 held it 0.4 s.
    package static let maximumStatePageProperties = 1024
    /// Engine time after which a `runtime.state` page ends (with the target it was writing): a page of
    /// 1,000 targets took ~5 ms of the engine thread on an Intel Xeon, and pages asked back to back by one
    /// uid held the frame clock up to 26 ms (BENCHMARKS.md, `state`). A client follows `next` as ever.
    package static let defaultStatePageNanos: UInt64 = 1_000_000
    /// Properties one target may have (a thing on screen has a handful): 122,000 `Set`s of distinct
    /// properties on one target made each `runtime.state` of it 0.4 s, and each claim of a property a
    /// look at all of them. A plan for one more is refused (`request.limit`); a plugin's own write of one
    /// gets no handle.
    package static let maximumPropertiesPerTarget = 1024

    struct TargetName: Hashable {
        var target: String
        var name: String
    }

    /// The newest `add` of each named plan the runtime's timeline still holds (its last 1,000 plans).
    private func namedPlans(in scope: RuntimeScope) -> [TargetName: (plan: JSONValue, time: Double)] {
        var found: [TargetName: (plan: JSONValue, time: Double)] = [:]
        for entry in scope.timeline.entries.reversed() {
            guard case .add(let plan, let name?) = entry.change else { continue }
            let key = TargetName(target: entry.target, name: name)
            if found[key] == nil { found[key] = (plan, entry.time) }
        }
        return found
    }

    /// A JSON picture of one runtime for `runtime.state`: at most `limit` targets, in the order they were
    /// created, starting after the target named `after`; `next` names the last one when more follow.
    package func state(ofRuntime name: String, after: String? = nil, limit: Int = 1000) throws(EngineError) -> JSONValue {
        guard let scope = runtimes[name] else {
            throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(OwnedName.split(name).name)\"")
        }
        var start = 0
        if let after {
            guard let target = scope.targets[after] else {
                throw EngineError(.invalidRequest, "after: no target named \"\(after)\" in this runtime")
            }
            start = target.ordinal + 1
        }
        var page = scope.targetOrder[min(start, scope.targetOrder.count)..<min(start + limit, scope.targetOrder.count)]
        var properties = 0
        for (index, target) in zip(page.indices, page) {
            properties += target.properties.count
            if properties >= Self.maximumStatePageProperties {
                page = page[..<(index + 1)]
                break
            }
        }
        var targets: [String: JSONValue] = [:]
        let named = page.contains { !$0.named.isEmpty } ? namedPlans(in: scope) : [:]
        let clock = scope.timeline.clock(now: time)
        let (sum, overflow) = WorkClock.now().addingReportingOverflow(spread.statePageNanos)
        let deadline = overflow ? UInt64.max : sum
        for (index, target) in zip(page.indices, page) {
            if index > page.startIndex, (index - page.startIndex) & 15 == 0, WorkClock.now() >= deadline {
                page = page[..<index]
                break
            }
            let targetName = target.name
            let performers = target.performers.values.sorted { $0.id < $1.id }.map { performer -> JSONValue in
                ["id": .number(Double(performer.id)), "planType": .string(performer.planType),
                 "plugin": .string(performer.pluginID), "tokens": .number(Double(performer.tokens.count))]
            }
            var properties: [String: JSONValue] = [:]
            for (property, handle) in target.properties where store.isLive(handle) {
                let value = store.value(handle)
                if value.isEmpty { continue }
                properties[property] = ["value": JSONValue(value), "velocity": JSONValue(store.velocity(handle))]
            }
            var entry: JSONValue = [
                "performers": .array(performers),
                "named": .object(target.named.mapValues { .number(Double($0.id)) }),
                "properties": .object(properties),
            ]
            // Each named plan as it was added, and how long ago on the runtime's clock, while the timeline
            // keeps it (the inspector tunes plans added before it opened: docs/inspector.md).
            var plans: [String: JSONValue] = [:]
            for name in target.named.keys {
                if let added = named[TargetName(target: targetName, name: name)] {
                    plans[name] = ["plan": added.plan, "running": .number(max(0, clock - added.time))]
                }
            }
            if !plans.isEmpty { entry["namedPlans"] = .object(plans) }
            targets[targetName] = entry
        }
        var state: JSONValue = [
            "runtime": .string(name), "ephemeral": .bool(scope.ephemeralOwner != nil), "shared": .bool(scope.isShared),
            "speed": .number(scope.speed),
            "active": .bool(scope.activeTokens > 0), "tokens": .number(Double(scope.activeTokens)),
            "targets": .object(targets), "targetCount": .number(Double(scope.targetOrder.count)),
        ]
        if page.endIndex < scope.targetOrder.count, let last = page.last { state["next"] = .string(last.name) }
        return state
    }
}
