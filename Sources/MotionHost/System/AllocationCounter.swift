import Foundation

/// Heap allocations counted by `libmotion-malloc-count.so` (the package's `MotionMallocCount`) when it is
/// preloaded; nil otherwise. motion-bench's allocations per tick and `motiond --validate`'s "no allocation
/// in advance" read it.
package struct AllocationCounter {
    private let read: @convention(c) () -> UInt

    package init?() {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "motion_malloc_count") else { return nil }
        read = unsafeBitCast(symbol, to: (@convention(c) () -> UInt).self)
    }

    package var count: UInt { read() }

    /// The counter library beside the executable (a build tree) or in `../lib/motiond` (an install).
    package static var library: String? {
        let directory = PluginLoader.executableDirectory
        return [directory + "/libmotion-malloc-count.so", directory + "/../lib/motiond/libmotion-malloc-count.so"]
            .first { FileManager.default.isReadableFile(atPath: $0) }
    }
}
