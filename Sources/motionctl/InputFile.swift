import ArgumentParser
import Foundation

/// A file named on the command line, read whole (`-`: standard input); one that cannot be read is a
/// sentence with the system's reason (`plan.json: No such file or directory`), not a Foundation dump.
func readInputFile(_ path: String, label: String? = nil) throws -> Data {
    if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
    let prefix = label.map { "\($0) \(path)" } ?? path
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw ValidationError("\(prefix): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = read(descriptor, &chunk, chunk.count)
        if count < 0 {
            if errno == EINTR { continue }
            throw ValidationError("\(prefix): \(String(cString: strerror(errno)))")
        }
        if count == 0 { return data }
        data.append(contentsOf: chunk[0..<count])
    }
}
