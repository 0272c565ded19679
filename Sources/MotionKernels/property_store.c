#include "motion_kernels.h"

/* Whole slots, written in one go. With `streaming`, as non-temporal stores: they do not read each line
 * before writing it, which is most of this loop's cost once the store outgrows the caches (a fifth less
 * time per tick at 250,000 springs), but they push the line out of the cache, which costs small stores
 * more than it saves (BENCHMARKS.md). */
typedef double slot_vector __attribute__((vector_size(64), aligned(64)));

static inline __attribute__((always_inline)) size_t write_slots(
    double *slots, uint8_t *counts, const uint8_t *live, uint32_t *dirty_frame, uint32_t frame, uint32_t *dirty,
    size_t dirty_count, size_t limit, const uint32_t *handles, const uint8_t *new_counts, const double *values,
    const double *velocities, size_t n, const int streaming) {
    for (size_t entry = 0; entry < n; entry++) {
        const uint32_t handle = handles[entry];
        const unsigned count = new_counts[entry];
        if (handle >= limit || !live[handle] || count < 1 || count > 4) continue;
        const double *value = values + entry * 4, *velocity = velocities ? velocities + entry * 4 : 0;
        slot_vector slot = {0, 0, 0, 0, 0, 0, 0, 0};
        for (unsigned c = 0; c < count; c++) {
            slot[c] = value[c];
            slot[4 + c] = velocity ? velocity[c] : 0;
        }
        if (streaming) {
            __builtin_nontemporal_store(slot, (slot_vector *)(slots + (size_t)handle * 8));
        } else {
            *(slot_vector *)(slots + (size_t)handle * 8) = slot;
        }
        counts[handle] = (uint8_t)count;
        if (dirty_frame[handle] != frame) {
            dirty_frame[handle] = frame;
            dirty[dirty_count++] = handle;
        }
    }
    return dirty_count;
}

/* Two loops, not one with a branch: the optimiser would merge the two stores and lose the non-temporal one. */
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
size_t motion_store_write(double *slots, uint8_t *counts, const uint8_t *live, uint32_t *dirty_frame, uint32_t frame,
                          uint32_t *dirty, size_t dirty_count, size_t limit, const uint32_t *handles,
                          const uint8_t *new_counts, const double *values, const double *velocities, size_t n,
                          int streaming) {
    if (!streaming) {
        return write_slots(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles, new_counts, values,
                           velocities, n, 0);
    }
    dirty_count = write_slots(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles, new_counts,
                              values, velocities, n, 1);
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#endif
    return dirty_count;
}
