import Foundation
import MotionTestSupport
import Synchronization

/// A datagram socket standing in for systemd's notify socket: records every message motiond sends.
final class NotifyListener: Sendable {
    let path: String
    private let descriptor: Int32
    private let received = Mutex<[(message: String, time: Date)]>([])

    init(directory: URL, name: String = "notify.sock") throws {
        path = directory.appendingPathComponent(name).path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        let status = withUnixAddress(path) { bind(descriptor, $0, $1) }
        guard status == 0 else { throw Failure("cannot bind \(path)") }
        let thread = Thread { [self] in receive() }
        thread.start()
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            let message = String(decoding: buffer[0..<count], as: UTF8.self)
            received.withLock { $0.append((message, Date())) }
        }
    }

    var messages: [String] { received.withLock { $0.map(\.message) } }
    var timedMessages: [(message: String, time: Date)] { received.withLock { $0 } }

    /// Waits until a message after the first `skip` ones satisfies `predicate`; returns its index.
    func waitFor(after skip: Int = 0, timeout: Double = 10, _ predicate: (String) -> Bool) async throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let all = messages
            if let index = all.indices.dropFirst(skip).first(where: { predicate(all[$0]) }) { return index }
            try await Task.sleep(for: .milliseconds(20))  // polls what the receiving thread recorded
        }
        throw Failure("no matching notify message within \(timeout) s; got \(messages)")
    }

    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }
}
