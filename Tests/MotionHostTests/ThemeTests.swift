import Foundation
import Synchronization
@testable import MotionEngine
@testable import MotionHost
import MotionWire
import Testing

/// Motion themes in process (docs/themes.md): tokens resolved in plans, samples and routes;
/// unknown ones named with the closest; overlays per uid; the system theme for admins; a live retune that
/// carries running springs on without a jump.
@Suite("Themes")
struct ThemeTests {
    let output = RecordingOutput()
    let context: EngineContext

    init() throws {
        context = try TestContext.greeted(on: output, plugins: ["TweenPlugin", "SpringPlugin", "SetPlugin", "InteractionsPlugin"], role: .admin)
    }

    func call(_ method: String, _ params: JSONValue, session: UInt64 = 1, output: RecordingOutput? = nil) -> JSONValue {
        let output = output ?? self.output
        context.receive(line: JSONWriter.bytes(["id": 7, "method": .string(method), "params": params]), from: session)
        return output.lines.last?["result"] ?? output.lines.last?["error"] ?? .null
    }

    /// The first component of `x` of `card` in the caller's default runtime, and its velocity.
    func cardState() -> (value: Double, velocity: Double) {
        (context.engine.value(of: "x", target: "card", runtime: "0/default")?[0] ?? .nan,
         context.engine.velocity(of: "x", target: "card", runtime: "0/default")?[0] ?? .nan)
    }

    func sample(_ plan: JSONValue, _ time: Double) -> JSONValue {
        call("plan.sample", ["plan": plan, "times": [.number(time)]])["samples"]?.arrayValue?.first ?? .null
    }

    @Test func tokensResolveInEveryPlaceAPlanNamesThem() throws {
        // A spring token's keys go into the plan: the same curve as the numbers written out.
        let named = sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "spring": "@spatial.fast"], 0.05)
        let written = sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "dampingRatio": 1, "stiffness": 1000], 0.05)
        #expect(named == written && named != .null, "\(named) vs \(written)")
        // A plan's own keys win over the token's.
        let overridden = sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "spring": "@spatial.fast", "stiffness": 300], 0.05)
        #expect(overridden == sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "dampingRatio": 1, "stiffness": 300], 0.05))
        // Timing and duration tokens; a motion token supplies the type.
        let tween = sample(["type": "Tween", "property": "x", "from": [0], "to": [1], "timing": "@enter", "duration": "@medium2"], 0.1)
        #expect(tween == sample(["type": "Tween", "property": "x", "from": [0], "to": [1], "timing": "ease-out", "duration": 0.3], 0.1))
        let motion = sample(["property": "x", "from": [0], "to": [1], "motion": "@notification.enter"], 0.1)
        #expect(motion == sample(["type": "Spring", "property": "x", "from": [0], "to": [1], "dampingRatio": 1, "stiffness": 800], 0.1))
        // In a list of timings, in a composite's steps, and as a Tossable's own `spring` object.
        let keyframes = call("plan.add", ["target": "k", "plan": ["type": "Keyframes", "property": "x", "values": [[0], [1], [2]],
                                                                   "timing": ["@enter", "linear"], "duration": "@short2"]])
        #expect(keyframes["performer"] != nil, "\(keyframes)")
        let sequence = call("plan.add", ["target": "s", "plan": ["type": "Sequence", "steps": [
            ["type": "Tween", "property": "x", "to": [1], "duration": "@short1"], ["property": "x", "to": [0], "motion": "@notification.enter"]]]])
        #expect(sequence["performer"] != nil || sequence["performers"] != nil, "\(sequence)")
        let toss = call("plan.add", ["target": "t", "plan": ["type": "Tossable", "property": "x", "gesture": "g", "spring": "@spatial.fast"]])
        #expect(toss["performer"] != nil, "\(toss)")
    }

    /// A router's transition plans name tokens too: checked at `router.configure` as its owner sees
    /// them, resolved when they run.
    @Test func aRoutesTransitionTakesTokens() {
        _ = call("subscribe", ["streams": ["trace"]])
        let push: JSONValue = ["type": "Spring", "property": "offset", "from": [400], "to": [0], "spring": "@route.push"]
        let configured = call("router.configure", ["scheme": "demo", "routes": ["home": ["kind": "stack"], "show": ["kind": "stack", "transition": ["push": push]]]])
        #expect(configured["routes"] == 2, "\(configured)")
        _ = call("route.go", ["scheme": "demo", "to": "demo://home/show"])
        for _ in 0..<3 { context.tick(dt: 1.0 / 120) }
        let added = output.lines.first { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }
        #expect(added?["plan"]?["stiffness"] == 800 && added?["plan"]?["dampingRatio"] == 1 && added?["plan"]?["spring"] == nil,
                "the route's spring as motiond's route.push: \(String(describing: added))")
        let typo = call("router.configure", ["scheme": "other", "routes": ["home": ["kind": "stack", "transition": ["type": "Spring", "property": "x", "to": [0], "spring": "@route.psh"]]]])
        #expect(typo["code"] == "plan.invalid" && typo["message"]?.stringValue?.contains("@route.push") == true, "\(typo)")
    }

    /// A route's spring that names no physics takes the theme's `route.push` (critically damped): a push
    /// from 400 does not overshoot (the plugin's default spring went 51 px past) and is done sooner.
    @Test func aRoutesBareSpringTakesTheThemesRouteSpring() {
        _ = call("subscribe", ["streams": ["trace", "routes"]])
        let push: JSONValue = ["type": "Spring", "property": "offset", "from": [400], "to": [0]]
        _ = call("router.configure", ["scheme": "demo", "routes": ["home": ["kind": "stack"], "show": ["kind": "stack", "transition": ["push": push]]]])
        _ = call("route.go", ["scheme": "demo", "to": "demo://home/show"])
        var lowest = 400.0, ticks = 0
        while ticks < 600, output.lines.first(where: { $0["kind"] == "route.transition.end" || $0["event"] == "route.transition.end" }) == nil {
            context.tick(dt: 1.0 / 120)
            ticks += 1
            lowest = min(lowest, context.engine.value(of: "offset", target: "screen:home/show", runtime: "0/motiond.route.demo")?.first ?? lowest)
        }
        let added = output.lines.first { $0["kind"] == "plan.added" && $0["planType"] == "Spring" }
        #expect(added?["plan"]?["stiffness"] == 800 && added?["plan"]?["dampingRatio"] == 1, "\(String(describing: added))")
        #expect(lowest >= 0, "no overshoot: \(lowest)")
        #expect(ticks < 120, "the route arrived in \(ticks) ticks")
    }

    /// A router's transition under way is carried on by a retune of its `route.push` as a client's
    /// spring is: no jump in value or velocity, then the stiffer spring takes the screen home sooner; the
    /// route still ends with one `route.transition.end`.
    @Test func aRetuneCarriesARunningRouteTransitionOn() {
        _ = call("subscribe", ["streams": ["trace", "routes"]])
        let push: JSONValue = ["type": "Spring", "property": "offset", "from": [400], "to": [0]]
        _ = call("router.configure", ["scheme": "demo", "routes": ["home": ["kind": "stack"], "show": ["kind": "stack", "transition": ["push": push]]]])
        _ = call("route.go", ["scheme": "demo", "to": "demo://home/show"])
        let runtime = "0/motiond.route.demo", screen = "screen:home/show"
        func state() -> (value: Double, velocity: Double) {
            (context.engine.value(of: "offset", target: screen, runtime: runtime)?[0] ?? .nan,
             context.engine.velocity(of: "offset", target: screen, runtime: runtime)?[0] ?? .nan)
        }
        for _ in 0..<6 { context.tick(dt: 1.0 / 120) }
        let before = state()
        #expect(before.value > 10 && before.value < 390 && before.velocity < -100, "under way: \(before)")
        var theme = ShippedThemes.motiond.json
        theme["springs"]?["route.push"] = ["dampingRatio": 1, "stiffness": 3200]
        theme["name"] = "snappier"
        #expect(call("theme.set", ["theme": theme])["changed"] == ["springs.route.push"])
        #expect(state().value == before.value && state().velocity == before.velocity, "no jump: \(before) → \(state())")
        #expect(output.lines.last { $0["kind"] == "plan.added" && $0["target"] == .string(screen) }?["plan"]?["stiffness"] == 3200,
                "the screen's spring was added again with the new stiffness")
        // From there it follows the new spring (critically damped, ω = √3200) exactly.
        context.tick(dt: 1.0 / 120)
        let w = 3200.0.squareRoot(), t = 1.0 / 120
        let expected = (before.value + (before.velocity + w * before.value) * t) * exp(-w * t)
        #expect(abs(state().value - expected) < 1e-9, "\(state()) vs \(expected)")
        var ticks = 7
        while ticks < 600, !output.lines.contains(where: { $0["event"] == "route.transition.end" || $0["kind"] == "route.transition.end" }) {
            context.tick(dt: 1.0 / 120)
            ticks += 1
        }
        #expect(ticks < 45, "home in \(ticks) ticks (35 seen; at route.push's 800 it takes 55)")
        #expect(output.lines.filter { $0["event"] == "route.transition.end" || $0["kind"] == "route.transition.end" }.count == 1)
        #expect(state().value == 0)
    }

    @Test func anUnknownTokenIsRefusedNamingTheClosestKnownOne() {
        let typo = call("plan.add", ["target": "a", "plan": ["type": "Spring", "property": "x", "to": [1], "spring": "@spatial.fsat"]])
        #expect(typo["code"] == "plan.invalid" && typo["message"]?.stringValue?.contains("@spatial.fsat") == true
                && typo["message"]?.stringValue?.contains("@spatial.fast") == true, "\(typo)")
        let nested = call("plan.add", ["target": "a", "plan": ["type": "Sequence", "steps": [["type": "Tween", "property": "x", "to": [1], "timing": "@entr"]]]])
        #expect(nested["code"] == "plan.invalid" && nested["message"]?.stringValue?.hasPrefix("steps[0].timing") == true
                && nested["message"]?.stringValue?.contains("@enter") == true, "\(nested)")
        // Resolved, then held to the plan type's schema: a duration token where a spring is wanted fails there.
        let misplaced = call("plan.add", ["target": "a", "plan": ["type": "Spring", "property": "x", "to": [1], "spring": "@medium2"]])
        #expect(misplaced["code"] == "plan.invalid", "\(misplaced)")
        #expect(context.engine.performerCount == 0, "nothing was added")
    }

    @Test func anOverlayChangesOnlyItsOwnUidsMotionAndTheSystemThemeIsAnAdmins() {
        let other = RecordingOutput()
        context.openSession(2, output: other, peer: PeerCredentials(uid: 1000, gid: 1000, pid: 1), role: .client)
        _ = call("hello", ["protocol": 1], session: 2, output: other)
        let stiff: JSONValue = ["name": "mine", "springs": ["spatial.fast": ["dampingRatio": 1, "stiffness": 3000]]]
        #expect(call("theme.set", ["theme": stiff], session: 2, output: other)["code"] == "access.denied", "the system theme is an admin's")
        let set = call("theme.set", ["theme": stiff, "scope": "user"], session: 2, output: other)
        #expect(set["changed"] == ["springs.spatial.fast"], "\(set)")
        let plan: JSONValue = ["type": "Spring", "property": "y", "from": [0], "to": [1], "spring": "@spatial.fast"]
        let mine = call("plan.sample", ["plan": plan, "times": [0.02]], session: 2, output: other)["samples"]?.arrayValue?.first
        let theirs = sample(plan, 0.02)
        #expect(mine != nil && mine != theirs, "uid 1000 sees its overlay, uid 0 the system's")
        #expect(theirs == sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "dampingRatio": 1, "stiffness": 1000], 0.02))
        let effective = call("theme.get", [:], session: 2, output: other)
        #expect(effective["tokens"]?["springs"]?["spatial.fast"]?["origin"] == "user")
        #expect(call("theme.get", [:])["tokens"]?["springs"]?["spatial.fast"]?["origin"] == "system")
        // The overlay's quota.
        var many: [String: JSONValue] = [:]
        for index in 0...256 { many["d\(index)"] = .number(0.1) }
        let tooMany = call("theme.set", ["theme": ["name": "big", "durations": .object(many)], "scope": "user"], session: 2, output: other)
        #expect(tooMany["code"] == "quota.exceeded", "\(tooMany)")
        // A malformed theme is refused whole, naming the token.
        let bad = call("theme.set", ["theme": ["name": "bad", "springs": ["ok": ["stiffness": 100], "x": ["stifness": 1]]], "scope": "user"],
                       session: 2, output: other)
        #expect(bad["code"] == "theme.invalid" && bad["message"]?.stringValue?.contains("stiffness") == true, "\(bad)")
        #expect(call("theme.get", ["scope": "user"], session: 2, output: other)["user"] == "mine", "the overlay is as it was")
    }

    /// What a hostile overlay might try: a motion that names itself (it would recurse until the stack
    /// ran out), a large token named many times (past a plan's size once filled in); a removed plan is
    /// not brought back by a retune; one uid's `theme.changed` is not another's to see.
    @Test func hostileTokensAreRefusedAndRetunesKeepToWhatIsStillRunning() {
        let other = RecordingOutput()
        context.openSession(2, output: other, peer: PeerCredentials(uid: 1000, gid: 1000, pid: 1), role: .client)
        _ = call("hello", ["protocol": 1], session: 2, output: other)
        _ = call("subscribe", ["streams": ["trace"]], session: 2, output: other)
        let loop = call("theme.set", ["scope": "user", "theme": ["name": "loop", "motions": [
            "loop": ["type": "Sequence", "steps": [["motion": "@loop"]]]]]], session: 2, output: other)
        #expect(loop["code"] == "theme.invalid" && loop["message"]?.stringValue?.contains("motion") == true, "\(loop)")
        let padding = JSONValue.string(String(repeating: "x", count: 12_000))
        let big = call("theme.set", ["scope": "user", "theme": ["name": "big", "motions": [
            "big": ["type": "Tween", "property": "x", "to": [1], "note": padding]]]], session: 2, output: other)
        #expect(big["changed"] == ["motions.big"], "\(big)")
        let many = JSONValue.array((0..<40).map { index in ["property": .string("p\(index)"), "motion": "@big"] })
        let grown = call("plan.add", ["target": "g", "plan": ["type": "Group", "plans": many]], session: 2, output: other)
        #expect(grown["code"] == "request.limit", "a plan past its size once filled in: \(grown)")

        // A client of uid 2000 traces too: it does not hear uid 1000's overlay change.
        let third = RecordingOutput()
        context.openSession(3, output: third, peer: PeerCredentials(uid: 2000, gid: 2000, pid: 2), role: .client)
        _ = call("hello", ["protocol": 1], session: 3, output: third)
        _ = call("subscribe", ["streams": ["trace"]], session: 3, output: third)
        _ = call("theme.set", ["scope": "user", "theme": ["name": "again", "springs": ["spatial.fast": ["dampingRatio": 1, "stiffness": 2500]]]],
                 session: 2, output: other)
        #expect(other.lines.contains { $0["kind"] == "theme.changed" && $0["scope"] == "user" }, "its own change is its to see")
        #expect(!third.lines.contains { $0["kind"] == "theme.changed" && $0["scope"] == "user" }, "another uid's is not")
        _ = call("subscribe", ["streams": ["trace"]])

        // A named spring on a token, removed: a retune does not add it again.
        _ = call("plan.add", ["target": "card", "name": "slide", "plan": ["type": "Spring", "property": "x", "from": [0], "to": [100], "spring": "@spatial.slow"]])
        for _ in 0..<5 { context.tick(dt: 1.0 / 120) }
        _ = call("plan.remove", ["target": "card", "name": "slide"])
        _ = call("plan.add", ["target": "other", "plan": ["type": "Tween", "property": "z", "to": [1], "duration": 10]])
        let added = output.lines.filter { $0["kind"] == "plan.added" }.count
        var theme = ShippedThemes.motiond.json
        theme["springs"]?["spatial.slow"] = ["dampingRatio": 1, "stiffness": 2000]
        theme["name"] = "stiffer"
        #expect(call("theme.set", ["theme": theme])["changed"] == ["springs.spatial.slow"])
        #expect(output.lines.filter { $0["kind"] == "plan.added" }.count == added, "the removed spring stays removed")
        // And the system theme goes back to the configured one with null.
        let back = call("theme.set", ["theme": .null])
        #expect(back["theme"] == "motiond" && call("theme.get", [:])["system"] == "motiond", "\(back)")
    }

    /// A token no plan could use is refused when the theme is set, naming it, and nothing changes: its
    /// plugin is asked, in a dry run no client sees.
    @Test func tokensNoPlanCouldUseAreRefusedWhenTheThemeIsSet() {
        _ = call("subscribe", ["streams": ["trace"]])
        let before = output.lines.count
        for (theme, named, says) in [
            (["springs": ["spatial.fast": ["stiffness": -5, "dampingRatio": 1]]], "theme.springs.spatial.fast", "stiffness"),
            (["springs": ["two": ["stiffness": 300, "damping": 20, "dampingRatio": 1]]], "theme.springs.two", "one spring form per plan"),
            (["timings": ["enter": "bouncy"]], "theme.timings.enter", #"unknown timing function "bouncy""#),
            // A motion naming a token that is nowhere (it failed only at each plan that used the motion).
            (["motions": ["m": ["type": "Spring", "spring": "@nonexistent"]]], "theme.motions.m", "@nonexistent is not a known spring token"),
        ] as [(JSONValue, String, String)] {
            var json = theme
            json["name"] = "broken"
            let refused = call("theme.set", ["scope": "user", "theme": json])
            #expect(refused["code"] == "theme.invalid", "\(refused)")
            let message = refused["message"]?.stringValue ?? ""
            #expect(message.hasPrefix(named + ": ") && message.contains(says), "\(message)")
        }
        #expect(call("theme.get", [:])["user"] == nil, "no overlay was set")
        #expect(output.lines.count == before + 5, "one answer each, no trace: \(output.lines.suffix(from: before))")
        // An overlay's motion may name the system theme's tokens beneath it.
        let overlaid = call("theme.set", ["scope": "user", "theme": ["name": "mine", "motions": ["m": ["type": "Spring", "spring": "@spatial.fast"]]]])
        #expect(overlaid["changed"] == ["motions.m"], "\(overlaid)")
        _ = call("theme.set", ["scope": "user", "theme": .null])
        #expect(context.engine.runtimes.keys.allSatisfy { !$0.contains("theme-check") }, "the dry run is gone")
        // Tokens a plan can use are kept, as before.
        let good = call("theme.set", ["scope": "user", "theme": ["name": "good", "springs": ["spatial.fast": ["stiffness": 900, "dampingRatio": 0.9]],
                                                                  "timings": ["enter": "cubic-bezier(0.2, 0, 0, 1)"]]])
        #expect(good["changed"] == ["springs.spatial.fast", "timings.enter"], "\(good)")
    }

    /// A plan refused once its tokens are filled in names them: the keys in the message may be ones the
    /// client never wrote.
    @Test func aRefusalOfAFilledInPlanNamesItsTokens() {
        _ = call("theme.set", ["scope": "user", "theme": ["name": "mine", "springs": ["pop": ["stiffness": 800, "dampingRatio": 1]]]])
        let plan: JSONValue = ["type": "Spring", "property": "x", "to": [1], "spring": "@pop", "duration": 0.5]
        let refused = call("plan.add", ["target": "t", "plan": plan])
        #expect(refused["code"] == "plan.invalid", "\(refused)")
        #expect(refused["message"]?.stringValue?.hasSuffix("(the plan as filled in from @pop)") == true, "\(refused)")
        let sampled = call("plan.sample", ["plan": plan, "times": [0.1]])
        #expect(sampled["message"] == refused["message"], "\(sampled)")
        let plain = call("plan.add", ["target": "t", "plan": ["type": "Spring", "property": "x", "to": [1], "stiffness": 800, "duration": 0.5]])
        #expect(plain["message"]?.stringValue?.contains("filled in") == false, "no tokens, nothing added: \(plain)")
        let bare = call("plan.add", ["target": "t", "plan": ["type": "Spring", "property": "x", "to": [1], "spring": "pop"]])
        #expect(bare["message"] == #"spring: "pop" names no token; a token is named with @ ("@pop")"#, "\(bare)")
    }

    /// A retune over many running plans is worked in slices between ticks, in the lane of the uid whose
    /// change it is: one change cannot hold every uid's frames for the time all of them take.
    @Test func aLargeRetuneIsWorkedInSlices() {
        let pending = Mutex<[@Sendable (EngineContext) -> Void]>([])
        context.hooks.onEngineThreadFor = { _, _, body in pending.withLock { $0.append(body) } }
        let count = 600
        // Slow enough that none comes to rest before its turn (one at rest is not carried on).
        _ = call("theme.set", ["scope": "user", "theme": ["name": "slow", "springs": ["slow": ["dampingRatio": 1, "stiffness": 1]]]])
        for index in 0..<count {
            _ = call("plan.add", ["target": .string("t\(index)"), "plan": ["type": "Spring", "property": "x", "from": [0], "to": [100],
                                                                          "spring": "@slow"]])
        }
        context.tick(dt: 1.0 / 120)
        _ = call("subscribe", ["streams": ["trace"]])
        func added() -> Int { output.lines.filter { $0["kind"] == "plan.added" }.count }
        let set = call("theme.set", ["scope": "user", "theme": ["name": "stiffer", "springs": ["slow": ["dampingRatio": 1, "stiffness": 50]]]])
        #expect(set["changed"] == ["springs.slow"], "\(set)")
        #expect(added() < count, "not all at once: \(added())")
        var slices = 1
        while let body = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            context.tick(dt: 1.0 / 120)
            body(context)
            slices += 1
        }
        #expect(slices > 1 && added() == count, "\(slices) slices, \(added()) carried on")
        // Every spring now moves with the new token (the same state as a spring added with it at once).
        #expect(context.themes.tuned.values.allSatisfy { $0.resolved["stiffness"] == 50 })
    }

    /// A retune carries a running spring on from its value and velocity (no jump) with the new token,
    /// at several phases of its motion; later plans use the new values; `theme.changed` names the token.
    @Test(arguments: [3, 12, 30]) func aRetuneCarriesARunningSpringOnWithoutAJump(ticks: Int) throws {
        _ = call("subscribe", ["streams": ["trace"]])
        _ = call("plan.add", ["target": "card", "plan": ["type": "Spring", "property": "x", "from": [0], "to": [100], "spring": "@spatial.slow"]])
        for _ in 0..<ticks { context.tick(dt: 1.0 / 120) }
        let runtime = "0/default"
        let before = (context.engine.value(of: "x", target: "card", runtime: runtime)?[0] ?? .nan,
                      context.engine.velocity(of: "x", target: "card", runtime: runtime)?[0] ?? .nan)
        var theme = ShippedThemes.motiond.json
        theme["springs"]?["spatial.slow"] = ["dampingRatio": 1, "stiffness": 2000]
        theme["name"] = "stiffer"
        let set = call("theme.set", ["theme": theme])
        #expect(set["changed"] == ["springs.spatial.slow"], "\(set)")
        #expect(output.lines.contains { $0["kind"] == "theme.changed" && $0["tokens"] == ["springs.spatial.slow"] })
        let after = (context.engine.value(of: "x", target: "card", runtime: runtime)?[0] ?? .nan,
                     context.engine.velocity(of: "x", target: "card", runtime: runtime)?[0] ?? .nan)
        #expect(after.0 == before.0 && after.1 == before.1, "no jump: \(before) → \(after)")
        // From there it follows the new spring (critically damped, ω = √2000) exactly.
        context.tick(dt: 1.0 / 120)
        let w = 2000.0.squareRoot(), t = 1.0 / 120, x0 = before.0 - 100, v0 = before.1
        let expected = 100 + (x0 + (v0 + w * x0) * t) * exp(-w * t)
        let value = context.engine.value(of: "x", target: "card", runtime: runtime)?[0] ?? .nan
        #expect(abs(value - expected) < 1e-9, "\(value) vs \(expected)")
        // A later plan uses the new token.
        let later = sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "spring": "@spatial.slow"], 0.05)
        #expect(later == sample(["type": "Spring", "property": "y", "from": [0], "to": [1], "dampingRatio": 1, "stiffness": 2000], 0.05))
    }

    /// A retune carries a running tween on from its value and velocity (no jump in either) with the new
    /// timing and duration, for the share of the new duration the old one had left, and it still ends at `to`.
    @Test(arguments: [6, 18, 30]) func aRetuneCarriesARunningTweenOnWithoutAJump(ticks: Int) throws {
        try retuneHalfwayAndFollow(["type": "Tween", "property": "x", "from": [0], "to": [100],
                                    "timing": "@standard", "duration": "@medium2"], ticks: ticks, end: 100)
    }

    /// A retune carries a running Keyframes on the same way, through the values still ahead: no jump in
    /// value or velocity (in each of its three segments), and it ends at its last value when the rest of
    /// the new duration is over.
    @Test(arguments: [6, 24, 30]) func aRetuneCarriesRunningKeyframesOnWithoutAJump(ticks: Int) throws {
        try retuneHalfwayAndFollow(["type": "Keyframes", "property": "x", "values": [[0], [100], [40], [70]],
                                    "keyTimes": [0, 0.5, 0.8, 1], "timing": "@standard", "duration": "@medium2"], ticks: ticks, end: 70)
    }

    /// Adds `plan` (timed by `@standard` over `@medium2`, 0.3 s), ticks `ticks` frames, then retunes both
    /// tokens (0.6 s, ease-out): no jump in value, the velocity within 1 % a hundred-thousandth of a second
    /// later, and the end at `end` when the rest of the new duration is over: 0.6 × (1 − elapsed / 0.3).
    func retuneHalfwayAndFollow(_ plan: JSONValue, ticks: Int, end: Double) throws {
        _ = call("plan.add", ["target": "card", "plan": plan])
        for _ in 0..<ticks { context.tick(dt: 1.0 / 120) }
        let runtime = "0/default"
        func state() -> (value: Double, velocity: Double) { cardState() }
        let before = state()
        #expect(abs(before.velocity) > 1 && before.value != end, "under way: \(before)")
        var theme = ShippedThemes.motiond.json
        theme["durations"]?["medium2"] = 0.6
        theme["timings"]?["standard"] = "ease-out"
        theme["name"] = "slower"
        #expect(call("theme.set", ["theme": theme])["changed"] == ["durations.medium2", "timings.standard"])
        #expect(state().value == before.value, "no jump in value")
        context.tick(dt: 1e-5)
        let next = state()
        #expect(abs(next.velocity - before.velocity) < 0.01 * abs(before.velocity), "no jump in velocity: \(before) → \(next)")
        #expect(abs(next.value - (before.value + before.velocity * 1e-5)) < 1e-3, "\(before) → \(next)")
        let remaining = 0.6 * (1 - Double(ticks) / 120 / 0.3) - 1e-5
        var time = 0.0
        while context.engine.isActive(runtime: runtime), time < 2 {
            context.tick(dt: 1.0 / 1000)
            time += 1.0 / 1000
        }
        #expect(abs(time - remaining) < 0.0015, "ended after \(time) s, expected \(remaining) s")
        #expect(state().value == end)
    }

    /// A retune carries a running loop (a Tween with `repeat` and `autoreverse`, linear over `@medium2`,
    /// 0.3 s a way, three times there and back) on in phase with the new duration, 0.6 s: no jump in value,
    /// half the speed in the same direction, and the rest of its cycles take twice as long, ending where
    /// its cycles began. In the first way, the way back and a later cycle.
    @Test(arguments: [30, 50, 100]) func aRetuneCarriesARunningLoopOnInPhase(ticks: Int) throws {
        let plan: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [100], "timing": "linear",
                               "duration": "@medium2", "repeat": 3, "autoreverse": true]
        try retuneLoopAndFollow(plan, ticks: ticks, start: 0)
    }

    /// A loop without `from` began where the property was: a retune keeps that start, and a `repeat`
    /// counted in fractions keeps what is left of it (2.5 cycles from 20 to 100 end half way, at 60).
    @Test(arguments: [20, 70]) func aRetuneCarriesALoopWithoutFromOnFromWhereItBegan(ticks: Int) throws {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Set", "property": "x", "value": [20]]])
        let plan: JSONValue = ["type": "Tween", "property": "x", "to": [100], "timing": "linear",
                               "duration": "@medium2", "repeat": 2.5]
        try retuneLoopAndFollow(plan, ticks: ticks, start: 20, end: 60)
    }

    /// Repeating keyframes carry on in phase the same way.
    @Test func aRetuneCarriesRepeatingKeyframesOnInPhase() throws {
        let plan: JSONValue = ["type": "Keyframes", "property": "x", "values": [[0], [100], [40]], "timing": "linear",
                               "duration": "@medium2", "repeat": 2]
        try retuneLoopAndFollow(plan, ticks: 50, start: 0, end: 40)
    }

    /// Adds the loop `plan` (0.3 s a cycle or a way), ticks `ticks` frames, sets `@medium2` to 0.6 s: the
    /// value is where it was, the velocity half of what it was, and the loop ends at `end` (by default
    /// `start`, where an autoreversing loop ends) after twice the time it had left.
    func retuneLoopAndFollow(_ plan: JSONValue, ticks: Int, start: Double, end: Double? = nil) throws {
        let add = call("plan.add", ["target": "card", "plan": plan])
        #expect(add["performer"] != nil, "\(add)")
        let total = 0.3 * (plan["repeat"]?.doubleValue ?? 1) * (plan["autoreverse"] == true ? 2 : 1)
        for _ in 0..<ticks { context.tick(dt: 1.0 / 120) }
        let runtime = "0/default"
        func state() -> (value: Double, velocity: Double) { cardState() }
        let before = state()
        #expect(abs(before.velocity) > 1, "under way: \(before)")
        var theme = ShippedThemes.motiond.json
        theme["durations"]?["medium2"] = 0.6
        theme["name"] = "slower"
        #expect(call("theme.set", ["theme": theme])["changed"] == ["durations.medium2"])
        #expect(abs(state().value - before.value) < 1e-9, "no jump in value: \(before.value) → \(state().value)")
        context.tick(dt: 1e-5)
        let next = state()
        #expect(abs(next.velocity - before.velocity / 2) < 1e-6 * abs(before.velocity), "half the speed: \(before) → \(next)")
        let remaining = 2 * (total - Double(ticks) / 120) - 1e-5
        var time = 0.0
        while context.engine.isActive(runtime: runtime), time < 10 {
            context.tick(dt: 1.0 / 1000)
            time += 1.0 / 1000
        }
        #expect(abs(time - remaining) < 0.0015, "ended after \(time) s, expected \(remaining) s")
        #expect(abs(state().value - (end ?? start)) < 1e-9, "ends at \(end ?? start): \(state())")
    }

    /// A client's negative delay starts an animation that far along, as CSS's does.
    @Test func aNegativeDelayStartsThatFarAlong() {
        _ = call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "from": [0], "to": [100],
                                                         "timing": "linear", "duration": 1, "delay": -0.25]])
        #expect(context.engine.value(of: "x", target: "card", runtime: "0/default") == [25])
        #expect(call("plan.add", ["target": "card", "plan": ["type": "Tween", "property": "x", "to": [1], "delay": -3601]])["code"]
                == "plan.invalid")
    }
}
