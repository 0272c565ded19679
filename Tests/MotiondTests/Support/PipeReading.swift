import Foundation

extension Pipe {
    /// What a child process has written so far once it contains `marker` (a line it prints when ready),
    /// or everything up to its end of output if it never does. Blocks: for a child that says it.
    func read(until marker: String) -> String {
        var text = ""
        while !text.contains(marker) {
            let chunk = fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }
}
