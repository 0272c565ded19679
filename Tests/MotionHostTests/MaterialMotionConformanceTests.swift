@testable import MotionEngine
import MotionWire
import Testing

/// `material_motion_runtime.json` runtime cases, run against the engine with an in-process plugin.
@Suite("Material Motion runtime conformance")
struct MaterialMotionConformanceTests {
    /// Every runtime case in the reference file maps to the test below that reproduces it.
    static let coveredCases: [String: String] = [
        "add plan creates one performer then delivers plan": "addPlanCreatesOnePerformerThenDeliversPlan",
        "two plans same performer class -> one performer": "twoPlansOfOneTypeReachOnePerformerInOrder",
        "two plan types -> two performers": "twoPlanTypesCreateTwoPerformers",
        "named plan add": "namedPlanAddCallsOnlyTheNamedCallback",
        "named plan add then remove": "namedPlanAddThenRemove",
        "remove unknown name": "removingAnUnknownNameDoesNothing",
        "same name twice = remove-then-add": "sameNameTwiceIsRemoveThenAdd",
        "names are case-sensitive and target-scoped": "namesAreCaseSensitiveAndTargetScoped",
        "composition: emitted plan goes to the same target, synchronously": "emittedPlanNestsInsideTheOuterPlan",
        "continuous performer: instantly inactive": "instantlyInactivePerformerLeavesTheRuntimeIdle",
        "continuous performer: forever active": "foreverActivePerformerKeepsTheRuntimeActive",
        // The develop API's `tokenForPlan:` hands out one token per plan instance; motiond's ABI has the
        // performer take tokens itself (the v6 IsActiveTokenGenerating model), so there is no per-plan
        // token identity to reproduce. Double termination, its other half, is tested below.
        "token identity (develop API)": "terminatingATokenTwiceIsReportedNotFatal",
    ]

    @Test func everyReferenceCaseIsCovered() throws {
        let reference = try Conformance.load("material_motion_runtime.json")
        let names = (reference["runtime_cases"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names.count == 12)
        #expect(Set(names) == Set(Self.coveredCases.keys))
    }

    @Test func addPlanCreatesOnePerformerThenDeliversPlan() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target)
        #expect(harness.kinds() == ["performer.created", "plan.added"])
        #expect(CallLog.calls(for: target) == ["init(ChangeBoolean)", "addPlan(ChangeBoolean true)"])
        #expect(harness.events[1].fields["plan"] == plan(#"{"type":"ChangeBoolean","value":true}"#))
    }

    @Test func twoPlansOfOneTypeReachOnePerformerInOrder() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        let first = try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target)
        let second = try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":false}"#), to: target)
        #expect(first == second)
        #expect(harness.kinds().filter { $0 == "performer.created" }.count == 1)
        #expect(harness.kinds().filter { $0 == "plan.added" }.count == 2)
        #expect(harness.engine.value(of: "boolean", target: target) == [0])
    }

    @Test func twoPlanTypesCreateTwoPerformers() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target)
        try harness.engine.addPlan(plan(#"{"type":"InstantlyInactive"}"#), to: target)
        #expect(harness.kinds().filter { $0 == "performer.created" }.count == 2)
    }

    @Test func namedPlanAddCallsOnlyTheNamedCallback() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target, named: "common_name")
        #expect(CallLog.calls(for: target) == ["init(ChangeBoolean)", "addPlan(ChangeBoolean true, named: common_name)"])
        #expect(harness.kinds() == ["performer.created", "plan.named.added"])
        #expect(harness.events[1].fields["name"] == "common_name")
    }

    @Test func namedPlanAddThenRemove() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target, named: "name_one")
        let removed = try harness.engine.removePlan(named: "name_one", from: target)
        #expect(removed)
        #expect(CallLog.calls(for: target).dropFirst() == ["addPlan(ChangeBoolean true, named: name_one)", "removePlan(named: name_one)"])
        #expect(harness.kinds() == ["performer.created", "plan.named.added", "plan.named.removed"])
        #expect(harness.events[2].fields["name"] == "name_one")
    }

    @Test func removingAnUnknownNameDoesNothing() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target, named: "common_name")
        harness.clearEvents()
        let removed = try harness.engine.removePlan(named: "was_never_added_plan", from: target)
        #expect(!removed)
        #expect(harness.events.isEmpty)
        #expect(CallLog.calls(for: target).count == 2)
        #expect(try harness.engine.removePlan(named: "x", from: uniqueTarget()) == false)
        #expect(harness.engine.performerCount == 1)
    }

    @Test func sameNameTwiceIsRemoveThenAdd() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target, named: "common_name")
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":false}"#), to: target, named: "common_name")
        #expect(CallLog.calls(for: target).dropFirst() == [
            "addPlan(ChangeBoolean true, named: common_name)", "removePlan(named: common_name)",
            "addPlan(ChangeBoolean false, named: common_name)",
        ])
        #expect(harness.kinds() == ["performer.created", "plan.named.added", "plan.named.removed", "plan.named.added"])
    }

    @Test func namesAreCaseSensitiveAndTargetScoped() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget(), other = uniqueTarget()
        for name in ["one", "One", "1", "ONE"] {
            try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: target, named: name)
        }
        try harness.engine.addPlan(plan(#"{"type":"ChangeBoolean","value":true}"#), to: other, named: "one")
        let targetCalls = CallLog.calls(for: target), otherCalls = CallLog.calls(for: other)
        #expect(targetCalls.filter { $0.hasPrefix("addPlan") }.count == 4)
        #expect(targetCalls.filter { $0.hasPrefix("removePlan") }.isEmpty)
        #expect(otherCalls.filter { $0.hasPrefix("addPlan") }.count == 1)
        #expect(otherCalls.filter { $0.hasPrefix("removePlan") }.isEmpty)
    }

    @Test func emittedPlanNestsInsideTheOuterPlan() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"Emit","plan":"{\"type\":\"InstantlyInactive\"}"}"#), to: target)
        let kinds = harness.kinds()
        #expect(kinds == ["performer.created", "performer.created", "runtime.active", "runtime.idle", "plan.added", "plan.added"])
        let added = harness.events.filter { $0.kind == "plan.added" }.map { $0.fields["planType"] }
        #expect(added == ["InstantlyInactive", "Emit"])
        let created = harness.events.filter { $0.kind == "performer.created" }.map { $0.fields["planType"] }
        #expect(created == ["Emit", "InstantlyInactive"])
        #expect(harness.events.allSatisfy { $0.target == nil || $0.target == target })
        #expect(!harness.engine.isActive(runtime: "default"))
    }

    @Test func instantlyInactivePerformerLeavesTheRuntimeIdle() throws {
        let harness = try EngineHarness()
        try harness.engine.addPlan(plan(#"{"type":"InstantlyInactive"}"#), to: uniqueTarget())
        #expect(harness.kinds().filter { $0.hasPrefix("runtime.") } == ["runtime.active", "runtime.idle"])
        #expect(!harness.engine.isActive(runtime: "default"))
        #expect(!harness.engine.isAnimating)
    }

    @Test func foreverActivePerformerKeepsTheRuntimeActive() throws {
        let harness = try EngineHarness()
        let target = uniqueTarget()
        try harness.engine.addPlan(plan(#"{"type":"ForeverActive"}"#), to: target)
        #expect(harness.kinds().filter { $0.hasPrefix("runtime.") } == ["runtime.active"])
        #expect(harness.engine.isActive(runtime: "default"))
        harness.engine.advance(by: 0.01)
        harness.engine.advance(by: 0.01)
        #expect(harness.engine.value(of: "ticks", target: target) == [2, 0.01])
    }

    @Test func tokensTakenDuringAFrameAreSafe() throws {
        let harness = try EngineHarness()
        // One performer takes tokens inside advance(); another one starts animating in the same frame.
        try harness.engine.addPlan(plan(#"{"type":"Spawner","count":3}"#), to: uniqueTarget())
        try harness.engine.addPlan(plan(#"{"type":"ForeverActive"}"#), to: uniqueTarget())
        for _ in 0..<5 { harness.engine.advance(by: 0.01) }
        #expect(harness.engine.activeTokenCount == 5)
        #expect(harness.engine.isAnimating)
    }

    @Test func terminatingATokenTwiceIsReportedNotFatal() throws {
        let harness = try EngineHarness()
        try harness.engine.addPlan(plan(#"{"type":"DoubleTerminate"}"#), to: uniqueTarget())
        #expect(harness.kinds().contains("plugin.error"))
        #expect(harness.kinds().filter { $0 == "runtime.idle" }.count == 1)
        #expect(harness.engine.activeTokenCount == 0)
    }
}
