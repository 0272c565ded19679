import CHostSupport
import Dispatch
import Synchronization

/// glibc's malloc keeps small freed chunks in "fastbins" and merges them only when a larger request comes:
/// then it merges every one freed since, at once (`malloc_consolidate`). The engine thread's frame path
/// allocates nothing, so freeing a destroyed runtime of 100,000 springs in `Group`s over ~3 s of 1 ms
/// slices piled up its plans' small chunks, and the next larger allocation merged them in one go:
/// 25–31 ms in `malloc_consolidate` (`perf`), one missed frame for every client (AMD EPYC 2-core VM with
/// AVX-512, release build; a 16.7 ms gap in 3 of 3 runs, none in 8 with fastbins off, 3 of them this
/// call). Without fastbins a chunk is merged
/// when it is freed, inside the slice that frees it. Requests cost the same within this machine's noise
/// (20,000 pipelined `plan.add`: 20.1–21.9 µs each against 18.1–21.0 µs).
enum MallocTuning {
    static func disableFastBins() {
        _ = motion_malloc_disable_fast_bins()
    }

    private static let trimScheduled = Atomic<Bool>(false)

    /// glibc keeps what is freed for the next allocation: a uid's thousand connections that held a
    /// megabyte each left the daemon's RSS a gigabyte higher after they closed (issue #45). A second after
    /// a connection ends (once, however many end together), off the engine thread and the event loops,
    /// `malloc_trim` returns the freed pages of every arena to the system.
    static func returnFreedMemorySoon() {
        guard !trimScheduled.exchange(true, ordering: .relaxed) else { return }
        // `malloc_trim` holds each arena's lock while it works: a thread of low priority starved by a busy
        // machine would hold every allocation in the daemon behind it. So not at background priority, and
        // beside realtime threads at realtime for the trim's duration (`motion_malloc_trim`).
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
            trimScheduled.store(false, ordering: .relaxed)
            _ = motion_malloc_trim()
        }
    }
}
