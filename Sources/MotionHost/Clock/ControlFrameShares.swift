/// Who pays for a control frame (the frame that carries what commands changed, published between ticks):
/// the lanes whose commands ran since the last one, in proportion to the engine time of their commands
/// (docs/protocol.md#ownership-and-quotas, "Engine time"; docs/operations.md#realtime-priority). Unpaid, a uid holding many subscriptions and sending requests
/// back to back had the engine thread busy for seconds on end within its share of requests — and a
/// realtime thread busy that long is stopped by the kernel for 50 ms so that other threads may run.
struct ControlFrameShares<Lane: Equatable> {
    /// Few: one per uid whose commands ran since the last control frame. Kept between frames (no allocation).
    private var lanes: [(lane: Lane, nanos: UInt64)] = []

    init() { lanes.reserveCapacity(8) }

    mutating func add(_ lane: Lane, nanos: UInt64) {
        if let index = lanes.firstIndex(where: { $0.lane == lane }) {
            lanes[index].nanos &+= nanos
        } else {
            lanes.append((lane, nanos))
        }
    }

    /// Shares `cost` (nanoseconds) out to the lanes that ran, then starts again.
    mutating func settle(_ cost: UInt64, charge: (Lane, UInt64) -> Void) {
        defer { lanes.removeAll(keepingCapacity: true) }
        let total = lanes.reduce(0) { $0 &+ $1.nanos }
        guard total > 0 else { return }
        for (lane, nanos) in lanes {
            // In doubles: cost × nanos overflows 64 bits past ~4 s × ~4 s.
            charge(lane, UInt64(Double(cost) * Double(nanos) / Double(total)))
        }
    }
}
