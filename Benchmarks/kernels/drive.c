/* The two kernels of a springs tick alone, as the Spring plugin drives them: motion_simulation_advance on
 * chunks of lanes, each chunk's output written to a property store with motion_store_write. No Swift, no
 * plugin, no engine: where the engine's time per spring goes, and what column placement does to it.
 *
 *   K=Sources/MotionKernels
 *   clang -O3 -I$K/include -o /tmp/drive Benchmarks/kernels/drive.c $K/simulation_lanes.c $K/property_store.c -lm
 *   /tmp/drive LANES TICKS CHUNK MODE     MODE: 1 advance, 2 store write, 3 both
 *   SKEW=320 /tmp/drive ...               columns start SKEW × index bytes past a page (0: all alike)
 *   SHARED=1 /tmp/drive ...               every lane's force given once (`shared_force`: its transition computed
 *                                         once per call), not per lane (each lane's computed in the loop)
 *
 * prints nanoseconds per lane per tick (median). Springs are 2-D, never at rest. */
#include "motion_kernels.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../baselines/bench_time.h"

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 10000;
    const int ticks = argc > 2 ? atoi(argv[2]) : 1000;
    const size_t chunk = argc > 3 ? (size_t)atol(argv[3]) : 2048;
    const int mode = argc > 4 ? atoi(argv[4]) : 3;
    const size_t skew = getenv("SKEW") ? (size_t)atol(getenv("SKEW")) : 320;
    /* offset ×2, velocity ×2, target ×2, tension, damping, rests_in */
    double *column[9];
    for (int c = 0; c < 9; c++) column[c] = (double *)((char *)aligned_alloc(4096, n * 8 + 8192) + skew * c);
    const double force[2] = {120, 0.05};
    const int shared = getenv("SHARED") && atoi(getenv("SHARED"));
    for (size_t i = 0; i < n; i++) {
        column[0][i] = column[1][i] = -1000;
        column[2][i] = column[3][i] = 0;
        column[4][i] = column[5][i] = 1000;
        column[6][i] = force[0];
        column[7][i] = force[1];
        column[8][i] = 1e9;   /* seconds until rest: never within the run */
    }
    uint8_t *ended = malloc(n), *counts = calloc(n, 1), *live = malloc(n), *write_counts = malloc(chunk);
    memset(live, 1, n);
    memset(write_counts, 2, chunk);
    double *values = aligned_alloc(64, chunk * 32), *velocities = aligned_alloc(64, chunk * 32);
    memset(values, 0, chunk * 32);
    memset(velocities, 0, chunk * 32);
    double *slots = aligned_alloc(64, n * 64);
    uint32_t *dirty_frame = calloc(n, 4), *dirty = malloc(n * 4 + 4), *handles = malloc(n * 4);
    for (size_t i = 0; i < n; i++) handles[i] = (uint32_t)i;
    double *times = malloc(sizeof(double) * ticks);
    uint32_t frame = 1;
    for (int t = 0; t < ticks; t++, frame++) {
        const double start = now_ns();
        size_t dirty_count = 0;
        for (size_t first = 0; first < n; first += chunk) {
            const size_t k = n - first < chunk ? n - first : chunk;
            motion_simulation_lanes lanes = {
                .count = k, .width = 2, .rests_at_target = 1,
                .offset = {column[0] + first, column[1] + first}, .velocity = {column[2] + first, column[3] + first},
                .target = {column[4] + first, column[5] + first}, .tension = column[6] + first,
                .damping = column[7] + first, .rests_in = column[8] + first, .ended = ended + first, .shared_force = shared ? force : 0};
            if (mode & 1) motion_simulation_advance(&lanes, 1.0 / 120, values, velocities);
            if (mode & 2)
                dirty_count = motion_store_write(slots, counts, live, dirty_frame, frame, dirty, dirty_count, n, handles + first,
                                                 write_counts, values, velocities, k, n >= 131072, NULL);
        }
        times[t] = now_ns() - start;
    }
    qsort(times, ticks, sizeof(double), compare_doubles);
    printf("{\"lanes\":%zu,\"chunk\":%zu,\"mode\":%d,\"skew\":%zu,\"shared\":%d,\"nsPerLane\":%.2f}\n", n, chunk, mode, skew, shared, times[ticks / 2] / n);
    return 0;
}
