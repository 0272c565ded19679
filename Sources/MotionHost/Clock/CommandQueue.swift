import DequeModule
import MotionEngine
#if canImport(Glibc)
import Glibc
#endif

/// The engine thread's inbox: other threads push commands; the engine thread waits for them or for its
/// next tick deadline, whichever comes first.
///
/// Commands wait in lanes: one for the daemon's own (served first), one per uid for its connections'.
/// Lanes take turns by the engine time their commands used (start-time fair queueing, the engine thread
/// reporting each command's cost through `charge`): a uid that sends large requests back to back gets its
/// share, and another uid's request waits for at most about one of its commands, not its whole backlog
/// (16 connections of 55 KB Keyframes plans made a second uid's plan.add wait 0.4 s in one queue).
/// Within a lane, commands run in the order they came. A barrier (shutting down) runs once every command
/// queued before it, in any lane, has been taken.
final class CommandQueue<Command>: @unchecked Sendable {
    /// Whose commands: the daemon's own, or the connections of one uid (nil: credentials unknown).
    enum Lane: Hashable, Sendable {
        case daemon
        case uid(UInt32?)
    }

    private struct Waiting {
        /// `continuing`: pushed `first`, the next slice of work already under way (it runs whatever the
        /// lane's share; its time is still charged).
        var commands = Deque<(command: Command, bytes: Int, sequence: UInt64, continuing: Bool)>()
        /// Engine time its commands used, on the queue's virtual clock (nanoseconds).
        var used: UInt64 = 0
        /// Request bytes of the commands waiting.
        var bytes = 0
        /// Its share of engine time left (nil until it first runs under a budget).
        var bucket: EngineBudget.Bucket?
    }

    // @unchecked: everything below is only touched with `mutex` held; the pthread objects live at stable
    // heap addresses for the queue's lifetime.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var daemon = Deque<(command: Command, sequence: UInt64)>()
    private var barriers = Deque<(command: Command, sequence: UInt64)>()
    /// Numbers every command pushed, in order (barriers wait for the ones before them).
    private var sequence: UInt64 = 0
    private var lanes: [Lane: Waiting] = [:]
    /// Lanes kept before idle ones are looked at again.
    private var pruneAbove = 256
    /// Lanes with commands waiting (few: one per uid sending).
    private var busy: [Lane] = []
    /// The `used` of the lane served last: a lane that starts waiting starts from here, so time it spent
    /// idle is not credit to take the engine thread with later.
    private var virtualNow: UInt64 = 0
    /// The uids' shares of engine time (nil: unbounded).
    private var budget: EngineBudget?

    /// `interval`: a frame interval in nanoseconds, the period uids' engine budgets are counted in (nil:
    /// no budget).
    init(interval: UInt64? = nil) {
        budget = interval.map { EngineBudget(interval: $0, now: WorkClock.now()) }
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    private func locked<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Queues `command` at the end of `lane` (`first`: at its front, the next of that lane to run);
    /// `bytes` (a request's line) count toward `bytes(of:)`.
    /// `parsing`: nanoseconds a socket thread spent reading it, taken from the lane's engine share. A
    /// command pushed `first` continues work under way: it runs whatever the lane's share.
    func push(_ command: Command, lane: Lane = .daemon, bytes: Int = 0, first: Bool = false, parsing: UInt64 = 0) {
        locked {
            sequence += 1
            if lane == .daemon {
                if first { daemon.prepend((command, sequence)) } else { daemon.append((command, sequence)) }
            } else {
                var waiting = lanes.removeValue(forKey: lane) ?? Waiting()
                if waiting.commands.isEmpty {
                    busy.append(lane)
                    waiting.used = max(waiting.used, virtualNow)
                }
                if first { waiting.commands.prepend((command, bytes, sequence, true)) } else { waiting.commands.append((command, bytes, sequence, false)) }
                waiting.bytes += bytes
                if parsing > 0, let budget {
                    var bucket = waiting.bucket ?? budget.freshBucket(at: WorkClock.now())
                    budget.chargeParsing(&bucket, nanos: parsing)
                    waiting.bucket = bucket
                }
                lanes[lane] = waiting
            }
            pthread_cond_signal(condition)
        }
    }

    /// Queues `command` to run once every command pushed before it has been taken.
    func pushBarrier(_ command: Command) {
        locked {
            sequence += 1
            barriers.append((command, sequence))
            pthread_cond_signal(condition)
        }
    }

    /// A uid's share of every frame interval, percent (`quotas.enginePercent`).
    func setUIDPercent(_ percent: Int) {
        locked {
            budget?.uidPercent = UInt64(min(max(percent, 1), 100))
            pthread_cond_signal(condition)
        }
    }

    /// Request bytes waiting in `lane` (its connections stop reading past a bound).
    func bytes(of lane: Lane) -> Int {
        locked { lanes[lane]?.bytes ?? 0 }
    }

    /// Waits until a command may run or the monotonic clock reaches `deadline` (nanoseconds; nil waits
    /// for a command only), then takes the next: the daemon's first, else the first of the lane that used
    /// the least engine time among those within their engine budget (lanes past it wait for their next
    /// share). Nil at the deadline, or at once when it would wait and `unlessWaiting` (the caller has
    /// something to do first). `more`: whether others still wait; `waited`: whether it slept first.
    func take(until deadline: UInt64?, unlessWaiting: Bool = false) -> (command: Command, lane: Lane, more: Bool, waited: Bool)? {
        locked {
            var waited = false
            while true {
                if let barrier = barriers.first, daemon.first.map({ $0.sequence > barrier.sequence }) ?? true,
                   busy.allSatisfy({ lanes[$0]!.commands.first!.sequence > barrier.sequence }) {
                    barriers.removeFirst()
                    return (barrier.command, .daemon, !isEmpty, waited)
                }
                if let (command, _) = daemon.popFirst() {
                    return (command, .daemon, !isEmpty, waited)
                }
                let now = WorkClock.now()
                let (chosen, nextTurn) = nextLane(at: now)
                if let chosen { return takeFirst(ofBusy: chosen, waited: waited) }
                // Nothing may run before `wake`: a command arriving, the deadline, or a lane's next share.
                let wake = earliest(deadline, nextTurn)
                if let deadline, now >= deadline { return nil }
                if unlessWaiting { return nil }
                waited = true
                if let wake {
                    var spec = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
                    _ = pthread_cond_timedwait(condition, mutex, &spec)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
            }
        }
    }

    /// Of the busy lanes, the index of the one to run now (least engine time used among those within
    /// their budget), or when the first of them may run again.
    private func nextLane(at now: UInt64) -> (index: Int?, nextTurn: UInt64?) {
        var chosen: Int?
        var nextTurn: UInt64?
        for index in busy.indices {
            let lane = busy[index]
            // A barrier (a stop) waits for every lane's commands before it: they run unbudgeted. So does
            // the next slice of work under way (a journal group holds every uid's journaled changes: one
            // uid's debt must not stall it; that uid pays for the slice afterwards).
            if var budget, barriers.isEmpty, lanes[lane]!.commands.first?.continuing != true {
                var bucket = lanes[lane]!.bucket ?? budget.freshBucket(at: now)
                let turn = budget.nextTurn(of: &bucket, at: now)
                lanes[lane]!.bucket = bucket
                self.budget = budget
                guard turn <= now else {
                    nextTurn = min(nextTurn ?? turn, turn)
                    continue
                }
            }
            if chosen == nil || lanes[lane]!.used < lanes[busy[chosen!]]!.used { chosen = index }
        }
        return (chosen, nextTurn)
    }

    private func takeFirst(ofBusy chosen: Int, waited: Bool) -> (command: Command, lane: Lane, more: Bool, waited: Bool) {
        let lane = busy[chosen]
        var waiting = lanes.removeValue(forKey: lane)!
        let (command, bytes, _, _) = waiting.commands.removeFirst()
        waiting.bytes -= bytes
        virtualNow = waiting.used
        if waiting.commands.isEmpty { busy.remove(at: chosen) }
        lanes[lane] = waiting
        // Idle lanes the others have caught up with are forgotten, now and then (not the one just
        // taken: its charge comes next; and not at every take while many stay ahead).
        if lanes.count > pruneAbove {
            lanes = lanes.filter {
                $0.key == lane || !$0.value.commands.isEmpty || $0.value.used > virtualNow || ($0.value.bucket?.credit ?? 0) < 0
            }
            pruneAbove = max(busy.count + 256, lanes.count * 2)
        }
        return (command, lane, !isEmpty, waited)
    }

    /// Nothing waits (called with the mutex held).
    private var isEmpty: Bool { daemon.isEmpty && busy.isEmpty && barriers.isEmpty }

    /// The command just taken from `lane` used `nanos` of the engine thread. An idle lane is kept while it
    /// is ahead of the others (`take` forgets it once they catch up).
    func charge(_ lane: Lane, nanos: UInt64) {
        guard lane != .daemon else { return }
        locked {
            guard var waiting = lanes.removeValue(forKey: lane) else { return }
            waiting.used += nanos
            if var budget, var bucket = waiting.bucket {
                budget.charge(&bucket, nanos: nanos)
                waiting.bucket = bucket
                self.budget = budget
            }
            // Kept while it owes engine time too: a control frame's share is charged after other lanes ran
            // (`ControlFrameShares`), and dropping the lane then forgot its debt.
            if !waiting.commands.isEmpty || waiting.used > virtualNow || (waiting.bucket?.credit ?? 0) < 0 { lanes[lane] = waiting }
        }
    }
}

/// The earlier of two optional instants (nil: none), without the array `[a, b].compactMap { $0 }.min()`
/// allocates: the engine thread looks for its next deadline every tick (docs/operations.md#metrics: no
/// allocation per tick).
@inline(__always)
func earliest(_ a: UInt64?, _ b: UInt64?) -> UInt64? {
    switch (a, b) {
    case let (a?, b?): min(a, b)
    case let (a?, nil): a
    case let (nil, b?): b
    case (nil, nil): nil
    }
}

