/// Which plugin the engine thread is calling, readable from a signal handler (docs/operations.md#a-plugin-that-crashes-the-daemon: a plugin that
/// crashes motiond is quarantined). Three words in memory allocated once: the plugin's label (a C string
/// "file\nhash", made when it was registered), the function's name (a static C string) and a count of
/// calls begun (the hang watch sees one call last, not many calls of one plugin). Setting them is three
/// plain stores; a crash handler reads them with no locks and no allocation.
package enum PluginCallMarker {
    /// The two pointers, for the daemon's crash handler (`label`, then `function`). `nonisolated(unsafe)`:
    /// only the engine thread writes them, and the only other reader is a signal handler on that thread.
    /// Three more words follow for the loader (`loading`): the hang watch looks at both.
    nonisolated(unsafe) package static let address: UnsafeMutableRawPointer = {
        let slot = UnsafeMutableRawPointer.allocate(byteCount: 6 * MemoryLayout<UInt>.size, alignment: MemoryLayout<UInt>.alignment)
        slot.initializeMemory(as: UInt.self, repeating: 0, count: 6)
        return slot
    }()

    /// A plugin's label: "file\nhash", NUL-terminated, kept for the process lifetime.
    package static func label(file: String, hash: String) -> UnsafePointer<CChar> {
        let bytes = Array((file + "\n" + hash).utf8CString)
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        pointer.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(pointer)
    }

    /// Runs `body` (a call into the plugin labelled `label`) marked, then restores the marker it found:
    /// calls nest (a plugin's plan emits another plugin's plan).
    @inline(__always)
    package static func calling<Result>(_ label: UnsafePointer<CChar>?, _ function: StaticString, _ body: () throws -> Result) rethrows -> Result {
        let slots = address.assumingMemoryBound(to: UInt.self)
        let saved = (slots[0], slots[1])
        slots[0] = UInt(bitPattern: label)
        slots[1] = UInt(bitPattern: function.utf8Start)
        slots[2] &+= 1
        defer { (slots[0], slots[1]) = saved }
        return try body()
    }

    /// Runs `body` (mapping the image of the plugin labelled `label`: `dlopen` runs its constructors)
    /// marked in the loader's words, which the hang watch looks at too: a constructor that never returns
    /// is recorded and its file quarantined at the next start, as for `init` (docs/operations.md#a-plugin-that-hangs).
    /// One image is mapped at a time (`PluginManager` loads files one after another).
    package static func loading<Result>(_ label: UnsafePointer<CChar>, _ body: () throws -> Result) rethrows -> Result {
        let slots = address.assumingMemoryBound(to: UInt.self) + 3
        slots[0] = UInt(bitPattern: label)
        slots[1] = UInt(bitPattern: ("dlopen" as StaticString).utf8Start)
        slots[2] &+= 1
        defer { slots[0] = 0 }
        return try body()
    }
}
