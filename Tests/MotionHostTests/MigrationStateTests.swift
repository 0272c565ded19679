import Foundation
@testable import MotionAnimation
import MotionJSON
import Testing

/// Hot-swap states written with `StateWriter` and read with the JSON core, not Foundation's coders: the
/// same JSON, so builds with either coder read each other's states, and every number moves bit for bit.
@Suite("Migration state coding")
struct MigrationStateTests {
    static var simulations: [Simulation] {
        var spring = Simulation(value: [1, 2, 0, 0], velocity: [0.5, -3, 0, 0],
                                force: .spring(target: [100, -50, 0, 0], tension: 150, damping: 8), threshold: 0.1)
        spring.advance(by: 0.013)
        var decay = Simulation(value: [10, 0, 0, 0], velocity: [1000.123456789, 0, 0, 0], force: .decay(drag: 3.3),
                               threshold: 1e-9)
        decay.advance(by: 0.1234)
        let settled = Simulation(value: [1, 0, 0, 0], velocity: .zero,
                                 force: .spring(target: [1, 0, 0, 0], tension: 1, damping: 1), threshold: 0.1)
        return [spring, decay, settled]
    }

    @Test func ourTextDecodesWithFoundationToTheSameState() throws {
        for simulation in Self.simulations {
            var writer = StateWriter()
            simulation.write(into: &writer)
            #expect(try JSONDecoder().decode(Simulation.self, from: Data(writer.bytes)) == simulation)
        }
    }

    @Test func foundationsTextDecodesWithOursToTheSameState() throws {
        for simulation in Self.simulations {
            let json = try JSONEncoder().encode(simulation)
            let parsed = try JSONValue.parse(Array(json))
            #expect(Simulation(state: parsed) == simulation)
        }
    }

    @Test func theKitsCodersAgreeWithFoundations() throws {
        for simulation in Self.simulations {
            let ours = try JSONValueEncoder().encode(simulation)
            #expect(try JSONValue.parse(Array(try JSONEncoder().encode(simulation))) == ours)
            #expect(try JSONValueDecoder().decode(Simulation.self, from: ours) == simulation)
        }
    }
}
