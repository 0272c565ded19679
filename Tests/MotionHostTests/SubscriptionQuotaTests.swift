import Glibc
import Logging
@testable import MotionEngine
import MotionWire
import Synchronization
import Testing

/// An output that passes descriptors as a Unix socket does: each one handed over is closed at once, as a
/// client that read and closed it.
final class DescriptorOutput: ClientOutput {
    private let recorded = Mutex<[JSONValue]>([])
    var lines: [JSONValue] { recorded.withLock { $0 } }
    var backlog: Int { 0 }
    var canPassDescriptors: Bool { true }
    func send(_ line: [UInt8]) {
        guard let message = try? JSONValue.parse(line.dropLast()) else { return }
        recorded.withLock { $0.append(message) }
    }
    func send(_ line: [UInt8], passing descriptor: Int32) {
        Glibc.close(descriptor)
        send(line)
    }
    func close() {}
}

/// What one uid holds across all its connections (docs/protocol.md#ownership-and-quotas): its
/// subscriptions together, its shared-memory regions together, and the daemon's regions in all.
@Suite("Subscription quotas across connections")
struct SubscriptionQuotaTests {
    let context: EngineContext
    let outputs = [DescriptorOutput(), DescriptorOutput(), DescriptorOutput()]
    var nextID = 0

    /// Sessions 1 and 2 are uid 1000's, session 3 is uid 1001's.
    init(quotas: Quotas = Quotas(), maximumSharedRegions: Int = 4096) throws {
        var settings = EngineSettings()
        settings.quotas = quotas
        settings.maximumSharedRegions = maximumSharedRegions
        context = EngineContext(engine: try EngineHarness().engine, settings: settings, logger: Logger(label: "test"),
                                clock: ManualClock())
        for (index, uid) in [1000, 1000, 1001].enumerated() {
            let id = UInt64(index + 1)
            context.openSession(id, output: outputs[index], peer: PeerCredentials(uid: UInt32(uid), gid: UInt32(uid), pid: 1))
            context.receive(line: Array(#"{"id":0,"method":"hello","params":{"protocol":1}}"#.utf8), from: id)
        }
    }

    /// The result of `subscribe` on `session`, or its error object.
    mutating func subscribe(_ session: UInt64, shm: Bool = false) -> JSONValue {
        nextID += 1
        let params: JSONValue = shm ? ["streams": ["frames"], "transport": "shm", "slots": 16] : ["streams": ["frames"]]
        context.receive(line: JSONWriter.bytes(["id": .number(Double(nextID)), "method": "subscribe", "params": params]), from: session)
        let reply = outputs[Int(session) - 1].lines.last { $0["id"] == .number(Double(nextID)) }
        return reply?["result"] ?? reply?["error"] ?? .null
    }

    @Test func aUidsSubscriptionsAreCountedAcrossItsConnections() throws {
        var quotas = Quotas()
        quotas.subscriptions = 3
        var test = try SubscriptionQuotaTests(quotas: quotas)
        #expect(test.subscribe(1)["sub"] != nil && test.subscribe(1)["sub"] != nil && test.subscribe(2)["sub"] != nil)
        let refused = test.subscribe(2)
        #expect(refused["code"] == "quota.exceeded", "\(refused)")
        #expect(refused["message"]?.stringValue?.hasPrefix("quota subscriptions:") == true, "\(refused)")
        #expect(test.subscribe(3)["sub"] != nil, "another uid is not held to it")
        test.context.closeSession(1)
        #expect(test.subscribe(2)["sub"] != nil, "what a closed connection held is given back")
    }

    @Test func sharedMemoryRegionsAreBoundedPerUidAndInAll() throws {
        var quotas = Quotas()
        quotas.shmRegions = 2
        var test = try SubscriptionQuotaTests(quotas: quotas, maximumSharedRegions: 3)
        #expect(test.subscribe(1, shm: true)["transport"] == "shm")
        #expect(test.subscribe(2, shm: true)["transport"] == "shm")
        let own = test.subscribe(2, shm: true)
        #expect(own["code"] == "quota.exceeded" && own["message"]?.stringValue?.hasPrefix("quota shmRegions:") == true, "\(own)")
        #expect(test.subscribe(3, shm: true)["transport"] == "shm", "another uid gets one of the daemon's regions")
        let all = test.subscribe(3, shm: true)
        #expect(all["code"] == "request.limit", "the daemon's regions in all: \(all)")
        #expect(test.subscribe(3)["sub"] != nil, "a JSON subscription is not a region")
        test.context.closeSession(1)
        #expect(test.subscribe(3, shm: true)["transport"] == "shm", "a region given back is free for anyone")
    }
}
