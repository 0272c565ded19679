@testable import MotionEngine
import MotionSchema
@testable import MotionHost
import MotionWire
import Testing

/// Plans are checked against their factory's schema before a plugin sees them (docs/vocabulary.md).
@Suite("Plan schemas")
struct PlanSchemaTests {
    let spring = try! JSONSchema.plan(parsing: """
        {"type":"object","properties":{"property":{"type":"string"},
         "to":{"type":"array","items":{"type":"number"},"minItems":1,"maxItems":4},
         "damping":{"type":"number","minimum":0,"maximum":300},"tension":{"type":"number"},
         "axis":{"type":"string","enum":["x","y","both"]},
         "timing":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"number"},"minItems":4,"maxItems":4}]},
         "spring":{"type":"object","properties":{"stiffness":{"type":"number","exclusiveMinimum":0}}}},
         "required":["property","to"]}
        """)

    func violation(_ text: String) -> String? {
        do throws(JSONSchema.Violation) {
            try spring.validate(plan: plan(text))
            return nil
        } catch {
            return error.message
        }
    }

    /// `accepts` and the full check agree, and `validate` says what they say, on the keywords the shipped
    /// schemas do not use (exclusive bounds, nested closed objects, integers) and on plans without `type`.
    @Test func theQuickAcceptanceAgreesOnEveryKeyword() throws {
        let schema = try JSONSchema.plan(parsing: """
            {"type":"object","required":["to"],"properties":{
             "to":{"type":"array","items":{"type":"number","exclusiveMinimum":-1,"exclusiveMaximum":1},"minItems":1,"maxItems":2},
             "count":{"type":"integer","minimum":0},
             "spring":{"type":"object","required":["k"],"properties":{"k":{"type":"number","exclusiveMinimum":0},
                       "inner":{"type":"object","properties":{"mode":{"enum":["a","b"]}}}}},
             "timing":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"number"},"minItems":4,"maxItems":4}]}}}
            """)
        let values: [JSONValue?] = [nil, .null, true, "a", "c", -1, -0.5, 0, 0.5, 1, 2.5, [], [0], [0.5, -0.5], [1], [-1],
                                    [0, 0, 0], [0.1, 0.2, 0.3, 0.4], ["k": 1], ["k": 0], ["k": 1, "inner": ["mode": "a"]],
                                    ["k": 1, "inner": ["mode": "c"]], ["k": 1, "inner": ["other": 1]], ["k": 1, "extra": 1], [:]]
        let base: [String: JSONValue] = ["type": "T", "to": [0.5], "count": 2, "spring": ["k": 1], "timing": "ease"]
        var checked = 0, refused = 0
        for key in ["type", "to", "count", "spring", "timing", "unknown"] {
            for value in values {
                var members = base
                members[key] = value
                let plan = JSONValue.object(members)
                let violation = schema.violation(of: plan, isPlan: true)
                let validated = (try? schema.validate(plan: plan)) != nil
                #expect(schema.accepts(plan, isPlan: true) == (violation == nil) && validated == (violation == nil),
                        "\(JSONWriter.string(plan)): \(violation?.message ?? "accepted")")
                checked += 1
                refused += violation == nil ? 0 : 1
            }
        }
        #expect(refused > checked / 3 && refused < checked, "\(refused) of \(checked) refused")
    }

    @Test func aValidPlanPasses() {
        #expect(violation(#"{"type":"Spring","property":"x","to":[1,2],"damping":2,"timing":[0,0,1,1]}"#) == nil)
    }

    @Test func aMisspeltKeyNamesTheClosestKnownOne() {
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"dampng":2}"#) == "dampng: unknown key; did you mean damping?")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"tenison":2}"#) == "tenison: unknown key; did you mean tension?")
    }

    @Test func anUnknownKeyFarFromAnyListsTheKnownOnes() {
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"colour":2}"#)
            == "colour: unknown key; known keys: axis, damping, property, spring, tension, timing, to")
    }

    @Test func nestedObjectsAreClosedToo() {
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"spring":{"stifness":3}}"#)
            == "spring.stifness: unknown key; did you mean stiffness?")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"spring":{"stiffness":0}}"#)
            == "spring.stiffness: expected a number greater than 0, found 0")
    }

    @Test func typesRangesEnumsAndLengthsNameTheField() {
        #expect(violation(#"{"type":"Spring","to":[1]}"#) == "property: missing (required)")
        #expect(violation(#"{"type":"Spring","property":"x","to":"far"}"#) == "to: expected an array of 1 to 4 numbers, found a string")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1,2,3,4,5]}"#) == "to: expected an array of 1 to 4 numbers, found 5 elements")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1,"2"]}"#) == "to[1]: expected a number, found a string")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"damping":301}"#) == "damping: 301 is above the maximum 300")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"axis":"z"}"#) == #"axis: expected one of "x", "y", "both", found "z""#)
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"timing":[1,2]}"#) == "timing: expected an array of 4 numbers, found 2 elements")
        #expect(violation(#"{"type":"Spring","property":"x","to":[1],"timing":true}"#)
            == "timing: expected a string or an array of 4 numbers, found true")
    }

    @Test func schemasWithUnsupportedKeywordsAreRefusedAtLoad() {
        #expect(throws: JSONSchema.Invalid(path: "properties.x.minimun", reason: "unsupported keyword; did you mean minimum?")) {
            try JSONSchema.plan(parsing: #"{"type":"object","properties":{"x":{"type":"number","minimun":0}}}"#)
        }
        #expect(throws: JSONSchema.Invalid(path: "type", reason: "a plan schema must be of type \"object\"")) {
            try JSONSchema.plan(parsing: #"{"type":"array"}"#)
        }
        #expect(throws: JSONSchema.Invalid(path: "required", reason: "\"y\" is not among the properties")) {
            try JSONSchema.plan(parsing: #"{"type":"object","properties":{"x":{}},"required":["y"]}"#)
        }
    }

    @Test func suggestionsNeedAPlausibleTypo() {
        #expect(KeySuggestion.closest(to: "dampng", in: ["damping", "tension"]) == "damping")
        #expect(KeySuggestion.closest(to: "Damping", in: ["damping"]) == "damping")
        #expect(KeySuggestion.closest(to: "tnesion", in: ["tension"]) == "tension")
        #expect(KeySuggestion.closest(to: "q", in: ["to", "from"]) == nil)
        #expect(KeySuggestion.closest(to: "velocity", in: ["to", "from"]) == nil)
    }
}

/// The shipped plugins declare their plans, dlopen'd from the build as the daemon loads them.
@Suite("Shipped plan schemas")
struct ShippedPlanSchemaTests {
    static func engine(_ names: [String]) throws -> Engine {
        let host = HostServices(logger: .init(label: "test"))
        var builder = PluginRegistryBuilder()
        for name in names {
            builder.add(try PluginLoader.load(file: PluginLoaderTests.buildDirectory + "/lib\(name).so", host: host).get())
        }
        return Engine(registry: builder.freeze(), host: host, vocabulary: .shipped)
    }

    @Test func aMisspeltSpringKeyIsRefusedBeforeThePluginSeesIt() throws {
        let engine = try Self.engine(["SpringPlugin"])
        #expect(throws: EngineError(.invalidPlan, "dampng: unknown key; did you mean damping?")) {
            try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"dampng":2}"#), to: "card")
        }
        #expect(engine.performerCount == 0)
        try engine.addPlan(plan(#"{"type":"Spring","property":"x","to":[1],"damping":2}"#), to: "card")
        #expect(engine.performerCount == 1)
    }

    @Test func everyShippedPlanTypeDeclaresASchema() throws {
        let engine = try Self.engine(["SpringPlugin", "TweenPlugin", "DecayPlugin", "SetPlugin"])
        for factory in engine.registry.factories {
            #expect(factory.descriptor.schema != nil, "\(factory.descriptor.planType) has no schema")
        }
        do {
            try engine.addPlan(plan(#"{"type":"Tween","property":"x","to":[1],"timing":"bouncy"}"#), to: "card")
            Issue.record("an unknown timing function was accepted")
        } catch {
            #expect(error.code == .invalidPlan && error.message.hasPrefix("timing: unknown timing function \"bouncy\"; known: default, ease,"), "\(error)")
        }
        #expect(throws: EngineError(.invalidPlan, "valeu: unknown key; did you mean value?")) {
            try engine.addPlan(plan(#"{"type":"Set","property":"x","valeu":[1]}"#), to: "card")
        }
        // Values within ±1e15, as every plan's (docs/threat_model.md): 1.7e308 only overflowed into NaN.
        do {
            try engine.addPlan(plan(#"{"type":"Set","property":"x","value":[1.7e308]}"#), to: "card")
            Issue.record("a value past ±1e15 was accepted")
        } catch {
            #expect(error.code == .invalidPlan && error.message.hasPrefix("value[0]:"), "\(error)")
        }
    }

    /// `plugins.list` describes every key a shipped plan takes (docs/vocabulary.md), the host's own keys (`essential`,
    /// which every plan may carry) and the composites built into the engine.
    @Test func pluginsListDescribesEveryKey() throws {
        let output = RecordingOutput()
        let context = EngineContext(engine: try Self.engine(["SpringPlugin", "TweenPlugin", "DecayPlugin", "SetPlugin", "InteractionsPlugin"]),
                                    settings: EngineSettings(), logger: .init(label: "test"))
        context.openSession(1, output: output)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: 1)
        context.receive(line: Array(#"{"id":1,"method":"plugins.list"}"#.utf8), from: 1)
        let list = try #require(output.lines.last?["result"])
        var described = 0
        for plugin in list["plugins"]?.arrayValue ?? [] {
            for (type, schema) in plugin["schemas"]?.objectValue ?? [:] {
                for (key, member) in schema["properties"]?.objectValue ?? [:] where key != "type" {
                    #expect(member["description"]?.stringValue?.isEmpty == false, "\(type).\(key) has no description")
                    described += 1
                }
            }
        }
        #expect(described >= 50, "\(described) keys")
        #expect(list["hostKeys"]?["essential"]?["type"] == "boolean")
        #expect(list["builtInSchemas"]?["Sequence"]?["required"] == ["type", "steps"])
        #expect(list["builtInSchemas"]?["Group"]?["properties"]?["plans"]?["description"] != nil)
    }

    /// `accepts` (the quick yes or no on the plan.add path) agrees with the full check, for every shipped
    /// plan type: its examples, each of its invalid examples, and each key of the full example replaced by
    /// values of every kind, in and out of range.
    @Test func theQuickAcceptanceAgreesWithTheFullCheck() throws {
        let engine = try Self.engine(["SpringPlugin", "TweenPlugin", "DecayPlugin", "SetPlugin", "InteractionsPlugin"])
        let values: [JSONValue?] = [nil, .null, true, "ease-out", "x", -1e9, -1, 0, 0.5, 1, 2.5, 1e9, [], [1], [0, 1],
                                    [0.25, 0.1, 0.25, 1], [1, 2, 3, 4, 5], ["a"], [:], ["stiffness": 800, "dampingRatio": 1]]
        var plans = 0, refused = 0
        for factory in engine.registry.factories {
            let schema = try #require(factory.descriptor.schema), type = factory.descriptor.planType
            var corpus = [schema.example(planType: type, full: false), schema.example(planType: type, full: true),
                          schema.unknownKeyExample(planType: type)] + schema.invalidExamples(planType: type).map(\.plan)
            if case .object(let full) = schema.example(planType: type, full: true) {
                for key in full.keys where key != "type" {
                    for value in values {
                        var members = full
                        members[key] = value
                        corpus.append(.object(members))
                    }
                }
            }
            for plan in corpus {
                let violation = schema.violation(of: plan, isPlan: true)
                #expect(schema.accepts(plan, isPlan: true) == (violation == nil), "\(type): \(JSONWriter.string(plan)): \(violation?.message ?? "accepted")")
                plans += 1
                refused += violation == nil ? 0 : 1
            }
        }
        #expect(plans > 500 && refused > plans / 4, "\(plans) plans, \(refused) refused")
    }

    @Test func theCSetPluginReadsItsPlanThroughTheHost() throws {
        let engine = try Self.engine(["SetPlugin"])
        try engine.addPlan(plan(#"{"type":"Set","property":"opacity","value":[0.25,0.5,0.75]}"#), to: "card")
        #expect(engine.value(of: "opacity", target: "card") == [0.25, 0.5, 0.75])
    }
}
