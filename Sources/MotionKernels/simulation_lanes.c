#include "motion_kernels.h"
#include "exact_motion.h"

#include <math.h>

/* MOTION_KERNELS_ONE_TARGET: compiled for the -march given only (scripts/bench times each target's loop on
 * one machine that way: Benchmarks/kernels/targets). */
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__) && !defined(MOTION_KERNELS_ONE_TARGET)
#define MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MULTIVERSION
#endif

void motion_simulation_transition(double k, double c, double t, double matrix[4]) {
    motion_transition(k, c, t, &matrix[0], &matrix[1], &matrix[2], &matrix[3]);
}

/* One lane: everything branch-free (selects), so that the loop over lanes vectorises. The columns come by
 * value (pointers copied out of the caller's struct once), so that stores cannot be taken to move them.
 * `shares` (a constant in the vector loops): every lane's transition is `shared` (computed once per call),
 * else each lane's own is computed here from its tension and damping. */
static inline __attribute__((always_inline)) uint8_t advance_lane(const motion_simulation_lanes lanes_, size_t i,
                                                                  const int width, double dt, const double *shared,
                                                                  double *restrict value, double *restrict velocity,
                                                                  const int clamps, const int shares, const int writes,
                                                                  const int rested) {
    const motion_simulation_lanes *lanes = &lanes_;
    double m11, m12, m21, m22;
    if (shares) {
        m11 = shared[0];
        m12 = shared[1];
        m21 = shared[2];
        m22 = shared[3];
    } else {
        motion_transition(lanes->tension[i], lanes->damping[i], dt, &m11, &m12, &m21, &m22);
    }
    /* The lane rests at the time its rule first holds (docs/vocabulary.md#when-a-spring-rests), found when it
     * started: whatever the ticks, the first to reach that time ends it. */
    const double remaining = lanes->rests_in[i] - dt;
    lanes->rests_in[i] = remaining;
    const int still = remaining <= 0;
    double e[4], t[4], ne[4], nv[4];
    int finite = 1;
    double along = 0, before = 0;
    for (int d = 0; d < width; d++) {
        t[d] = lanes->target[d][i];
        e[d] = lanes->offset[d][i];
        const double v = lanes->velocity[d][i];
        ne[d] = m11 * e[d] + m12 * v;
        nv[d] = m21 * e[d] + m22 * v;
        lanes->offset[d][i] = ne[d];
        lanes->velocity[d][i] = nv[d];
        finite &= (ne[d] - ne[d] == 0) & (nv[d] - nv[d] == 0);
        /* `clamps` is a constant at every call site: springs without overshootClamping pay nothing for it. */
        if (clamps) {
            along += ne[d] * e[d];
            before += e[d] * e[d];
        }
    }
    /* A clamped spring reached or passed its target since the last time asked (the offset turned against
     * where it was). */
    const int crossed = clamps ? (along <= 0) & (before > 0) : 0;
    /* `rested`: at dt 0, a lane that came to rest at the advance stays so (a clamped spring's crossing is
     * not seen again from where it rests). */
    const int rests = still | !finite | crossed | rested;
    /* `writes` is a constant in the lane loops: a tick whose values no one reads ("motion.unread/1") writes
     * none (the lanes that come to rest are written afterwards, at dt 0: the same values). */
    if (!writes) return (uint8_t)rests;
    for (int d = 0; d < 4; d++) {
        /* All four components, zero past the width: a whole group of four vectorises as shuffles and
         * plain stores; a partial one became scatters (2× the lane's cost on AMD's AVX-512, BENCHMARKS.md). */
        if (d >= width) {
            value[d] = 0;
            velocity[d] = 0;
            continue;
        }
        /* At rest: a spring sits on its target, and so does a decay (its target is where it is at its rest
         * time); if the numbers left the finite range, a decay stays where it was (zero if even that is not
         * finite). */
        double resting = lanes->rests_at_target || finite ? t[d] : t[d] + e[d];
        resting = resting - resting == 0 ? resting : 0;
        value[d] = rests ? resting : t[d] + ne[d];
        velocity[d] = rests ? 0 : nv[d];
    }
    return (uint8_t)rests;
}

/* The loop over lanes, for a width known at compile time (so that it vectorises). Columns never overlap
 * each other or the output (the caller owns them all), hence `assume_safety`; the output is lane-indexed
 * (a scatter to property slots would not vectorise). */
#define LANE_LOOP(W, CLAMPS, SHARES, WRITES)                                                                   \
    const motion_simulation_lanes columns = *lanes;                                                            \
    uint8_t *const endedFlags = lanes->ended;                                                                  \
    _Pragma("clang loop vectorize(assume_safety)")                                                             \
    for (size_t i = 0; i < n; i++) {                                                                           \
        const uint8_t rests = advance_lane(columns, i, W, dt, shared, WRITES ? values + i * 4 : NULL,            \
                                           WRITES ? velocities + i * 4 : NULL, CLAMPS, SHARES, WRITES, 0);     \
        endedFlags[i] = rests;                                                                                 \
        ended += rests;                                                                                        \
    }

#define WIDTH_LOOPS(CLAMPS, SHARES, WRITES)                                                                    \
    switch (lanes->width) {                                                                                    \
    case 1: { LANE_LOOP(1, CLAMPS, SHARES, WRITES) } break;                                                    \
    case 2: { LANE_LOOP(2, CLAMPS, SHARES, WRITES) } break;                                                    \
    case 3: { LANE_LOOP(3, CLAMPS, SHARES, WRITES) } break;                                                    \
    case 4: { LANE_LOOP(4, CLAMPS, SHARES, WRITES) } break;                                                    \
    default: break;                                                                                            \
    }

#define WRITE_SWITCH(CLAMPS, SHARES)                                                                           \
    if (writes) {                                                                                              \
        WIDTH_LOOPS(CLAMPS, SHARES, 1)                                                                         \
    } else {                                                                                                   \
        WIDTH_LOOPS(CLAMPS, SHARES, 0)                                                                         \
    }

#define FORCE_SWITCH(CLAMPS)                                                                                   \
    if (lanes->shared_force) {                                                                                 \
        WRITE_SWITCH(CLAMPS, 1)                                                                                \
    } else {                                                                                                   \
        WRITE_SWITCH(CLAMPS, 0)                                                                                \
    }

/* The shared transition, or the identity when there is none (then each lane computes its own). */
static inline void shared_transition(const motion_simulation_lanes *lanes, double dt, double matrix[4]) {
    if (lanes->shared_force) {
        motion_transition(lanes->shared_force[0], lanes->shared_force[1], dt, &matrix[0], &matrix[1], &matrix[2], &matrix[3]);
    } else {
        matrix[0] = matrix[3] = 1;
        matrix[1] = matrix[2] = 0;
    }
}

/* Springs with overshootClamping: loops of their own (out of line, so that their diagnostics stay theirs),
 * so that the other lanes' loops keep none of the crossing test's work. */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
MULTIVERSION
static size_t advance_clamped(const motion_simulation_lanes *lanes, double dt, const double *shared, double *values,
                              double *velocities) {
    const size_t n = lanes->count;
    const int writes = values && velocities;
    size_t ended = 0;
    FORCE_SWITCH(1)
    return ended;
}
#ifdef __clang__
#pragma clang diagnostic pop
#endif

/* The SSE2 and SSE4.2 builds leave one of the sixteen loops scalar (clang reports it, not which); the
 * AVX2 and AVX-512 clones, which every machine of this project takes, vectorise them all (scripts/bench
 * times each target: Benchmarks/kernels/targets). */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
MULTIVERSION
size_t motion_simulation_advance(const motion_simulation_lanes *lanes, double dt, double *values, double *velocities) {
    const size_t n = lanes->count;
    const int writes = values && velocities;
    size_t ended = 0;
    double shared[4];
    shared_transition(lanes, dt, shared);
    if (lanes->rests_at_target == 2) return advance_clamped(lanes, dt, shared, values, velocities);
    FORCE_SWITCH(0)
    return ended;
}
#ifdef __clang__
#pragma clang diagnostic pop
#endif

/* Multiversioned as `motion_simulation_advance` is, so that both take the same clone and round alike (FMA
 * or not): a lane written from here (a keeping tick's lanes at rest or read) is bit for bit what the whole
 * loop writes. */
MULTIVERSION
size_t motion_simulation_advance_some(const motion_simulation_lanes *lanes, const uint32_t *indices, size_t n, double dt,
                                      double *values, double *velocities) {
    const int width = (int)lanes->width;
    size_t ended = 0;
    if (width < 1 || width > 4) return 0;
    double shared[4];
    shared_transition(lanes, dt, shared);
    for (size_t j = 0; j < n; j++) {
        const size_t i = indices[j];
        const uint8_t rests = advance_lane(*lanes, i, width, dt, shared, values + j * 4, velocities + j * 4,
                                           lanes->rests_at_target == 2, lanes->shared_force != 0, 1,
                                           dt == 0 && lanes->ended[i]);
        lanes->ended[i] = rests;
        ended += rests;
    }
    return ended;
}

MULTIVERSION
size_t motion_simulation_select(const uint8_t *ended, const uint32_t *handles, size_t n, const uint8_t *read,
                                size_t read_count, uint32_t *indices) {
    size_t selected = 0;
    /* Branch-free: each lane's index is stored, and counted only if it is wanted. */
    if (read) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t handle = handles[i];
            const int wanted = ended[i] | (handle < read_count ? read[handle] : 0);
            indices[selected] = (uint32_t)i;
            selected += wanted != 0;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            indices[selected] = (uint32_t)i;
            selected += ended[i] != 0;
        }
    }
    return selected;
}

size_t motion_simulation_select_listed(const uint8_t *ended, size_t start, size_t n, size_t rested,
                                       const uint32_t *read_lanes, size_t read_lane_count, uint32_t *indices) {
    size_t selected = 0, next = 0;
    /* This chunk's part of the list: lanes start ..< start + n, given relative to `start`. */
    while (next < read_lane_count && read_lanes[next] < start) next++;
    if (rested == 0) {
        for (; next < read_lane_count && read_lanes[next] < start + n; next++) {
            const uint32_t lane = (uint32_t)(read_lanes[next] - start);
            if (selected == 0 || lane > indices[selected - 1]) indices[selected++] = lane;
        }
        return selected;
    }
    /* A merge of the two ascending sets: the lanes at rest (a pass over their flags) and the listed ones. */
    for (size_t i = 0; i < n; i++) {
        int wanted = ended[i] != 0;
        while (next < read_lane_count && read_lanes[next] <= start + i) wanted |= read_lanes[next++] == start + i;
        indices[selected] = (uint32_t)i;
        selected += wanted;
    }
    return selected;
}
