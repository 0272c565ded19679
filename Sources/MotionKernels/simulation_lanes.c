#include "motion_kernels.h"

#include <math.h>

/* MOTION_KERNELS_ONE_TARGET: compiled for the -march given only (scripts/bench times each target's loop on
 * one machine that way: Benchmarks/kernels/targets). */
#if defined(__x86_64__) && defined(__clang__) && defined(__linux__) && !defined(MOTION_KERNELS_ONE_TARGET)
#define MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MULTIVERSION
#endif

void motion_simulation_step_matrix(double k, double c, double h, double matrix[4]) {
    /* M = I + hA(I + hA/2(I + hA/3(I + hA/4))) for A = [[0, 1], [−k, −c]]: RK4's step matrix. */
    double m11 = 1, m12 = 0, m21 = 0, m22 = 1;
    for (int level = 4; level >= 1; level--) {
        const double s = h / level;
        const double n11 = -k * m12 * s, n12 = (m11 - c * m12) * s, n21 = -k * m22 * s, n22 = (m21 - c * m22) * s;
        m11 = 1 + n11;
        m12 = n12;
        m21 = n21;
        m22 = 1 + n22;
    }
    matrix[0] = m11;
    matrix[1] = m12;
    matrix[2] = m21;
    matrix[3] = m22;
}

/* One lane: everything branch-free (selects), so that the loop over lanes vectorises. The columns come by
 * value (pointers copied out of the caller's struct once), so that stores cannot be taken to move them. */
static inline __attribute__((always_inline)) uint8_t advance_lane(const motion_simulation_lanes lanes_, size_t i,
                                                                  const int width, int steps, double dt, double h,
                                                                  double *restrict value, double *restrict velocity,
                                                                  const int clamps, const int shares, const int writes,
                                                                  const int rested) {
    const motion_simulation_lanes *lanes = &lanes_;
    /* `shares` is a constant in the vector loops: lanes of one force read it once, not per lane. */
    const double *force = lanes->shared_force;
    const double m11 = shares ? force[0] : lanes->step_matrix[0][i], m12 = shares ? force[1] : lanes->step_matrix[1][i],
                 m21 = shares ? force[2] : lanes->step_matrix[2][i], m22 = shares ? force[3] : lanes->step_matrix[3][i];
    double a = lanes->accumulator[i] + dt;
    double e[4], v[4], t[4];
    for (int d = 0; d < width; d++) {
        t[d] = lanes->target[d][i];
        e[d] = lanes->offset[d][i];
        v[d] = lanes->velocity[d][i];
    }
    /* `clamps` is a constant at every call site: springs without overshootClamping pay nothing for it. */
    int crossed = 0;
    /* Unrolled (wholly, for the lane loops' constant step counts): SwiftPM builds C at -O2, which otherwise
     * left some 3- and 6-step lane loops scalar (the step loop must be gone for the lane loop to vectorise). */
#pragma clang loop unroll_count(6)
    for (int s = 0; s < steps; s++) {
        const int moves = a > 0;
        double along = 0, before = 0;
        for (int d = 0; d < width; d++) {
            const double ne = m11 * e[d] + m12 * v[d], nv = m21 * e[d] + m22 * v[d];
            if (clamps) {
                along += ne * e[d];
                before += e[d] * e[d];
            }
            e[d] = moves ? ne : e[d];
            v[d] = moves ? nv : v[d];
        }
        /* A step that reaches or passes the target (the offset turns against where it was). */
        if (clamps) crossed |= moves & (along <= 0) & (before > 0);
        a = moves ? a - h : a;
    }
    lanes->accumulator[i] = a;
    const double alpha = (h + a) * (1 / h);
    const double threshold = shares ? force[4] : lanes->threshold[i];
    int still = 1, finite = 1;
    double xe[4], xv[4];
    double along = 0, before = 0;
    for (int d = 0; d < width; d++) {
        lanes->offset[d][i] = e[d];
        lanes->velocity[d][i] = v[d];
        /* The newest step, one past the stored boundary. */
        xe[d] = m11 * e[d] + m12 * v[d];
        xv[d] = m21 * e[d] + m22 * v[d];
        still &= fabs(xv[d]) <= threshold;
        if (lanes->rests_at_target) still &= fabs(xe[d]) <= threshold;
        finite &= (xe[d] - xe[d] == 0) & (xv[d] - xv[d] == 0);
        if (clamps) {
            along += xe[d] * e[d];
            before += e[d] * e[d];
        }
    }
    /* The newest step too: what is shown lies between the boundary and it. */
    if (clamps) crossed |= (along <= 0) & (before > 0);
    /* `rested`: at dt 0, a lane that came to rest at the advance stays so (a clamped spring may have
     * crossed its target inside that advance's steps, which dt 0 does not take again). */
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
        const double shown = t[d] + e[d] + (xe[d] - e[d]) * alpha, shownVelocity = v[d] + (xv[d] - v[d]) * alpha;
        /* At rest: a spring sits on its target; a decay where it stopped (where it was, if the numbers left
         * the finite range; zero if even that is not finite). */
        double resting = lanes->rests_at_target ? t[d] : (finite ? t[d] + xe[d] : t[d] + e[d]);
        resting = resting - resting == 0 ? resting : 0;
        value[d] = rests ? resting : shown;
        velocity[d] = rests ? 0 : shownVelocity;
    }
    return (uint8_t)rests;
}

/* The loop over lanes, for a width and a step count known at compile time (so that it vectorises). Columns
 * never overlap each other or the output (the caller owns them all), hence `assume_safety`; the output is
 * lane-indexed (a scatter to property slots would not vectorise). */
#define LANE_LOOP(W, STEPS, CLAMPS, SHARES, WRITES)                                                            \
    const motion_simulation_lanes columns = *lanes;                                                            \
    uint8_t *const endedFlags = lanes->ended;                                                                  \
    _Pragma("clang loop vectorize(assume_safety)")                                                             \
    for (size_t i = 0; i < n; i++) {                                                                           \
        const uint8_t rests = advance_lane(columns, i, W, STEPS, dt, h, WRITES ? values + i * 4 : NULL,         \
                                           WRITES ? velocities + i * 4 : NULL, CLAMPS, SHARES, WRITES, 0);     \
        endedFlags[i] = rests;                                                                                 \
        ended += rests;                                                                                        \
    }

#define WIDTH_LOOPS(STEPS, CLAMPS, SHARES, WRITES)                                                             \
    switch (lanes->width) {                                                                                    \
    case 1: { LANE_LOOP(1, STEPS, CLAMPS, SHARES, WRITES) } break;                                             \
    case 2: { LANE_LOOP(2, STEPS, CLAMPS, SHARES, WRITES) } break;                                             \
    case 3: { LANE_LOOP(3, STEPS, CLAMPS, SHARES, WRITES) } break;                                             \
    case 4: { LANE_LOOP(4, STEPS, CLAMPS, SHARES, WRITES) } break;                                             \
    default: break;                                                                                            \
    }

#define WRITE_SWITCH(STEPS, CLAMPS, SHARES)                                                                    \
    if (writes) {                                                                                              \
        WIDTH_LOOPS(STEPS, CLAMPS, SHARES, 1)                                                                  \
    } else {                                                                                                   \
        WIDTH_LOOPS(STEPS, CLAMPS, SHARES, 0)                                                                  \
    }

/* Springs with overshootClamping (mode 2) take loops of their own, so that the other lanes' loops keep
 * none of the crossing test's work. */
#define FORCE_SWITCH(STEPS, CLAMPS)                                                                            \
    if (lanes->shared_force) {                                                                                 \
        WRITE_SWITCH(STEPS, CLAMPS, 1)                                                                         \
    } else {                                                                                                   \
        WRITE_SWITCH(STEPS, CLAMPS, 0)                                                                         \
    }

#define STEP_SWITCH(CLAMPS)                                                                                    \
    if (steps <= 1) {                                                                                          \
        FORCE_SWITCH(1, CLAMPS)                                                                                \
    } else if (steps <= 2) {                                                                                   \
        FORCE_SWITCH(2, CLAMPS)                                                                                \
    } else if (steps <= 3) {                                                                                   \
        FORCE_SWITCH(3, CLAMPS)                                                                                \
    } else {                                                                                                   \
        /* A late tick (up to ~48 ms at the 8 ms step) stays on the vector path, so one slow tick does not     \
         * make the next one slower. */                                                                        \
        FORCE_SWITCH(6, CLAMPS)                                                                                \
    }

/* Every accumulator is in [−h, 0] before a tick, so no lane needs more than ceil(dt / h) steps. */
static inline double steps_needed(double dt, double h) { return ceil(dt / h); }

/* The latest accumulator of the lanes: none needs more than ceil((latest + dt) / h) steps. Lanes that were
 * started in the same tick share one (a UI moving many things at once), and most ticks then take one step
 * where the bound from dt alone (which holds for every phase) takes two. */
static inline double latest_accumulator(const double *accumulator, size_t n, double h) {
    double latest = -h;
    for (size_t i = 0; i < n; i++) latest = accumulator[i] > latest ? accumulator[i] : latest;
    return latest;
}

/* Springs with overshootClamping, `steps` ≤ 6: loops of their own (out of line, so that their diagnostics
 * stay theirs). Some of them stay scalar in the baseline clone (SSE2); the vector clones take them all. */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpass-failed"
#endif
MULTIVERSION
static size_t advance_clamped(const motion_simulation_lanes *lanes, double dt, double h, double *values,
                              double *velocities, double steps) {
    const size_t n = lanes->count;
    const int writes = values && velocities;
    size_t ended = 0;
    STEP_SWITCH(1)
    return ended;
}
#ifdef __clang__
#pragma clang diagnostic pop
#endif

MULTIVERSION
size_t motion_simulation_advance(const motion_simulation_lanes *lanes, double dt, double h, double *values,
                                 double *velocities) {
    const size_t n = lanes->count;
    const int writes = values && velocities;
    size_t ended = 0;
    const double steps = steps_needed(latest_accumulator(lanes->accumulator, n, h) + dt, h);
    if (steps <= 6) {
        if (lanes->rests_at_target == 2) return advance_clamped(lanes, dt, h, values, velocities, steps);
        STEP_SWITCH(0)
    } else {
        /* Rare (a stalled clock): lane by lane. */
        const int many = steps < 1e6 ? (int)steps : 1000000;
        for (size_t i = 0; i < n; i++) {
            const uint8_t rests = advance_lane(*lanes, i, (int)lanes->width, many, dt, h, writes ? values + i * 4 : NULL,
                                               writes ? velocities + i * 4 : NULL, lanes->rests_at_target == 2,
                                               lanes->shared_force != 0, writes, 0);
            lanes->ended[i] = rests;
            ended += rests;
        }
    }
    return ended;
}

/* Multiversioned as `motion_simulation_advance` is, so that both take the same clone and round alike (FMA
 * or not): a lane written from here (a keeping tick's lanes at rest or read) is bit for bit what the whole
 * loop writes. */
MULTIVERSION
size_t motion_simulation_advance_some(const motion_simulation_lanes *lanes, const uint32_t *indices, size_t n, double dt,
                                      double h, double *values, double *velocities) {
    const double needed = steps_needed(dt, h);
    const int steps = needed < 1e6 ? (int)needed : 1000000, width = (int)lanes->width;
    size_t ended = 0;
    if (width < 1 || width > 4) return 0;
    for (size_t j = 0; j < n; j++) {
        const size_t i = indices[j];
        const uint8_t rests = advance_lane(*lanes, i, width, steps, dt, h, values + j * 4, velocities + j * 4,
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
