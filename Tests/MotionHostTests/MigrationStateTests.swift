import Foundation
@testable import MotionAnimation
import Testing

/// Hot-swap states written and read without Foundation's coders (`StateJSON`): the same JSON, so builds
/// with either coder read each other's states, and every number moves bit for bit.
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
            let parsed = try #require(json.withUnsafeBytes { StateJSON.parse($0) })
            #expect(Simulation(state: parsed) == simulation)
        }
    }

    @Test func theReaderAcceptsJSONAndRefusesAnythingElse() {
        func parse(_ text: String) -> StateJSON? {
            Array(text.utf8).withUnsafeBytes { StateJSON.parse($0) }
        }
        #expect(parse(#" {"a" : [1, -2.5e-3, true, false, null, "x\u00e9\n\ud83d\ude00\"\\"], "b": {}} "#)
            == .object(["a": .array([.number(1), .number(-0.0025), .bool(true), .bool(false), .null,
                                     .string("xé\n😀\"\\")]), "b": .object([:])]))
        #expect(parse("[]") == .array([]))
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        for bad in ["", "{", "[1,]", #"{"a" 1}"#, "01x", #""\x""#, "1 2", "nan", "1e999", #""\ud83d""#, "tru", deep,
                    "\"a\u{1}\""] {
            #expect(parse(bad) == nil, "\(bad)")
        }
        #expect(Array([0x22, 0xFF, 0x22] as [UInt8]).withUnsafeBytes { StateJSON.parse($0) } == nil, "invalid UTF-8")
    }
}
