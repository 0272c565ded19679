import Foundation

/// The sd_notify protocol without libsystemd: one datagram per message to `$NOTIFY_SOCKET` (a path, or
/// `@name` for the abstract namespace). Without the variable every call does nothing.
package struct SystemdNotifier: Sendable {
    private let address: [UInt8]?

    package init(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else {
            address = nil
            return
        }
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        address = bytes
    }

    package var isEnabled: Bool { address != nil }

    /// Sends `state`, e.g. "READY=1\nSTATUS=…". Failures are ignored: systemd may be gone while stopping.
    @discardableResult
    package func notify(_ state: String) -> Bool {
        guard let address, address.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
            for (index, byte) in address.enumerated() { raw[index] = byte }
        }
        // Abstract names are exactly as long as given; paths include their terminating NUL.
        let length = MemoryLayout<sa_family_t>.size + address.count + (address.first == 0 ? 0 : 1)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketPointer in
                message.withUnsafeBytes { bytes in
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), socketPointer, socklen_t(length))
                }
            }
        }
        return sent == message.count
    }

    /// `RELOADING=1` with the CLOCK_MONOTONIC timestamp systemd requires to match it to the reload.
    package func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        notify("RELOADING=1\nMONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)")
    }
}

/// `WATCHDOG_USEC` (and `WATCHDOG_PID`, when set, must be this process).
package struct WatchdogSettings: Sendable, Equatable {
    package let interval: Duration

    package init?(environment: [String: String], pid: Int32 = getpid()) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], Int32(owner) != pid { return nil }
        interval = .microseconds(microseconds)
    }
}
