#if canImport(Glibc)
import Glibc
#endif

/// Address space reserved up front with no memory behind it, made usable page by page as it is needed:
/// memory that grows in place, copying nothing. Fresh pages read as zero.
///
/// Lanes and the property store grow by doubling; moved each time, a block of 131,072 2-D springs took
/// 5.4 ms of the engine thread to double (3.6 ms of it the columns), and each doubling after it twice as
/// long: a frame or two missed by every client while one of them added springs. Reserving is only address space
/// (`PROT_NONE`, not counted as committed memory); `makeUsable` commits what is used.
package struct ReservedRegion {
    /// The kernel's page size (4 KiB on x86-64; 16 or 64 KiB on some arm64 kernels).
    package static let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
    package let base: UnsafeMutableRawPointer
    package let bytes: Int

    /// Nil when the kernel refuses (an address-space limit): callers then move to a larger allocation.
    package init?(bytes: Int) {
        let size = (bytes + Self.page - 1) / Self.page * Self.page
        let address = mmap(nil, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let address, address != MAP_FAILED else { return nil }
        base = address
        self.bytes = size
    }

    /// Makes the whole pages around `range` (bytes from `base`) readable and writable; false when the
    /// kernel refuses (out of memory under strict overcommit).
    package func makeUsable(_ range: Range<Int>) -> Bool {
        let start = range.lowerBound / Self.page * Self.page
        let end = min((range.upperBound + Self.page - 1) / Self.page * Self.page, bytes)
        guard end > start else { return true }
        return mprotect(base + start, end - start, PROT_READ | PROT_WRITE) == 0
    }

    package func release() {
        munmap(base, bytes)
    }

    /// Elements a region is reserved for when an array first reaches `capacity`: room to double four
    /// times more, and at least 4 Mi (a million lanes of four components).
    package static func reservation(for capacity: Int) -> Int {
        max(capacity * 16, 1 << 22)
    }
}
