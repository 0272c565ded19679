import Foundation

/// One daemon per state directory: two that share one (started by hand beside the systemd unit, say)
/// would both append to its journal and rewrite it from their own memory. The first holds an exclusive
/// `flock` on `motiond.lock` for as long as it runs (the kernel drops it when the process ends, however
/// it ends); a second refuses to start, naming the first's pid.
enum StateDirectoryLock {
    static let fileName = "motiond.lock"

    struct Held: Error, CustomStringConvertible {
        let description: String
    }

    /// Takes the lock (kept until the process exits: the descriptor is never closed) or throws.
    static func take(in directory: String) throws {
        let path = directory + "/" + fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Held(description: "--state-dir \(directory): cannot open \(fileName): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno == EWOULDBLOCK ? "another motiond\(holder(descriptor)) uses this state directory"
                : "cannot lock \(fileName): \(String(cString: strerror(errno)))"
            close(descriptor)
            throw Held(description: "--state-dir \(directory): \(reason)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// " (pid N)" as the holder wrote it, or nothing.
    private static func holder(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0, let pid = Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return "" }
        return " (pid \(pid))"
    }
}
