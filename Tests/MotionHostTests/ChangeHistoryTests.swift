@testable import MotionEngine
import Testing

/// `ChangeHistory` against the rule it stands for: a subscriber without a filter, served now and then,
/// gets each property it may see that was written since it was last served, once, and `dropped` counts
/// the other writes — whether it marks step by step (short waits) or looks at each property once (long
/// waits, or past the steps kept).
@Suite("Change history")
struct ChangeHistoryTests {
    let store = PropertyStore()
    let history = ChangeHistory()
    /// Properties of uid 1000, of uid 2000, and of the daemon's own runtime (visible to every uid).
    let handles: [UInt32]

    init() {
        var handles: [UInt32] = []
        for index in 0..<600 {
            let runtime = [OwnedName.key(1000, "r"), OwnedName.key(2000, "r"), "motiond.route.x"][index % 3]
            handles.append(store.intern(.init(runtime: runtime, target: "t\(index)", property: "p")))
        }
        self.handles = handles
    }

    private func subscriber(uid: UInt32, admin: Bool = false) -> Subscription {
        let session = Session(id: UInt64(uid), output: RecordingOutput(), peer: PeerCredentials(uid: uid, gid: uid, pid: 1),
                              role: admin ? .admin : .client)
        let subscription = Subscription(id: 1, session: session, frames: true, trace: false, runtime: nil, targets: nil,
                                        maximumRate: nil)
        history.start(subscription)
        return subscription
    }

    /// What marking every step as it came would have given: pending handles in order, and dropped.
    private struct Model {
        var pending: [UInt32] = []
        var isPending: Set<UInt32> = []
        var dropped = 0

        mutating func mark(_ handle: UInt32) {
            if isPending.insert(handle).inserted { pending.append(handle) } else { dropped += 1 }
        }

        mutating func sent() {
            pending.removeAll()
            isPending.removeAll()
        }
    }

    private func check(_ subscription: Subscription, _ model: Model, _ note: String) {
        #expect(Set(subscription.pending) == model.isPending, "\(note): marked")
        #expect(subscription.pending.count == model.pending.count, "\(note): each once")
        #expect(subscription.dropped == model.dropped, "\(note): dropped")
    }

    private func sent(_ subscription: Subscription) {
        for handle in subscription.pending { subscription.isPending[Int(handle)] = false }
        subscription.pending.removeAll()
    }

    @Test func everyWaitMarksWhatMarkingEachStepWould() {
        let admin = subscriber(uid: 0, admin: true)
        let alice = subscriber(uid: 1000)
        var models = [Model(), Model()]
        var generator = SystemRandomNumberGenerator()
        // Waits of 1 and 3 steps (few writes: step by step), 12 (many: each property once), and 40 (past
        // the 32 steps kept).
        for wait in [1, 3, 12, 1, 40, 2, 12] {
            for _ in 0..<wait {
                let written = wait == 3 ? Array(handles.shuffled(using: &generator).prefix(20))
                                        : handles.filter { _ in Bool.random(using: &generator) }
                written.withUnsafeBufferPointer { history.record($0, store: store) }
                for handle in written {
                    models[0].mark(handle)
                    if store.owners[Int(handle)] == 1000 || store.isShared[Int(handle)] { models[1].mark(handle) }
                }
            }
            for (index, subscription) in [admin, alice].enumerated() {
                history.catchUp(subscription, store: store)
                check(subscription, models[index], "\(index == 0 ? "admin" : "uid 1000") after \(wait) steps")
                sent(subscription)
                models[index].sent()
            }
        }
        #expect(!alice.pending.contains { store.owners[Int($0)] == 2000 })
    }

    /// Properties still pending from an earlier catch-up (its frame waited) count as dropped when
    /// written again, in either way of marking.
    @Test func aPropertyStillPendingCountsAsDroppedWhenWrittenAgain() {
        let alice = subscriber(uid: 1000)
        let own = handles.filter { store.owners[Int($0)] == 1000 }
        own.withUnsafeBufferPointer { history.record($0, store: store) }
        history.catchUp(alice, store: store)
        #expect(alice.pending.count == own.count && alice.dropped == 0)
        // Not sent; written at 10 more steps: each written value but the last of each property is lost.
        for _ in 0..<10 { own.withUnsafeBufferPointer { history.record($0, store: store) } }
        history.catchUp(alice, store: store)
        #expect(alice.pending.count == own.count && alice.dropped == own.count * 10)
    }
}
