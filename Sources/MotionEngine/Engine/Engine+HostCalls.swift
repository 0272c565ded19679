import MotionWire

extension Engine {
    /// Trace kinds the engine itself owns; a plugin cannot forge them.
    static let reservedTracePrefixes = ["runtime.", "plan.", "performer.", "token.", "plugin.", "route.", "timeline."]

    func internProperty(_ name: String, for performerID: UInt64) -> UInt32 {
        guard !name.isEmpty, name.utf8.count <= 256, let performer = performer(calling: performerID) else {
            return UInt32.max
        }
        if let handle = performer.target.properties[name], store.isLive(handle) { return handle }
        guard performer.target.properties.count < Self.maximumPropertiesPerTarget else { return UInt32.max }
        // The properties quota holds for properties a plugin makes of its own too (not only a plan's
        // `property`, which `addPlan` checks first): a plan it then refuses is answered `quota.exceeded`.
        if let quotas = ledger.quotas, let uid = performer.runtime.owner ?? (performer.runtime.isDryRun ? ledger.replacementOwner : nil),
           store.liveByOwner[uid, default: 0] >= quotas.properties {
            ledger.internRefusal = "quota properties: uid \(uid) holds \(quotas.properties) properties (its quota)"
            return UInt32.max
        }
        let handle = store.intern(.init(runtime: performer.runtime.name, target: performer.target.name, property: name),
                                  shared: performer.runtime.isShared, hidden: performer.runtime.isDryRun)
        performer.target.properties[name] = handle
        return handle
    }

    /// "motion.claim/1": the performer now animates `property`, a property of its own target. The
    /// performer that animated it before lets go first ("motion.yield/1"), so one plan drives a property
    /// at a time and the newest wins, whatever plugins the two come from.
    func claimProperty(_ property: UInt32, for performerID: UInt64) {
        // A claim from inside a tick (a plan whose delay ended) waits until the frame is over: yielding
        // then does not stop another performer in the middle of its step.
        if cycle.phase == .frame {
            cycle.claimsAfterFrame.append((property, performerID))
            return
        }
        // What plugins kept of the property is written before the performer that animated it lets go,
        // and not over a value the claimant wrote already (`PropertyStore.refreshIfStale`).
        store.refreshIfStale(property)
        guard let claimant = performer(calling: performerID),
              claimant.target.properties.values.contains(property) else { return }
        let index = Int(property)
        if index >= animators.count { animators.append(contentsOf: repeatElement(nil, count: index + 1 - animators.count)) }
        let previous = animators[index]
        animators[index] = claimant
        // The performer that animated it lets go first; then every other performer of the target that
        // can yield hears of it too, so one holding a plan for the property that waits for its delay
        // drops it (the newest plan wins, whichever starts first).
        var told: [PerformerRecord] = []
        if let previous, previous !== claimant { told.append(previous) }
        for other in claimant.target.performers.values.sorted(by: { $0.id < $1.id })
        where other !== claimant && other !== previous {
            told.append(other)
        }
        for performer in told {
            guard let instance = performer.instance,
                  let yield = registry.factories[performer.factoryIndex].descriptor.yield else { continue }
            calling(performer.label, "yield_property") { yield.pointee.yield_property(performer.factory, instance, property) }
        }
    }

    func pluginTrace(kind: String, fieldsJSON: String?, from performerID: UInt64) {
        guard let performer = performer(calling: performerID) else { return }
        func pluginError(_ message: String) {
            trace(TraceEvent(kind: "plugin.error", runtime: performer.runtime.name, target: performer.target.name,
                             fields: ["performer": .number(Double(performerID)), "plugin": .string(performer.pluginID),
                                      "message": .string(message)]))
        }
        guard !kind.isEmpty, !Self.reservedTracePrefixes.contains(where: { kind.hasPrefix($0) }) else {
            return pluginError("trace: kind \"\(kind)\" is reserved for the engine")
        }
        var fields: [String: JSONValue] = [:]
        if let fieldsJSON {
            guard let parsed = try? JSONValue.parse(fieldsJSON), case .object(let members) = parsed else {
                return pluginError("trace: fields of \"\(kind)\" are not a JSON object")
            }
            fields = members
        }
        fields["performer"] = .number(Double(performerID))
        fields["planType"] = .string(performer.planType)
        trace(TraceEvent(kind: kind, runtime: performer.runtime.name, target: performer.target.name, fields: fields))
        if kind == "animation.ended", case .string(let property)? = fields["property"] {
            releaseCharge(of: property, on: performer, reason: fields["reason"]?.stringValue)
        }
        if kind == "animation.ended", composition.delivering != nil || !composition.waits.isEmpty {
            composites.leafTraced(ended: fields, by: performer)
        }
    }
}
