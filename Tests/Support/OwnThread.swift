import Foundation

/// Runs blocking work (a `read(2)` that waits, a child's output to its end) on a thread of its own, so
/// the few threads of Swift's cooperative pool stay free for the tests running beside it.
public func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
