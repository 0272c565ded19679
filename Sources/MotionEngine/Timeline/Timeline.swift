import DequeModule
import MotionWire

/// A runtime's timeline (docs/protocol.md): its own clock, which stops while a scrubber is attached, and the
/// plans added and removed on it, so that any moment can be replayed deterministically.
struct TimelineEntry {
    enum Change {
        case add(plan: JSONValue, name: String?)
        case remove(name: String)
        /// Samples pushed to a gesture (`target` holds its name): a replay pushes them again.
        case gesture([GestureSample])
    }

    /// Seconds on the runtime's clock.
    var time: Double
    var target: String
    var change: Change
}

struct Timeline {
    /// Entries kept per runtime, and their bytes (plans as JSON, about); older ones are dropped (a replay
    /// then starts from the oldest kept). A 64 KiB plan per entry no longer keeps 64 MiB per runtime.
    static let maximumEntries = 1000
    static let maximumBytes = 256 << 10

    /// Deques: at the bound each entry recorded drops the oldest, without moving the other 999 (a memmove
    /// per `plan.add`, a twentieth of a journal replay).
    var entries = Deque<TimelineEntry>()
    private var sizes = Deque<Int>()
    private(set) var bytes = 0
    /// Engine time at creation, and seconds spent paused; the clock is engine time minus both.
    var createdAt: Double
    var pausedTotal = 0.0
    var pausedAt: Double?
    var isAttached = false
    var offset = 0.0
    /// Counts scrubs begun: a replay shows its result only if no later scrub began meanwhile.
    var scrubGeneration = 0
    /// The live values the scrubber covered up, written back on detach.
    var live: [(handle: UInt32, value: [Double], velocity: [Double])] = []

    init(createdAt: Double) {
        self.createdAt = createdAt
    }

    func clock(now: Double) -> Double { (pausedAt ?? now) - createdAt - pausedTotal }

    mutating func record(_ entry: TimelineEntry) {
        let size = entry.target.utf8.count + {
            switch entry.change {
            case .add(let plan, let name): Self.size(of: plan) + (name?.utf8.count ?? 0)
            case .remove(let name): name.utf8.count
            case .gesture(let samples): samples.count * 40
            }
        }()
        entries.append(entry)
        sizes.append(size)
        bytes += size
        var dropped = 0
        while entries.count - dropped > Self.maximumEntries || (bytes > Self.maximumBytes && entries.count - dropped > 1) {
            bytes -= sizes[dropped]
            dropped += 1
        }
        if dropped > 0 {
            entries.removeFirst(dropped)
            sizes.removeFirst(dropped)
        }
    }

    /// About the bytes of `value` as JSON text (strings by their UTF-8, every other node 8).
    static func size(of value: JSONValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count + 2
        case .array(let elements): elements.reduce(2) { $0 + size(of: $1) + 1 }
        case .object(let members): members.reduce(2) { $0 + $1.key.utf8.count + 4 + size(of: $1.value) }
        default: 8
        }
    }
}
