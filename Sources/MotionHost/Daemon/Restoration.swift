import Synchronization

/// Whether the journal's replay at start is done (docs/operations.md#animations-survive-a-restart): systemd
/// hears READY, and the engine thread asks for realtime priority, only then (a replay of seconds that never
/// blocks would trip RLIMIT_RTTIME).
final class Restoration: Sendable {
    private let state = Mutex<(done: Bool, next: Int, waiting: [Int: CheckedContinuation<Void, Never>])>((false, 0, [:]))

    /// Once the replay is done (at once if it already is), or the task is cancelled (a stop during the
    /// replay: the services waiting here must return for the stop to go on).
    func wait() async {
        let ticket = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.done || Task.isCancelled { return true }
                    state.waiting[ticket] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: ticket) }?.resume()
        }
    }

    func finish() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }
}
