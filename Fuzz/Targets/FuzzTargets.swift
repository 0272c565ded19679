import Logging
import MotionAnimation
import MotionEngine
import MotionHost
import MotionPluginKit
import MotionRoutes
import MotionWire

/// The code paths that read untrusted bytes, each as a function of one input (libFuzzer targets and the
/// corpus regression test call these). A violated invariant is a `precondition` failure: a crash the
/// fuzzer reports.
package enum FuzzTargets {
    /// Route grammar. Input: a URL, optionally a newline and a DeepTransition path to resolve from it.
    /// Invariants: a parsed URL's canonical form parses back to an equal URL and is stable; applying
    /// the diff's updates one by one reaches the destination.
    package static func route(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        let url = try? RouteURL(parsing: lines[0])
        if let url {
            let again = try? RouteURL(parsing: url.string)
            precondition(again == url && again?.string == url.string, "canonical form does not round-trip: \(url.string)")
        }
        guard lines.count > 1 else { return }
        let from = url?.state ?? RouteState()
        guard let to = try? RoutePath.resolve(lines[1], from: from) else { return }
        let canonical = to.url(scheme: "fuzz")
        precondition((try? RouteURL(parsing: canonical))?.state == to, "resolved state does not round-trip: \(canonical)")
        var reached = from
        for update in RouteDiff.updates(from: from, to: to) { reached = reached.applying(update) }
        precondition(reached.components.count == to.components.count, "diff does not reach \(canonical)")
        precondition(zip(reached.components, to.components).allSatisfy { $0.isSameScreen(as: $1) }, "diff does not reach \(canonical)")
    }

    /// Route path independence (issue #20). Input: up to 8 bytes, each a move of `RouteWalk.moves`
    /// (the high bit: enqueued). Invariant: after every completed move the walked router's live screens
    /// hold the values a fresh router sent straight to the same URL holds.
    package static func routeWalk(_ bytes: [UInt8]) {
        let walk = RouteWalk(context: Harness.makeContext())
        for byte in bytes.prefix(8) {
            let move = RouteWalk.moves[Int(byte & 0x7f) % RouteWalk.moves.count]
            guard let (walked, straight) = walk.step(move, enqueue: byte & 0x80 != 0) else { continue }
            precondition(walked == straight, "path dependence after \(walk.walked): walked \(walked), straight \(straight)")
        }
    }

    /// Plan decoding and performing. Input: a plan JSON object, added to a target and advanced.
    package static func plan(_ bytes: [UInt8]) {
        let harness = Harness.shared
        harness.recycleIfNeeded()
        guard let plan = try? JSONValue.parse(bytes) else { return }
        let request: JSONValue = ["id": 1, "method": "plan.add", "params": ["target": "fuzz", "plan": plan]]
        harness.context.receive(line: JSONWriter.bytes(request), from: harness.session)
        for _ in 0..<3 { harness.context.tick(dt: 1.0 / 120) }
    }

    /// The request path after the line decoder. Input: up to 16 lines, each handled as a request of one
    /// greeted session (the first hello is sent for it), then one tick. Invariant: whatever the parser
    /// accepts, written back out, parses to the same value.
    package static func request(_ bytes: [UInt8]) {
        let harness = Harness.shared
        harness.recycleIfNeeded()
        for line in bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 16, omittingEmptySubsequences: true).prefix(16) {
            if let value = try? JSONValue.parse(line) {
                let written = JSONWriter.bytes(value)
                precondition((try? JSONValue.parse(written)) == value, "does not round-trip: \(String(decoding: written, as: UTF8.self))")
            }
            harness.context.receive(line: line, from: harness.session)
        }
        harness.context.tick(dt: 1.0 / 120)
    }
}

/// An in-process engine with the shipped animation performers, rebuilt every few thousand inputs so
/// state cannot grow without bound across a fuzzing run.
final class Harness: @unchecked Sendable {
    // @unchecked: libFuzzer calls targets from one thread.
    static let shared = Harness()

    private(set) var context: EngineContext
    private(set) var session: UInt64 = 1
    private var runs = 0

    private init() {
        context = Self.makeContext()
        greet()
    }

    func recycleIfNeeded() {
        runs += 1
        guard runs % 2000 == 0 else { return }
        context = Self.makeContext()
        greet()
    }

    private func greet() {
        context.openLocalSession(session, output: DiscardingOutput(), role: .admin)
        context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: session)
    }

    static func makeContext() -> EngineContext {
        let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        let host = HostServices(logger: logger)
        var builder = PluginRegistryBuilder()
        if case .success(let descriptor) = DescriptorCheck.check(PluginEntry.descriptor(for: FuzzAnimations.self), file: "<fuzz>") {
            builder.add(descriptor)
        }
        let engine = Engine(registry: builder.freeze(), host: host, vocabulary: .shipped)
        return EngineContext(engine: engine, settings: EngineSettings(), logger: logger)
    }
}

enum FuzzAnimations: MotionPlugin {
    static let id = "fuzz.animations"
    static let version = "1"
    static var performers: [any Performer.Type] {
        [AnimationPerformer<SpringAnimation>.self, AnimationPerformer<TweenAnimation>.self, AnimationPerformer<DecayAnimation>.self,
         AnimationPerformer<SetAnimation>.self]
    }
}

/// `{"type":"Set","property":…,"value":[…]}` in-process (the shipped Set is a C plugin): routers' container
/// animations need it.
struct SetAnimation: PropertyAnimation {
    struct Plan: AnimationPlan {
        var property: String
        var value: [Double]
    }

    static let planType = "Set"
    let count: Int
    let value: SIMD4<Double>
    var velocity: SIMD4<Double> { .zero }
    var isFinished: Bool { true }

    init(plan: Plan, current: PropertyState?, context: PerformerContext) throws {
        value = try vector(plan.value, field: "value")
        count = plan.value.count
    }

    mutating func advance(by dt: Double) {}
}

final class DiscardingOutput: ClientOutput {
    var backlog: Int { 0 }
    func send(_ line: [UInt8]) {}
    func close() {}
}
