import MotionTesting
import Testing
@testable import Wobble

/// docs/plugins.md's unit test of the Wobble plugin, with MotionTesting's in-process host.
@Test func wobbleSwingsAndRefusesABadAmplitude() throws {
    let harness = try PluginHarness(WobblePlugin.self)
    try harness.add(#"{"type":"Wobble","amplitude":20}"#, to: "card")
    harness.run(for: 0.25)
    #expect(abs(harness.value(of: "x", on: "card")![0] - 20) < 1e-6)
    #expect(harness.isActive)
    #expect(throws: PluginHarness.Failure(code: "plan.invalid", message: "amplitud: unknown key; did you mean amplitude?")) {
        try harness.add(#"{"type":"Wobble","amplitud":5}"#, to: "card")
    }
}
