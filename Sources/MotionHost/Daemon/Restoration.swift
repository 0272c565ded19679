import Synchronization

/// Whether the journal's replay at start is done (docs/operations.md#animations-survive-a-restart): systemd
/// hears READY, and the engine thread asks for realtime priority, only then (a replay of seconds that never
/// blocks would trip RLIMIT_RTTIME).
final class Restoration: Sendable {
    private let state = Mutex<(done: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Once the replay is done (at once if it already is).
    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if !state.done { state.waiting.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    func finish() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
