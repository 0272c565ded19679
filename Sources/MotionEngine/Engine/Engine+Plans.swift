import MotionPluginAPI
import MotionSchema
import MotionWire

extension Engine {
    /// Adds a plan to a target (docs/protocol.md): finds or creates the one performer for (target, plan type),
    /// hands it the plan, then tells tracers. A named plan replaces an existing one of that name first.
    /// Returns the id of the performer that received the plan. With `quotas`, a plan that needs a new
    /// performer while the runtime's owner holds its quota of them, or any plan while it holds its quota
    /// of animations (running or waiting for their delay), is refused (`quota.exceeded`).
    @discardableResult
    /// `checked`: what `check(plan)` returned for this very plan (a staggered plan.add checks each copy
    /// first: checking it again here was a tenth of the engine thread under a flood of them); checked
    /// again if the plan type's factory changed since (a hot swap between a journal write and its apply).
    package func addPlan(_ plan: JSONValue, to target: String, in runtime: String = defaultRuntime,
                        named name: String? = nil, quotas: Quotas? = nil,
                        checked: (factoryIndex: Int, planType: String)? = nil) throws(EngineError) -> UInt64 {
        guard let scope = runtimes[runtime] else {
            throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(OwnedName.split(runtime).name)\"")
        }
        let (factoryIndex, planType): (Int, String)
        if let checked, registry.factory(forPlanType: checked.planType) == checked.factoryIndex {
            (factoryIndex, planType) = checked
        } else {
            (factoryIndex, planType) = try check(plan)
        }
        if let name, name.isEmpty { throw EngineError(.invalidRequest, "name: must not be empty") }
        if let kind = Composite.kind(of: plan) {
            guard name == nil else {
                throw EngineError(.invalidRequest, "name: a \(planType) is not named (name the plans it runs instead)")
            }
            let performer = try composites.addComposite(plan, kind: kind, to: target, in: scope, quotas: quotas)
            timelines.recordOnTimeline(.add(plan: plan, name: nil), target: target, in: scope)
            trace(TraceEvent(kind: "plan.added", runtime: runtime, target: target, fields: [
                "plan": plan, "performer": .number(Double(performer)), "planType": .string(planType),
            ]))
            composites.drainCompositeEnds()
            return performer
        }
        let isNewTarget = scope.targets[target] == nil
        let property = plan["property"]?.stringValue, cost = PlanCharge.bytes(of: plan), waits = (plan["delay"]?.doubleValue ?? 0) > 0
        try checkCharge(cost, property: property, waits: waits, replacing: scope.targets[target]?.performers[factoryIndex], in: scope, quotas: quotas)
        let targetScope = try admit(factoryIndex, planType: planType, property: property, on: target, in: scope, quotas: quotas)
        let prepared = prepared(plan, on: target, in: scope)
        if let name, targetScope.named[name] != nil {
            // Refused here, the old plan stays (`Engine+Replacements`).
            if !scope.isDryRun { try checkReplacement(prepared, named: name, factoryIndex: factoryIndex, on: targetScope, owner: scope.owner) }
            removeNamedPlan(name, from: targetScope, in: scope)
        }
        let performer = try undoingRefusal(of: factoryIndex, on: targetScope, isNewTarget: isNewTarget, in: scope) { performer throws(EngineError) in
            ledger.charging = (performer.id, property ?? "", false)
            try deliver(prepared, named: name, to: performer)
        }
        charge(cost, property: property, waits: waits, to: performer)
        timelines.recordOnTimeline(.add(plan: plan, name: name), target: target, in: scope)
        var fields: [String: JSONValue] = [
            "plan": plan, "performer": .number(Double(performer.id)), "planType": .string(planType),
        ]
        if let name {
            targetScope.named[name] = performer
            fields["name"] = .string(name)
        }
        trace(TraceEvent(kind: name == nil ? "plan.added" : "plan.named.added", runtime: runtime, target: target,
                         fields: fields))
        composites.drainCompositeEnds()
        return performer.id
    }

    /// The target's scope, once the runtime's owner may hold one more performer of this type (quota).
    private func admit(_ factoryIndex: Int, planType: String, property: String?, on target: String, in scope: RuntimeScope,
                       quotas: Quotas?) throws(EngineError) -> TargetScope {
        let existing = scope.targets[target]
        if let property, existing?.properties[property] == nil {
            if let existing, existing.properties.count >= Self.maximumPropertiesPerTarget {
                throw EngineError(.limitExceeded, "property: target \"\(target)\" has \(Self.maximumPropertiesPerTarget) properties; a target holds at most \(Self.maximumPropertiesPerTarget)")
            }
            if let quotas, let uid = scope.owner, store.liveByOwner[uid, default: 0] >= quotas.properties {
                throw EngineError(.quotaExceeded, "quota properties: uid \(uid) holds \(quotas.properties) properties (its quota)")
            }
        }
        if let quotas, let uid = scope.owner {
            if (ledger.usage[uid]?.performers ?? 0) >= quotas.performers, scope.targets[target]?.performers[factoryIndex] == nil {
                throw EngineError(.quotaExceeded, "quota performers: uid \(uid) holds \(quotas.performers) performers (its quota)")
            }
            if (scope.ownerTokens?.value ?? 0) >= quotas.animations {
                throw EngineError(.quotaExceeded, "quota animations: uid \(uid) holds \(quotas.animations) animations, running or waiting for their delay (its quota)")
            }
        }
        let targetScope = scope.target(target)
        if !spread.swapJobs.isEmpty, targetScope.performers[factoryIndex] == nil {
            swaps.moveWaitingPerformer(of: planType, on: targetScope)
        }
        return targetScope
    }

    /// A composite's leaf (checked with its composite): handed to its performer, nothing recorded or
    /// traced beyond what the performer does (the composite's `plan.added` stands for it).
    /// `naming` picks the name the leaf is handed over with (nil: unnamed), once its performer is known.
    func deliverLeaf(_ plan: JSONValue, to target: String, in scope: RuntimeScope, quotas: Quotas?,
                     naming: (PerformerRecord) -> String?) throws(EngineError) -> PerformerRecord {
        let plan = prepared(plan, on: target, in: scope)
        guard let type = plan["type"]?.stringValue, let factoryIndex = registry.factory(forPlanType: type) else {
            throw EngineError(.unknownPlanType, "plan.type: not registered")
        }
        let property = plan["property"]?.stringValue, cost = PlanCharge.bytes(of: plan), waits = (plan["delay"]?.doubleValue ?? 0) > 0
        try checkCharge(cost, property: property, waits: waits, replacing: scope.targets[target]?.performers[factoryIndex], in: scope, quotas: quotas)
        let targetScope = try admit(factoryIndex, planType: type, property: property, on: target, in: scope, quotas: quotas)
        // The target stays: its composite is on it (forgetting it would end the composite).
        let performer = try undoingRefusal(of: factoryIndex, on: targetScope, isNewTarget: false, in: scope) { performer throws(EngineError) in
            ledger.charging = (performer.id, property ?? "", false)
            try deliver(plan, named: naming(performer), to: performer)
        }
        charge(cost, property: property, waits: waits, to: performer)
        return performer
    }

    /// The plan as its plugin gets it: without the engine's own key `essential`, and completing at once
    /// under reduce motion (unless essential) or speed 0 (`PlanVocabulary.instant`).
    private func prepared(_ plan: JSONValue, on target: String, in scope: RuntimeScope) -> JSONValue {
        var plan = plan
        let essential = plan["essential"] == .bool(true)
        if plan["essential"] != nil { plan["essential"] = nil }
        switch composition.instantMotion {
        case .off: return plan
        case .reduceMotion where essential: return plan
        case .reduceMotion, .all:
            let current = plan["property"]?.stringValue.flatMap { value(of: $0, target: target, runtime: scope.name) }
            return vocabulary.instant(plan, current: current)
        }
    }

    /// Whether plans of `type` take `key` as a key of their own (their schema names it).
    func planType(_ type: String, takes key: String) -> Bool {
        guard let index = registry.factory(forPlanType: type) else { return false }
        return registry.factories[index].descriptor.schema?.properties[key] != nil
    }

    /// Checks a plan as `addPlan` does before performing it (an object whose type is known and which
    /// matches that type's schema), without touching anything; returns its factory and type.
    @discardableResult
    package func check(_ plan: JSONValue) throws(EngineError) -> (factoryIndex: Int, planType: String) {
        guard case .object = plan else {
            throw EngineError(.invalidRequest, "plan: expected an object")
        }
        guard case .string(let planType)? = plan["type"] else {
            throw EngineError(.invalidRequest, "plan.type: expected a string")
        }
        if let kind = Composite.Kind(rawValue: planType) {
            var leaves = 0
            try checkComposite(plan, kind: kind, depth: 0, leaves: &leaves)
            return (-1, planType)
        }
        return try checkLeaf(plan)
    }

    /// `check` for a plan a plugin performs.
    @discardableResult
    func checkLeaf(_ plan: JSONValue) throws(EngineError) -> (factoryIndex: Int, planType: String) {
        guard case .object = plan else { throw EngineError(.invalidRequest, "plan: expected an object") }
        guard case .string(let planType)? = plan["type"] else {
            throw EngineError(.invalidRequest, "plan.type: expected a string")
        }
        try Self.checkEssential(plan)
        var plan = plan
        if plan["essential"] != nil { plan["essential"] = nil }
        guard let factoryIndex = registry.factory(forPlanType: planType) else {
            let known = planTypes.joined(separator: ", ")
            let hint = KeySuggestion.closest(to: planType, in: planTypes + Composite.Kind.allCases.map(\.rawValue)).map { "did you mean \($0)? " } ?? ""
            throw EngineError(.unknownPlanType, "plan.type: \"\(planType)\" is not registered; \(hint)known types: \(known)")
        }
        if let schema = registry.factories[factoryIndex].descriptor.schema {
            // A token named without its `@` (docs/themes.md) is not an unknown key to puzzle over.
            for key in ["spring", "motion"] where schema.properties[key] == nil {
                if case .string(let name)? = plan[key], !name.hasPrefix("@") {
                    throw EngineError(.invalidPlan, "\(key): \"\(name)\" names no token; a token is named with @ (\"@\(name)\")")
                }
            }
            do throws(JSONSchema.Violation) {
                try schema.validate(plan: plan)
            } catch {
                throw EngineError(.invalidPlan, error.message)
            }
        }
        return (factoryIndex, planType)
    }

    /// Removes the plan named `name` from a target. Unknown names do nothing and emit nothing.
    @discardableResult
    package func removePlan(named name: String, from target: String,
                           in runtime: String = defaultRuntime) throws(EngineError) -> Bool {
        guard let scope = runtimes[runtime] else {
            throw EngineError(.runtimeNotFound, "runtime: no runtime named \"\(OwnedName.split(runtime).name)\"")
        }
        guard let targetScope = scope.targets[target] else { return false }
        let removed = removeNamedPlan(name, from: targetScope, in: scope)
        if removed { timelines.recordOnTimeline(.remove(name: name), target: target, in: scope) }
        return removed
    }

    /// A plan a performer emits for its own target while handling a plan (docs/protocol.md "Emitting").
    func emitPlan(_ json: UnsafeRawBufferPointer, from performer: PerformerRecord) throws(EngineError) {
        guard cycle.phase == .control else {
            throw EngineError(.invalidPlan, "emit_plan: only allowed while handling a plan, not during a frame")
        }
        guard cycle.emitDepth < Self.maximumEmitDepth else {
            throw EngineError(.invalidPlan, "emit_plan: more than \(Self.maximumEmitDepth) nested emits")
        }
        let plan: JSONValue
        do {
            plan = try JSONValue.parse(json)
        } catch {
            throw EngineError(.invalidPlan, "emit_plan: the plan is not valid JSON")
        }
        cycle.emitDepth += 1
        defer { cycle.emitDepth -= 1 }
        // Held to the runtime's owner's quotas like its client's own plans (a plugin that emits many
        // plans for one would otherwise be a way past them).
        try addPlan(plan, to: performer.target.name, in: performer.runtime.name,
                    quotas: performer.runtime.owner == nil ? nil : ledger.quotas)
    }

    @discardableResult
    private func removeNamedPlan(_ name: String, from target: TargetScope, in scope: RuntimeScope) -> Bool {
        guard let performer = target.named.removeValue(forKey: name) else { return false }
        if let remove = performer.table.pointee.remove_named_plan, let instance = performer.instance {
            calling(performer.label, "remove_named_plan") { remove(instance, name) }
        }
        trace(TraceEvent(kind: "plan.named.removed", runtime: scope.name, target: target.name,
                         fields: ["name": .string(name), "performer": .number(Double(performer.id))]))
        return true
    }

    func performer(for factoryIndex: Int, on target: TargetScope,
                           in scope: RuntimeScope) throws(EngineError) -> PerformerRecord {
        if let existing = target.performers[factoryIndex] { return existing }
        let factory = registry.factories[factoryIndex]
        let record = PerformerRecord(id: ledger.nextPerformerID, factoryIndex: factoryIndex, factory: factory,
                                     runtime: scope, target: target)
        ledger.nextPerformerID += 1
        performers[record.id] = record
        let instance = calling(factory.label, "create") {
            factory.descriptor.table.pointee.create(factory.descriptor.pointer, scope.isDryRun ? host.dryRunPointer : host.pointer,
                                                    record.id, target.name)
        }
        guard let instance else {
            performers[record.id] = nil
            throw EngineError(.invalidPlan, "plugin \(factory.pluginID) could not create a \(record.planType) performer")
        }
        record.instance = instance
        target.performers[factoryIndex] = record
        scope.performerCount += 1
        if let uid = scope.owner { ledger.usage[uid, default: Usage()].performers += 1 }
        trace(TraceEvent(kind: "performer.created", runtime: scope.name, target: target.name,
                         fields: ["performer": .number(Double(record.id)), "planType": .string(record.planType),
                                  "plugin": .string(record.pluginID)]))
        return record
    }

    func deliver(_ plan: JSONValue, named name: String?, to performer: PerformerRecord) throws(EngineError) {
        guard let instance = performer.instance else {
            throw EngineError(.internalError, "performer \(performer.id) has no instance")
        }
        var json = JSONWriter.bytes(plan)
        let length = json.count
        json.append(0)  // C plugins may treat the text as a string; `length` does not count the NUL.
        let factory = performer.table.pointee
        host.plans.begin(plan)
        // Each delivery its own refusal (a plan it emits is delivered inside it).
        let outerRefusal = ledger.internRefusal
        ledger.internRefusal = nil
        defer {
            host.plans.end()
            ledger.internRefusal = outerRefusal
        }
        // The refusal's text on the stack: a plan delivered inside this one (emitted) has its own.
        let refusal: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { message in
            // Zeroed whole: a plugin that leaves its text unterminated must not hand a client what the
            // stack held before (another delivery's plan, another uid's).
            message.initialize(repeating: 0)
            let status: Int32 = calling(performer.label, "add_plan") { json.withUnsafeBufferPointer { bytes in
                let text = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                if let name, let addNamed = factory.add_named_plan {
                    return addNamed(instance, name, text, length, message.baseAddress, message.count)
                }
                return factory.add_plan(instance, text, length, message.baseAddress, message.count)
            } }
            guard status != MOTION_OK else { return nil }
            message[message.count - 1] = 0  // a plugin that filled it whole
            return String(cString: message.baseAddress!)
        }
        if let refusal {
            if let quota = ledger.internRefusal { throw EngineError(.quotaExceeded, quota) }
            throw EngineError(.invalidPlan, refusal.isEmpty ? "\(performer.planType): plan refused" : refusal)
        }
    }
}
