import MotionEngine
import Foundation
import Synchronization

/// The engine thread: runs commands from other threads between ticks, and ticks at `rate` Hz against
/// absolute deadlines while anything animates. With nothing to animate it sleeps until a command.
public final class EngineLoop: Sendable {
    public typealias Command = @Sendable (EngineContext) -> Void

    enum Message {
        case run(Command)
        case stop
    }

    public let rate: Double
    private let queue = CommandQueue<Message>()
    private let finished = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init(rate: Double) {
        self.rate = rate
    }

    /// Queues `command` to run on the engine thread after the commands queued before it.
    public func submit(_ command: @escaping Command) {
        queue.push(.run(command))
    }

    /// Runs `body` on the engine thread and returns its result.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (EngineContext) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            submit { context in continuation.resume(returning: body(context)) }
        }
    }

    /// Starts the thread. `make` runs on it first (plugins are loaded there, on the only thread that ever
    /// calls them); its report is returned once it is done.
    public func start<Report: Sendable>(_ make: @escaping @Sendable () -> (EngineContext, Report)) async -> Report {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
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
            thread.name = "motiond-engine"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Stops the thread after the commands already queued, and waits for it to end.
    public func stop() async {
        queue.push(.stop)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    private func run(_ context: EngineContext) {
        var schedule: FrameSchedule?
        var batch: [Message] = []
        batch.reserveCapacity(64)
        /// Commands of `batch` before it have run; the rest wait for the tick that fell due.
        var next = 0
        while true {
            if context.wantsTicks {
                let now = MonotonicClock.now()
                if schedule == nil {
                    // After a replay the animations are where they should be at `resumesAt`: the first
                    // tick counts from then.
                    schedule = FrameSchedule(rate: rate, start: now, previous: context.resumesAt)
                    context.resumesAt = nil
                }
                if schedule!.isDue(at: now) {
                    let (dt, lateness) = schedule!.begin(at: now)
                    context.tick(dt: dt, now: now)
                    let end = MonotonicClock.now()
                    let overrun = schedule!.finish(at: end)
                    context.statistics.record(workNanos: end - now, latenessNanos: lateness, overrun: overrun)
                }
            }
            if !context.wantsTicks { schedule = nil }
            if next == batch.count {
                batch.removeAll(keepingCapacity: true)
                next = 0
                // Display-timed frames computed ahead go out at their send times (SPEC §11).
                let held = context.nextHeldFrame
                let deadline = [schedule?.nextDeadline, held].compactMap { $0 }.min()
                queue.take(until: deadline, limit: 64, into: &batch)
                if held != nil { context.releaseHeldFrames(now: MonotonicClock.now()) }
            }
            let first = next
            // A tick that falls due between two commands runs before the next one: a burst of requests
            // (or a swap's slices) delays a tick by one command at most.
            while next < batch.count {
                let message = batch[next]
                next += 1
                switch message {
                case .run(let command): command(context)
                case .stop: return
                }
                if context.wantsTicks, let schedule, schedule.isDue(at: MonotonicClock.now()) { break }
            }
            if next > first { context.publishControlFrame() }
        }
    }
}
