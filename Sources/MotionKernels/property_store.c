#include "motion_kernels.h"

/* Whole slots, written in one go. With `streaming`, as non-temporal stores: they do not read each line
 * before writing it, which is most of this loop's cost once the store outgrows the caches (a fifth less
 * time per tick at 250,000 springs), but they push the line out of the cache, which costs small stores
 * more than it saves (BENCHMARKS.md). */
typedef double slot_vector __attribute__((vector_size(64), aligned(64)));
/* Half a slot: 4 components, loaded from the writer's buffers (8-byte aligned), masked to the count. */
typedef double half_vector __attribute__((vector_size(32), aligned(8)));
typedef int64_t half_mask __attribute__((vector_size(32), aligned(8)));

static const int64_t component_masks[5][4] = {
    {0, 0, 0, 0}, {-1, 0, 0, 0}, {-1, -1, 0, 0}, {-1, -1, -1, 0}, {-1, -1, -1, -1}};

/* Components `0..<count` of `source` (4 doubles readable when `whole`), the rest zero, into `out`. */
static inline __attribute__((always_inline)) void masked(const double *source, unsigned count, int whole, half_vector *out) {
    const half_mask mask = *(const half_mask *)component_masks[count];
    if (whole) {
        *out = (half_vector)((half_mask)(*(const half_vector *)source) & mask);
        return;
    }
    half_vector result = {0, 0, 0, 0};
    for (unsigned c = 0; c < count; c++) result[c] = source[c];
    *out = result;
}

/* One entry (4 doubles of value and of velocity readable at `value`, `velocity` when `whole`). Lanes of
 * `bad` become nonzero where a component is NaN or infinite (x − x is +0.0, all bits clear, for every
 * finite x, and NaN otherwise): a plugin's bug told, for two subtractions and two ors a slot. */
static inline __attribute__((always_inline)) size_t write_slot(
    double *restrict slots, uint8_t *restrict counts, const uint8_t *restrict live, uint32_t *restrict dirty_frame,
    uint32_t frame, uint32_t *restrict dirty, size_t dirty_count, size_t limit, uint32_t handle, unsigned count,
    const double *value, const double *velocity, const int whole, const int streaming, half_mask *restrict bad) {
    if (handle >= limit || !live[handle] || count - 1 > 3) return dirty_count;
    half_vector values, velocities = {0, 0, 0, 0};
    masked(value, count, whole, &values);
    if (velocity) masked(velocity, count, whole, &velocities);
    *bad |= (half_mask)(values - values) | (half_mask)(velocities - velocities);
    const slot_vector slot = __builtin_shufflevector(values, velocities, 0, 1, 2, 3, 4, 5, 6, 7);
    if (streaming) {
        __builtin_nontemporal_store(slot, (slot_vector *)(slots + (size_t)handle * 8));
    } else {
        *(slot_vector *)(slots + (size_t)handle * 8) = slot;
    }
    counts[handle] = (uint8_t)count;
    /* Appended once per frame: the list has room for every handle, and one more for this store. */
    const int fresh = dirty_frame[handle] != frame;
    dirty_frame[handle] = frame;
    dirty[dirty_count] = handle;
    return dirty_count + fresh;
}

static inline __attribute__((always_inline)) size_t write_slots(
    double *restrict slots, uint8_t *restrict counts, const uint8_t *restrict live, uint32_t *restrict dirty_frame,
    uint32_t frame, uint32_t *restrict dirty, size_t dirty_count, size_t limit, const uint32_t *handles,
    const uint8_t *new_counts, const double *values, const double *velocities, size_t n, const int streaming,
    int *non_finite) {
    if (n == 0) return dirty_count;
    half_mask bad = {0, 0, 0, 0};
    /* Every entry but the last has 4 doubles of value and of velocity before the next one starts. */
    if (velocities) {
        for (size_t entry = 0; entry + 1 < n; entry++) {
            dirty_count = write_slot(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles[entry],
                                     new_counts[entry], values + entry * 4, velocities + entry * 4, 1, streaming, &bad);
        }
    } else {
        for (size_t entry = 0; entry + 1 < n; entry++) {
            dirty_count = write_slot(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles[entry],
                                     new_counts[entry], values + entry * 4, 0, 1, streaming, &bad);
        }
    }
    const size_t last = n - 1;
    dirty_count = write_slot(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles[last], new_counts[last],
                             values + last * 4, velocities ? velocities + last * 4 : 0, 0, streaming, &bad);
    if (non_finite) *non_finite = (bad[0] | bad[1] | bad[2] | bad[3]) != 0;
    return dirty_count;
}

/* Two loops, not one with a branch: the optimiser would merge the two stores and lose the non-temporal one.
 * MOTION_KERNELS_ONE_TARGET: compiled for the -march given only (Benchmarks/kernels/targets). */
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__) && !defined(MOTION_KERNELS_ONE_TARGET)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
size_t motion_store_write(double *slots, uint8_t *counts, const uint8_t *live, uint32_t *dirty_frame, uint32_t frame,
                          uint32_t *dirty, size_t dirty_count, size_t limit, const uint32_t *handles,
                          const uint8_t *new_counts, const double *values, const double *velocities, size_t n,
                          int streaming, int *non_finite) {
    if (non_finite) *non_finite = 0;
    if (!streaming) {
        return write_slots(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles, new_counts, values,
                           velocities, n, 0, non_finite);
    }
    dirty_count = write_slots(slots, counts, live, dirty_frame, frame, dirty, dirty_count, limit, handles, new_counts,
                              values, velocities, n, 1, non_finite);
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#endif
    return dirty_count;
}
