#if canImport(Glibc)
import Glibc
#endif

/// Refuses plugin files that someone other than motiond's user (or root) could have written, as sshd
/// refuses loose key files: loading such a file would run another user's code as motiond (docs/plugins.md).
package enum PluginFileCheck {
    /// Why `file` must not be loaded, or nil when it may.
    package static func refusal(for file: String) -> String? {
        var status = stat()
        guard stat(file, &status) == 0 else { return "cannot stat: \(String(cString: strerror(errno)))" }
        guard status.st_mode & S_IFMT == S_IFREG else { return "not a regular file" }
        if let problem = looseness(status, "the file") { return problem }
        let directory = file.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var parent = stat()
        guard stat(directory.isEmpty ? "/" : directory, &parent) == 0 else { return "cannot stat its directory" }
        if parent.st_mode & S_ISVTX == 0, let problem = looseness(parent, "its directory \(directory)") { return problem }
        return nil
    }

    private static func looseness(_ status: stat, _ what: String) -> String? {
        let mode = status.st_mode & 0o7777
        let octal = "0" + String(mode, radix: 8)
        if status.st_uid != 0 && status.st_uid != geteuid() {
            return "\(what) is owned by uid \(status.st_uid), not by motiond's user or root"
        }
        if mode & S_IWOTH != 0 { return "\(what) is writable by every user (mode \(octal)); chmod o-w" }
        if mode & S_IWGRP != 0 { return "\(what) is writable by group \(status.st_gid) (mode \(octal)); chmod g-w" }
        return nil
    }
}
