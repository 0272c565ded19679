import DequeModule
#if canImport(Glibc)
import Glibc
#endif

/// The engine thread's inbox: other threads push commands; the engine thread waits for them or for its
/// next tick deadline, whichever comes first.
final class CommandQueue<Command>: @unchecked Sendable {
    // @unchecked: `commands` is only touched with `mutex` held; the pthread objects live at stable heap
    // addresses for the queue's lifetime.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var commands = Deque<Command>()

    init() {
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

    func push(_ command: Command) {
        pthread_mutex_lock(mutex)
        commands.append(command)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until a command arrives or the monotonic clock reaches `deadline` (nanoseconds; nil waits
    /// for a command only), then takes up to `limit` commands.
    func take(until deadline: UInt64?, limit: Int, into batch: inout [Command]) {
        pthread_mutex_lock(mutex)
        if commands.isEmpty {
            if let deadline {
                var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while commands.isEmpty, pthread_cond_timedwait(condition, mutex, &spec) == 0 {}
            } else {
                while commands.isEmpty { pthread_cond_wait(condition, mutex) }
            }
        }
        while batch.count < limit, let command = commands.popFirst() { batch.append(command) }
        pthread_mutex_unlock(mutex)
    }
}
