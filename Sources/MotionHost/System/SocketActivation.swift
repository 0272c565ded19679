import Foundation

/// systemd socket activation (`sd_listen_fds`): the listening socket arrives as fd 3 (or the one named
/// `control` in `LISTEN_FDNAMES`). It must be an AF_UNIX stream socket that is listening.
package enum SocketActivation {
    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    static let firstDescriptor: Int32 = 3

    /// The inherited listener, or nil when the process was not socket-activated. Clears `LISTEN_*` so
    /// child processes (plugin probes) do not believe they were activated too.
    package static func inheritedListener(environment: [String: String], pid: Int32 = getpid()) throws -> Int32? {
        guard let pidText = environment["LISTEN_PID"], Int32(pidText) == pid,
            let countText = environment["LISTEN_FDS"], let count = Int32(countText), count > 0
        else { return nil }
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        let names = (environment["LISTEN_FDNAMES"] ?? "").split(separator: ":", omittingEmptySubsequences: false)
        let index = names.firstIndex(of: "control").map { Int32($0) } ?? 0
        guard index < count else { throw Invalid(description: "LISTEN_FDNAMES names more sockets than LISTEN_FDS") }
        let descriptor = firstDescriptor + index
        try check(descriptor)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    static func check(_ descriptor: Int32) throws {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard let type = option(SO_TYPE), type == Int32(SOCK_STREAM.rawValue) else {
            throw Invalid(description: "inherited fd \(descriptor) is not a stream socket")
        }
        guard option(SO_DOMAIN) == AF_UNIX else {
            throw Invalid(description: "inherited fd \(descriptor) is not an AF_UNIX socket")
        }
        guard option(SO_ACCEPTCONN) == 1 else {
            throw Invalid(description: "inherited fd \(descriptor) is not listening")
        }
    }

    /// The filesystem path the inherited socket is bound to, for logs.
    static func boundPath(_ descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let status = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        return withUnsafeBytes(of: address.sun_path) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }
}
