import Foundation
@testable import MotionEngine
import MotionWire
import Testing

/// docs/operations.md#animations-survive-a-restart: the replay moves each target on its own clock, from
/// one of its changes to the next and from its last to now, in exact steps: the values are the closed
/// form's, and the work does not grow with the downtime.
@Suite("Journal replay")
struct JournalReplayTests {
    static let added = 1_000_000.0  // wall-clock seconds of the first record (any past instant)

    /// A lasting runtime: a critically damped spring on `a` retargeted 0.2 s later, a tween repeated
    /// forever on `b` added 0.1 s after the first spring, and a spring on `c` that settles long before now.
    static func journal() -> JournalTests.MemoryJournal {
        let journal = JournalTests.MemoryJournal()
        let spring: (Double) -> JSONValue = { to in
            ["type": "Spring", "property": "x", "to": [.number(to)], "stiffness": 100, "dampingRatio": 1, "epsilon": 1e-9]
        }
        var first = spring(1)
        first["from"] = [0]
        let tween: JSONValue = ["type": "Tween", "property": "x", "from": [0], "to": [10], "duration": 1, "timing": "linear",
                                "repeat": "forever", "autoreverse": true]
        let records: [JournalRecord] = [
            .create(runtime: "0/work", shared: false, t: added),
            .add(runtime: "0/work", target: "a", plan: first, name: nil, t: added),
            .add(runtime: "0/work", target: "b", plan: tween, name: nil, t: added + 0.1),
            .add(runtime: "0/work", target: "a", plan: spring(2), name: nil, t: added + 0.2),
            .add(runtime: "0/work", target: "c", plan: first, name: nil, t: added + 0.3),
        ]
        for record in records { try! journal.append(record.line) }
        return journal
    }

    /// The closed form of a critically damped spring (ω = 10) from 0 to 1, retargeted to 2 at 0.2 s.
    static func springA(at t: Double) -> Double {
        let omega = 10.0
        let x1 = 1 - (1 + omega * 0.2) * exp(-omega * 0.2), v1 = omega * omega * 0.2 * exp(-omega * 0.2)
        let y0 = x1 - 2, tau = t - 0.2
        return 2 + (y0 + (v1 + omega * y0) * tau) * exp(-omega * tau)
    }

    static func restored(now: Double) throws -> EngineContext {
        let context = try TestContext.greeted(on: RecordingOutput(), plugins: ["TweenPlugin", "SpringPlugin"])
        let result = context.journal.restoreRuntimes(from: journal(), now: now)
        #expect(result.problems.isEmpty, "\(result.problems)")
        return context
    }

    @Test func eachTargetIsReplayedExactlyFromItsOwnChanges() throws {
        let context = try Self.restored(now: Self.added + 0.5)
        let a = try #require(context.engine.value(of: "x", target: "a", runtime: "0/work")?[0])
        #expect(abs(a - Self.springA(at: 0.5)) < 1e-9, "a: \(a), the closed form \(Self.springA(at: 0.5))")
        // 0.4 s into its first cycle of 1 s, linear from 0 to 10.
        let b = try #require(context.engine.value(of: "x", target: "b", runtime: "0/work")?[0])
        #expect(abs(b - 4) < 1e-9, "b: \(b)")
        let c = try #require(context.engine.value(of: "x", target: "c", runtime: "0/work")?[0])
        #expect(abs(c - (1 - 3 * exp(-2))) < 1e-9, "c, 0.2 s after it was added: \(c)")
        #expect(context.engine.isActive(runtime: "0/work"))
    }

    @Test func theWorkDoesNotGrowWithTheDowntime() throws {
        let soon = try Self.restored(now: Self.added + 0.5)
        // Eleven days and a half later (an even number of the tween's 1 s halves: it is going forward).
        let later = try Self.restored(now: Self.added + 1_000_000.5)
        #expect(soon.journal.replaySteps == later.journal.replaySteps, "\(soon.journal.replaySteps) vs \(later.journal.replaySteps)")
        // One stretch of `a` between its two changes, and one per target to now.
        #expect(later.journal.replaySteps == 4)
        let b = try #require(later.engine.value(of: "x", target: "b", runtime: "0/work")?[0])
        #expect(abs(b - 4) < 1e-6, "b after 1,000,000 s: \(b)")
        let a = try #require(later.engine.value(of: "x", target: "a", runtime: "0/work")?[0])
        #expect(a == 2, "a came to rest on its target: \(a)")
        #expect(later.engine.isActive(runtime: "0/work"), "the tween repeats forever")
    }
}
