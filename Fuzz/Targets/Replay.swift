import Foundation

/// Runs each file (or each file of each directory) through `target` and says how many it ran.
package func replay(_ paths: ArraySlice<String>, through target: ([UInt8]) -> Void) {
    var count = 0
    for path in paths {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
        let files = isDirectory.boolValue
            ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
            : [path]
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            target(Array(data))
            count += 1
        }
    }
    print("replayed \(count) inputs")
}
