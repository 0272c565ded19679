@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// `runtime.speed {runtime, speed}` (docs/protocol.md): one runtime in slow motion for its owner, beside the
/// global speed; the others keep their pace, its timeline clock runs at its speed, and 1 brings it back.
@Suite("A runtime's own speed")
struct RuntimeSpeedTests {
    let output = RecordingOutput()
    let context: EngineContext

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["TweenPlugin"])
    }

    func call(_ method: String, _ params: JSONValue) -> JSONValue { TestContext.call(context, method, params, on: output) }

    func run(seconds: Double) {
        for _ in 0..<Int((seconds * 120).rounded()) { context.tick(dt: 1.0 / 120) }
    }

    func x(_ runtime: String) -> Double { context.engine.value(of: "x", target: "a", runtime: "0/" + runtime)?.first ?? .nan }

    @Test func aSlowedRuntimeCrawlsWhileTheOthersKeepTheirPace() throws {
        _ = call("subscribe", ["streams": ["trace"]])
        let linear: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 1, "timing": "linear"]
        for runtime in ["slow", "normal"] {
            _ = call("runtime.create", ["name": .string(runtime)])
            _ = call("plan.add", ["runtime": .string(runtime), "target": "a", "plan": linear])
        }
        #expect(call("runtime.speed", ["runtime": "slow", "speed": 0.25]) == ["runtime": "slow", "speed": 0.25])
        #expect(output.lines.contains { $0["kind"] == "runtime.speed.changed" && $0["speed"] == 0.25 })
        run(seconds: 0.5)
        #expect(abs(x("normal") - 5) < 1e-6, "normal: \(x("normal"))")
        #expect(abs(x("slow") - 1.25) < 1e-6, "at a quarter speed: \(x("slow"))")
        #expect(abs((context.engine.timelines.clock(ofRuntime: "0/slow") ?? 0) - 0.125) < 1e-6, "its timeline clock runs at its speed")
        #expect(call("runtime.state", ["runtime": "slow"])["speed"] == 0.25)
        _ = call("runtime.speed", ["runtime": "slow", "speed": 1])
        run(seconds: 0.5)
        #expect(abs(x("slow") - 6.25) < 1e-6, "back at its pace: \(x("slow"))")
        #expect(x("normal") == 10)
        _ = call("runtime.speed", ["runtime": "slow", "speed": 2])
        run(seconds: 0.25)
        #expect(x("slow") == 10, "twice as fast, it has finished: \(x("slow"))")
        #expect(!context.engine.isActive(runtime: "0/slow") && !context.wantsTicks, "at rest, the clock may sleep")
        #expect(output.lines.filter { $0["kind"] == "runtime.idle" }.count == 2)
    }

    @Test func aSlowedRuntimeWaitsWhilePausedAndForgetsNothingAdded() throws {
        _ = call("runtime.create", ["name": "r"])
        _ = call("runtime.speed", ["runtime": "r", "speed": 0.5])
        // A plan added after the speed was set goes at that speed too.
        _ = call("plan.add", ["runtime": "r", "target": "a", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [1], "duration": 1, "timing": "linear"]])
        #expect(context.wantsTicks)
        run(seconds: 0.5)
        #expect(abs(x("r") - 0.25) < 1e-6, "\(x("r"))")
        _ = call("timeline.attach", ["runtime": "r"])
        run(seconds: 0.5)
        _ = call("timeline.detach", ["runtime": "r"])
        #expect(abs(x("r") - 0.25) < 1e-6, "a scrubber held it: \(x("r"))")
        run(seconds: 0.5)
        #expect(abs(x("r") - 0.5) < 1e-6, "\(x("r"))")
    }

    @Test func badSpeedsAndUnknownRuntimesAreRefused() {
        for speed: JSONValue in [0, -1, 10.5, "slow", .null] {
            #expect(call("runtime.speed", ["runtime": "default", "speed": speed])["code"] == "request.invalid", "\(speed)")
        }
        #expect(call("runtime.speed", ["runtime": "nope", "speed": 0.5])["code"] == "runtime.not_found")
        #expect(call("runtime.speed", ["runtime": "default", "speed": 0.5, "sped": 1])["code"] == "request.invalid")
        #expect(call("runtime.speed", ["speed": 0.1]) == ["runtime": "default", "speed": 0.1], "the caller's default runtime")
    }

    /// A router's owner may pause, scrub and slow its route transitions (their runtime is the daemon's, so
    /// nothing may be added to it).
    @Test func aRoutersOwnerPacesItsTransitions() throws {
        _ = call("router.configure", ["scheme": "tv", "routes": ["home": ["kind": "stack"], "show": ["kind": "stack", "transition": [
            "push": ["type": "Tween", "property": "offset", "from": [400], "to": [0], "duration": 2, "timing": "linear"]]]]])
        _ = call("route.go", ["scheme": "tv", "to": "tv://home"])
        _ = call("route.go", ["scheme": "tv", "to": "tv://home/show"])
        let runtime: JSONValue = "motiond.route.tv"
        #expect(call("runtime.speed", ["runtime": runtime, "speed": 0.5]) == ["runtime": runtime, "speed": 0.5])
        run(seconds: 1)
        let offset = context.engine.value(of: "offset", target: "screen:home/show", runtime: "0/motiond.route.tv")?.first ?? .nan
        #expect(abs(offset - 300) < 1e-6, "half speed: a quarter of the way after 1 s, \(offset)")
        #expect(call("timeline.attach", ["runtime": runtime])["attached"] == true)
        #expect(call("plan.add", ["runtime": runtime, "target": "x", "plan": ["type": "Tween", "property": "a", "to": [1]]])["code"] == "runtime.protected")
        #expect(call("runtime.destroy", ["name": runtime])["code"] == "runtime.protected")
    }
}
