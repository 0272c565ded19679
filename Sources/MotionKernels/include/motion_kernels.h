#ifndef MOTION_KERNELS_H
#define MOTION_KERNELS_H

/* Vectorised frame loops for the shipped animations (linked into each plugin that uses MotionAnimation).
 * C, not Swift, for one reason: function multiversioning. The loops are compiled for AVX-512, AVX2+FMA and
 * baseline x86-64 and the best one is chosen when the plugin loads, so one plugin file runs everywhere
 * and uses the wide units where they exist (2× per spring here; BENCHMARKS.md). */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Springs or decays of `width` components (1–4) in structure-of-arrays form, evaluated exactly as
 * `Simulation` does it (docs/vocabulary.md#exact-motion): the closed form of x″ = −k·x − c·x′ over the
 * time asked, one 2×2 matrix per lane (`motion_simulation_transition`) whatever the time, so a tick of any
 * length, a display's present time or a sample land on the analytic curve.
 *
 * Lane i's state is its offset from the target (`offset` = position − target) and `velocity` at the time
 * last shown. Its force is `tension` k and `damping` c per unit of mass (a decay: k = 0, c its drag); with
 * `shared_force` every lane's is that one and the matrix is computed once per call, else each lane's is
 * computed in the loop (vectorised polynomials, no libm calls).
 */
typedef struct motion_simulation_lanes {
    size_t count;
    uint32_t width;
    /** 1: a spring; 0: a decay (`tension` is 0, `target` is where it rests); 2: a spring with
     *  `overshootClamping` (as 1, and also rests at its target once it has reached or crossed it). Each
     *  rests at its target when its `rests_in` runs out. */
    uint32_t rests_at_target;
    double *offset[4];
    double *velocity[4];
    double *target[4];
    double *tension;
    double *damping;
    /** Seconds until the lane rests (the time its rest rule first holds, docs/vocabulary.md#when-a-spring-rests):
     *  each advance takes dt off, and the lane rests at the one that brings it to 0 or below. */
    double *rests_in;
    /** Out: 1 where the lane came to rest this tick (its published state is the resting one). */
    uint8_t *ended;
    /** NULL, or the one force of every lane: k, c. Then `tension` and `damping` are not read (a UI's
     *  springs mostly share their physics). */
    const double *shared_force;
} motion_simulation_lanes;

/** The exact transition over `t` >= 0 seconds of x″ = −k·x − c·x′ (k, c >= 0): (x, x′)(t) = M·(x, x′)(0),
 *  `matrix` = m11, m12, m21, m22. The one formula the lanes, `Simulation` and the C baseline use. */
void motion_simulation_transition(double k, double c, double t, double matrix[4]);

/**
 * Advances every lane by `dt` (>= 0) and writes lane i's published value and velocity to `values[i * 4 + c]`
 * and `velocities[i * 4 + c]`, c < width, and 0 for c from width to 3 (the layout of "motion.properties/1"
 * writes); with `values` or `velocities` NULL, writes neither (a tick whose values no one reads: the lanes
 * it must still write are found with `motion_simulation_select` and written at dt 0). Returns how many
 * lanes came to rest (their `ended` flag is 1; the others' is 0). At `dt` 0 nothing moves: the lanes'
 * state is written again as it is.
 */
size_t motion_simulation_advance(const motion_simulation_lanes *lanes, double dt, double *values, double *velocities);

/** The same for the `n` lanes listed in `indices` only; the j-th listed lane's output is at `j * 4`. At
 *  `dt` 0, a lane whose `ended` flag is set is shown at rest (as the advance that set it showed it: a
 *  clamped spring's crossing inside that advance's steps is not seen again), so pass the advance's flags. */
size_t motion_simulation_advance_some(const motion_simulation_lanes *lanes, const uint32_t *indices, size_t n, double dt,
                                      double *values, double *velocities);

/**
 * The lanes among `n` that a tick whose values no one reads must still write: those that came to rest
 * (`ended[i]` != 0) and those whose property someone reads (`read[handles[i]]` != 0 for a handle below
 * `read_count`; `read` may be NULL). Their indices go to `indices` (room for `n`), ascending; returns how
 * many.
 */
size_t motion_simulation_select(const uint8_t *ended, const uint32_t *handles, size_t n, const uint8_t *read,
                                size_t read_count, uint32_t *indices);

/**
 * The same for lanes `start ..< start + n` of a block, with the lanes read given as a list of the block's
 * lanes (`read_lanes`, ascending, each once; those outside the chunk are skipped) instead of a flag per
 * handle: a pass over `ended` (the chunk's flags) only when `rested`, the lanes of the chunk that came to
 * rest (as the advance returned), is not 0. Indices are relative to `start`.
 */
size_t motion_simulation_select_listed(const uint8_t *ended, size_t start, size_t n, size_t rested,
                                       const uint32_t *read_lanes, size_t read_lane_count, uint32_t *indices);

/**
 * The host's property store (MotionHost's `PropertyStore`): one 64-byte slot per property, value then
 * velocity, 4 components each. Writes `n` entries given in the "motion.properties/1" layout (entry i:
 * `counts[i]` components at `values + 4i`, `velocities + 4i`; NULL velocities: zero), skipping handles at or
 * past `limit`, not live, or with a count outside 1–4. Each written handle not yet in this frame
 * (`dirty_frame[h] != frame`) is appended to `dirty`, which has room for one entry more than `limit`
 * (each write stores its handle at the end and counts it only if new). Returns the new length of `dirty`. `streaming`: write
 * the slots past the caches (for stores much larger than them). `non_finite` (may be NULL) is set to 1 if a
 * value or velocity written was NaN or infinite (they are written all the same), else 0.
 */
size_t motion_store_write(double *slots, uint8_t *counts, const uint8_t *live, uint32_t *dirty_frame, uint32_t frame,
                          uint32_t *dirty, size_t dirty_count, size_t limit, const uint32_t *handles,
                          const uint8_t *new_counts, const double *values, const double *velocities, size_t n,
                          int streaming, int *non_finite);

/**
 * Where a frame's updates come from (MotionEngine's `PropertyStore`): per handle a 64-byte slot (values at
 * 0–3, velocities at 4–7; readable for every handle passed, count 0 too), a component count (0: no
 * property, else 1–4), an owner uid and the pre-encoded
 * `{"runtime":"…","target":…,"property":…,"value":` prefix at `prefixes + prefix_starts[h]`.
 */
typedef struct motion_frame_source {
    const double *slots;
    const uint8_t *counts;
    const uint32_t *owners;
    const uint8_t *prefixes;
    const intptr_t *prefix_starts;
    const intptr_t *prefix_lengths;
    /** With `names_others`, an update of a property whose owner is neither `viewer` nor `daemon` names
     *  its runtime `"<owner>/<name>"` (the prefix's first `runtime_opening` bytes, then the uid and `/`). */
    int names_others;
    uint32_t viewer;
    uint32_t daemon;
    size_t runtime_opening;
    /** Velocities are written times this (the speed: frames show them per wall-clock second, docs/vocabulary.md#speed-and-reduce-motion);
     *  0 is taken as 1. */
    double velocity_scale;
} motion_frame_source;

/** Room one update may take beyond its prefix (the owner, the keys, eight numbers of at most 32 bytes). */
#define MOTION_FRAME_UPDATE_ROOM 320

/**
 * Appends the frame updates `{prefix}[values],"velocity":[velocities]}` of `handles` to `out` (`*used` of
 * `capacity` bytes taken), comma-separated (a comma first unless `*first`; cleared once one is written).
 * Handles whose count is 0 are skipped. Numbers are FrameEncoder's fixed point: integers exactly, others
 * to nine decimals with trailing zeros dropped. Stops before an update that might not fit (less than its
 * prefix + MOTION_FRAME_UPDATE_ROOM left) or that holds a number outside the fixed format (magnitude of
 * 999,999,999 or more, NaN, infinities), and returns how many handles it consumed: the caller grows the
 * buffer or writes that update itself, and calls again with the rest.
 */
size_t motion_frame_write_updates(const motion_frame_source *source, const uint32_t *handles, size_t n,
                                  uint8_t *out, size_t capacity, size_t *used, int *first);

#ifdef __cplusplus
}
#endif

#endif
