import MotionEngine
import Foundation
import CHostSupport
import Synchronization

/// The engine thread: runs commands from other threads between ticks, and ticks at `rate` Hz against
/// absolute deadlines while anything animates. With nothing to animate it sleeps until a command.
package final class EngineLoop: Sendable {
    package typealias Command = @Sendable (EngineContext) -> Void
    /// At most 15 bytes (the kernel's limit).
    static let threadName = "motiond-engine"
    /// How long one slice of the journal's replay holds the engine thread before a waiting command runs.
    static let restoreSliceNanos: UInt64 = 4_000_000

    /// The engine thread's scheduler slice in nanoseconds (EEVDF's `sched_runtime`) when
    /// MOTIOND_ENGINE_SLICE_NS asks for one. Off by default: a short slice cut the engine thread's
    /// lateness during hot swaps, but under a second uid's dry-run attacks it also won the CPU from the
    /// threads that deliver other clients' frames (BENCHMARKS.md).
    static let slice: UInt64? = {
        let value = ProcessInfo.processInfo.environment["MOTIOND_ENGINE_SLICE_NS"].flatMap { UInt64($0) } ?? 0
        return value == 0 ? nil : value
    }()

    enum Message {
        case run(Command)
        /// Long work (a hot swap's install and slices): run right after a tick, with the most of an
        /// interval before the next deadline, not whenever it arrives (a 3–5 ms install arriving just
        /// before a deadline made that tick late by as much).
        case afterTick(Command)
        case stop
    }

    package let rate: Double
    /// `quotas.inputBytes`, read on the connections' event loops (the daemon sets it at start and on a
    /// reload, with the engine's settings).
    package let inputBytesQuota = Atomic<Int>(Quotas().inputBytes)
    /// `quotas.outputBytes`, likewise: past it a uid's connections with replies unsent are not read.
    package let outputBytesQuota = Atomic<Int>(Quotas().outputBytes)
    private let queue: CommandQueue<Message>
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Hears every tick's work, lateness (nanoseconds) and whether it overran, on the engine thread
    /// (`DaemonMetrics`: histograms it records without allocating).
    let tickObserver: (@Sendable (_ work: UInt64, _ lateness: UInt64, _ overrun: Bool) -> Void)?
    /// Ticks and commands run so far: a reader that sees it unchanged knows nothing happened (the
    /// metrics file is not rewritten, and the engine not woken, while the daemon is idle).
    package let activity = Atomic<UInt64>(0)

    /// Hears the engine time each uid's command took (nil: credentials unknown), on the engine thread.
    let workObserver: (@Sendable (_ uid: UInt32?, _ nanos: UInt64) -> Void)?

    package init(rate: Double, workObserver: (@Sendable (_ uid: UInt32?, _ nanos: UInt64) -> Void)? = nil,
                 tickObserver: (@Sendable (_ work: UInt64, _ lateness: UInt64, _ overrun: Bool) -> Void)? = nil) {
        self.rate = rate
        queue = CommandQueue(interval: UInt64(1e9 / rate))
        self.tickObserver = tickObserver
        self.workObserver = workObserver
    }

    /// Queues `command` to run on the engine thread after the daemon's commands queued before it.
    package func submit(_ command: @escaping Command) {
        queue.push(.run(command))
    }

    /// Queues a connection's command (`bytes`: its request line) in its uid's lane: after that lane's
    /// commands queued before it (`first`: before them), taking turns with other uids' by the engine time
    /// each used.
    func submit(uid: UInt32?, bytes: Int = 0, first: Bool = false, parsing: UInt64 = 0, _ command: @escaping Command) {
        queue.push(.run(command), lane: .uid(uid), bytes: bytes, first: first, parsing: parsing)
    }

    /// `quotas.enginePercent`: each uid's share of every frame interval (docs/protocol.md#ownership-and-quotas).
    package func setEnginePercent(_ percent: Int) {
        queue.setUIDPercent(percent)
    }

    /// Request bytes of `uid`'s connections waiting for the engine thread.
    func waitingBytes(of uid: UInt32?) -> Int {
        queue.bytes(of: .uid(uid))
    }

    /// Runs `body` on the engine thread and returns its result.
    package func perform<Result: Sendable>(_ body: @escaping @Sendable (EngineContext) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            submit { context in continuation.resume(returning: body(context)) }
        }
    }

    /// `perform`, for work that holds the engine thread for milliseconds: while frames are running it
    /// waits for the end of the next tick (one command per tick); otherwise it runs in turn.
    package func performAfterTick<Result: Sendable>(_ body: @escaping @Sendable (EngineContext) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.push(.afterTick { context in continuation.resume(returning: body(context)) })
        }
    }

    /// Starts the thread. `make` runs on it first (plugins are loaded there, on the only thread that ever
    /// calls them); its report is returned once it is done.
    package func start<Report: Sendable>(_ make: @escaping @Sendable () -> (EngineContext, Report)) async -> Report {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                // The kernel's name for the thread (top -H, perf, /proc/*/task/*/comm): Foundation's
                // `Thread.name` does not reach it on Linux.
                _ = motion_thread_set_name(Self.threadName)
                // The crash handler blames plugins for faults on this thread only, and has a stack here.
                _ = motion_crash_handler_engine_thread()
                // Asked for: woken at its deadline, the frame clock runs before threads that have had
                // the CPU for longer.
                if let slice = Self.slice { _ = motion_thread_request_slice(slice) }
                let (context, report) = make()
                continuation.resume(returning: report)
                run(context)
                let waiters = finished.withLock { state in
                    state.done = true
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
            }
            thread.name = Self.threadName
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// `perform`, once every command queued before it (in any uid's lane) has run: what a client sent
    /// before the daemon began to stop is answered first.
    package func performAfterQueued<Result: Sendable>(_ body: @escaping @Sendable (EngineContext) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.pushBarrier(.run { context in continuation.resume(returning: body(context)) })
        }
    }

    /// Stops the thread after the commands already queued, and waits for it to end.
    package func stop() async {
        queue.pushBarrier(.stop)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    /// Control frames (what commands changed) go out when the commands waiting are done, and at least
    /// this often while they keep coming (a gesture's effect within a millisecond, BENCHMARKS.md).
    static let controlFrameInterval: UInt64 = 1_000_000

    private func run(_ context: EngineContext) {
        var schedule: FrameSchedule?
        /// `.afterTick` commands waiting for a tick to end, oldest first.
        var afterTick: [Command] = []
        /// When commands began to run without a control frame since (nil: none ran).
        var unpublishedSince: UInt64?
        /// When the journal's replay last had a slice (`restoreSlice`).
        var lastRestoreSlice: UInt64 = 0
        var pause = BlockingPause()
        var shares = ControlFrameShares<CommandQueue<Message>.Lane>()
        /// A control frame, paid by the commands it carries the changes of (`ControlFrameShares`).
        func publishControlFrame(_ context: EngineContext) {
            let started = WorkClock.now()
            context.publishControlFrame()
            shares.settle(WorkClock.now() &- started) { lane, nanos in
                queue.charge(lane, nanos: nanos)
                if case .uid(let uid) = lane { workObserver?(uid, nanos) }
            }
            unpublishedSince = nil
        }
        func restoreSlice(_ context: EngineContext) {
            _ = context.journal.continueRestore(until: WorkClock.now() + Self.restoreSliceNanos)
            lastRestoreSlice = WorkClock.now()
            activity.add(1, ordering: .relaxed)
        }
        while true {
            if context.wantsTicks {
                let now = context.clock.now()
                if schedule == nil {
                    // After a replay the animations are where they should be at `resumesAt`: the first
                    // tick counts from then.
                    schedule = FrameSchedule(rate: rate, start: now, previous: context.journal.resumesAt)
                    context.journal.resumesAt = nil
                }
                if schedule!.isDue(at: now) {
                    if unpublishedSince != nil { publishControlFrame(context) }
                    let (dt, lateness) = schedule!.begin(at: now)
                    let workStarted = WorkClock.now()
                    context.tick(dt: dt, now: now)
                    let work = WorkClock.now() &- workStarted
                    let overrun = schedule!.finish(at: context.clock.now())
                    context.ticks.statistics.record(workNanos: work, latenessNanos: lateness, overrun: overrun)
                    context.ticks.shareOut(work)
                    tickObserver?(work, lateness, overrun)
                    activity.add(1, ordering: .relaxed)
                    pause.afterTick(now: WorkClock.now())
                    if !afterTick.isEmpty {
                        afterTick.removeFirst()(context)
                        context.publishControlFrame()
                    }
                }
            }
            if !context.wantsTicks {
                schedule = nil
                // Nothing replayed moves: the next animation starts from its own first tick, not from the
                // replay's end (a tween added seconds after the start jumped ahead by them).
                context.journal.resumesAt = nil
                // No tick is coming: what waited for one runs now.
                for command in afterTick { command(context) }
                afterTick.removeAll()
            }
            // Display-timed frames computed ahead go out at their send times (docs/protocol.md, display-timed frames).
            let held = context.nextHeldFrame
            let deadline = earliest(schedule?.nextDeadline, held)
            // One command between two looks at the clock: a burst of requests (or a swap's slices) delays
            // a tick by one command at most.
            // What the commands run so far changed goes out before the thread waits (for a command, or
            // for a uid's next share of engine time while its commands wait).
            // While the journal is replayed, its slices run whenever no command waits: `hello` and
            // `status` are answered between two slices (docs/operations.md#animations-survive-a-restart).
            // A slice at least every 4 ms of commands too: a client sending requests back to back (each
            // deferred at once) cannot hold the replay, and READY, back.
            let restoring = context.journal.isRestoring
            if restoring, WorkClock.now() &- lastRestoreSlice >= Self.restoreSliceNanos {
                restoreSlice(context)
                continue
            }
            let taken = queue.take(until: deadline, unlessWaiting: unpublishedSince != nil || restoring)
            if held != nil { context.releaseHeldFrames(now: context.clock.now()) }
            guard let (message, lane, more, waited) = taken else {
                if unpublishedSince != nil { publishControlFrame(context) }
                if restoring { restoreSlice(context) }
                continue
            }
            // Woken (it may have slept), or the first command since a control frame: a plugin call in this
            // command is judged against now, not against the last tick.
            if waited || unpublishedSince == nil { context.engine.markSlowCallWindow() }
            let started = WorkClock.now()
            if unpublishedSince == nil { unpublishedSince = started }
            switch message {
            case .run(let command): command(context)
            case .afterTick(let command):
                if context.wantsTicks { afterTick.append(command) } else { command(context) }
            case .stop:
                for command in afterTick { command(context) }
                context.publishControlFrame()
                return
            }
            let finished = WorkClock.now()
            activity.add(1, ordering: .relaxed)
            queue.charge(lane, nanos: finished &- started)
            shares.add(lane, nanos: finished &- started)
            if case .uid(let uid) = lane { workObserver?(uid, finished &- started) }
            if !more || finished &- unpublishedSince! >= Self.controlFrameInterval { publishControlFrame(context) }
        }
    }
}
