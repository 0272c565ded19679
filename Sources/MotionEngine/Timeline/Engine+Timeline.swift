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

extension Engine {
    /// The runtime's clock: seconds since it was created, not counting time paused by a scrubber.
    package func clock(ofRuntime name: String) -> Double? {
        runtimes[name].map { $0.timeline.clock(now: time) }
    }

    /// Stops or restarts a runtime's clock: its performers receive no `advance` while it is paused.
    func setPaused(_ paused: Bool, runtime scope: RuntimeScope) {
        if paused {
            guard scope.timeline.pausedAt == nil else { return }
            scope.timeline.pausedAt = time
            for performer in scope.performers { stopAdvancing(performer) }
        } else {
            guard let pausedAt = scope.timeline.pausedAt else { return }
            scope.timeline.pausedTotal += time - pausedAt
            scope.timeline.pausedAt = nil
            for performer in scope.performers where !performer.tokens.isEmpty && performer.isContinuous {
                startAdvancing(performer)
            }
        }
    }

    /// Remembers a plan added or removed by a client (not one a performer emitted: a replay emits it
    /// again).
    func recordOnTimeline(_ change: TimelineEntry.Change, target: String, in scope: RuntimeScope) {
        guard cycle.emitDepth == 0, scope.recordsTimeline else { return }
        scope.timeline.record(TimelineEntry(time: scope.timeline.clock(now: time), target: target, change: change))
    }

    func timeline(of name: String) -> Timeline? { runtimes[name]?.timeline }

    func updateTimeline(of name: String, _ body: (inout Timeline) -> Void) {
        guard let scope = runtimes[name] else { return }
        body(&scope.timeline)
    }

    /// Every property of a runtime with its handle, for copying values between runtimes.
    func properties(ofRuntime name: String) -> [(target: String, property: String, handle: UInt32)] {
        guard let scope = runtimes[name] else { return [] }
        return scope.targets.values.flatMap { target in
            target.properties.map { (target.name, $0.key, $0.value) }
        }.filter { store.count(of: $0.handle) > 0 }
    }

    /// Writes a value into a runtime's property (creating it), as a frame will carry it.
    func write(_ value: [Double], velocity: [Double], to property: String, target: String, runtime name: String) {
        guard let scope = runtimes[name], (1...PropertyStore.width).contains(value.count) else { return }
        let targetScope = scope.target(target)
        let handle = targetScope.properties[property] ?? {
            let handle = store.intern(.init(runtime: name, target: target, property: property), shared: scope.isShared, hidden: scope.isDryRun)
            targetScope.properties[property] = handle
            return handle
        }()
        value.withUnsafeBufferPointer { values in
            velocity.withUnsafeBufferPointer { velocities in
                store.write(handle, value: values.baseAddress!, velocity: velocity.count == value.count ? velocities.baseAddress : nil,
                            count: value.count)
            }
        }
    }
}
