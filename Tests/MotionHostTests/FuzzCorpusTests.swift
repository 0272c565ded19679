import Foundation
import MotionFuzzing
import MotionRoutes
import Testing

/// Every input in Fuzz/corpus (seeds and crashes the fuzzer found, once fixed) runs through its target
/// on every test run: a fixed crash stays fixed. Serialized: the request and plan targets share one
/// in-process engine (libFuzzer calls a target from one thread), which two tests must not drive at once.
@Suite("Fuzz corpus", .serialized)
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    static func inputs(_ target: String) throws -> [[UInt8]] {
        let directory = corpus.appendingPathComponent(target)
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted().map {
            Array(try Data(contentsOf: directory.appendingPathComponent($0)))
        }
    }

    @Test func route() throws {
        let inputs = try Self.inputs("route")
        #expect(inputs.count > 50)
        for input in inputs { FuzzTargets.route(input) }
    }

    @Test func request() throws {
        let inputs = try Self.inputs("request")
        #expect(inputs.count > 5)
        for input in inputs { FuzzTargets.request(input) }
    }

    @Test func plan() throws {
        let inputs = try Self.inputs("plan")
        #expect(inputs.count > 5)
        for input in inputs { FuzzTargets.plan(input) }
    }

    /// The first crash the route fuzzer found: a combining mark right after a separator fused with it
    /// into one Character, so the canonical form did not parse back.
    @Test func aCombiningMarkAfterASeparatorKeepsTheSeparator() throws {
        let state = try RoutePath.resolve("\u{0356}e.", from: RouteState())
        let url = state.url(scheme: "x")
        #expect(try RouteURL(parsing: url).state == state)
        #expect(try RouteURL(parsing: "x://a/\u{0356}b").state.components.map(\.key) == ["a", "\u{0356}b"])
    }
}
