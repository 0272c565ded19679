import Foundation

/// The kernel's bound on one process's memory mappings (`vm.max_map_count`), read once: past it every
/// `mmap` fails, a `malloc` that needs one included (a crash wherever that happens).
enum MapCount {
    /// `/proc/sys/vm/max_map_count`, or Linux's default (65,530) when it cannot be read.
    static let system: Int = {
        let text = (try? String(contentsOfFile: "/proc/sys/vm/max_map_count", encoding: .utf8)) ?? ""
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 > 0 ? $0 : nil } ?? 65_530
    }()

    /// How many shared-memory regions the daemon holds at most, for every uid together: an eighth of
    /// the mappings the kernel allows (the rest for libraries, thread stacks and the heap), at most
    /// 16,384 and at least 64.
    static var sharedRegionBound: Int { max(64, min(16_384, system / 8)) }
}
