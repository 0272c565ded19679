import Foundation

/// One daemon per state directory: two that share one (started by hand beside the systemd unit, say)
/// would both append to its journal and rewrite it from their own memory. The first holds an exclusive
/// `flock` on the directory itself for as long as it runs (the kernel drops it when the process ends,
/// however it ends; a lock on a file inside was lost when the file was deleted or replaced); a second
/// refuses to start, naming the first's pid, which the first writes to `motiond.lock` for that message.
enum StateDirectoryLock {
    static let fileName = "motiond.lock"

    struct Held: Error, CustomStringConvertible {
        let description: String
    }

    /// Takes the lock (kept until the process exits: the descriptor is never closed) or throws. Where the
    /// filesystem has no such locks (NFS may refuse one on a directory), returns a warning and goes on.
    static func take(in directory: String) throws -> String? {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Held(description: "--state-dir \(directory): cannot open it: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            if [EBADF, ENOLCK, EOPNOTSUPP].contains(errno) {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                return "--state-dir \(directory): not locked (\(reason)): nothing keeps a second motiond from using it"
            }
            let reason = errno == EWOULDBLOCK ? "another motiond\(holder(in: directory)) uses this state directory"
                : "cannot lock it: \(String(cString: strerror(errno)))"
            close(descriptor)
            throw Held(description: "--state-dir \(directory): \(reason)")
        }
        // Only a message's detail, not needed for the lock: written to a new file renamed over the name, so
        // that whatever `motiond.lock` was (a symbolic or hard link to another file, a FIFO) is not written.
        let temporary = fileName + ".new"
        unlinkat(descriptor, temporary, 0)
        let file = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { return nil }
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
        if renameat(descriptor, temporary, descriptor, fileName) != 0 { unlinkat(descriptor, temporary, 0) }
        return nil
    }

    /// " (pid N)" as the holder wrote it, or nothing.
    private static func holder(in directory: String) -> String {
        let file = open(directory + "/" + fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else { return "" }
        defer { close(file) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        guard count > 0, let pid = Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else { return "" }
        return " (pid \(pid))"
    }
}
