/* The frame encoder's loop alone, as FrameEncoder drives it: motion_frame_write_updates over every
 * property of a frame (2-D springs: a value and a velocity of two components each, as the daemon's
 * `{"runtime":"default","target":"spring-N","property":"position","value":` prefixes). No Swift, no
 * socket: nanoseconds per update for the target it was compiled for (Benchmarks/kernels/targets).
 *
 *   K=Sources/MotionKernels
 *   clang -O3 -I$K/include -o /tmp/encode Benchmarks/kernels/encode.c $K/frame_encoder.c -lm
 *   /tmp/encode UPDATES TICKS
 *
 * Values move every tick (outside the timed part) and have nine significant decimals, as springs do. */
#include "motion_kernels.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../baselines/bench_time.h"

int main(int argc, char **argv) {
    const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 40000;
    const int ticks = argc > 2 ? atoi(argv[2]) : 120;
    double *slots = aligned_alloc(64, n * 64);
    uint8_t *counts = malloc(n);
    uint32_t *owners = calloc(n, 4), *handles = malloc(n * 4);
    intptr_t *starts = malloc(n * sizeof(intptr_t)), *lengths = malloc(n * sizeof(intptr_t));
    uint8_t *prefixes = malloc(n * 96);
    size_t prefix_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        counts[i] = 2;
        handles[i] = (uint32_t)i;
        const int length = sprintf((char *)prefixes + prefix_bytes,
                                   "{\"runtime\":\"default\",\"target\":\"spring-%zu\",\"property\":\"position\",\"value\":", i);
        starts[i] = (intptr_t)prefix_bytes;
        lengths[i] = length;
        prefix_bytes += (size_t)length;
    }
    const motion_frame_source source = {
        .slots = slots, .counts = counts, .owners = owners, .prefixes = prefixes, .prefix_starts = starts,
        .prefix_lengths = lengths, .names_others = 0, .viewer = 0, .daemon = 0, .runtime_opening = 0};
    const size_t capacity = n * (96 + MOTION_FRAME_UPDATE_ROOM);
    uint8_t *out = malloc(capacity);
    double *times = malloc(sizeof(double) * ticks);
    size_t bytes = 0;
    for (int t = 0; t < ticks; t++) {
        for (size_t i = 0; i < n; i++) {
            const double phase = 0.01 * (double)t + 1e-4 * (double)i;
            double *slot = slots + i * 8;
            slot[0] = 1000 * sin(phase), slot[1] = 750 * cos(phase), slot[2] = slot[3] = 0;
            slot[4] = 12000 * cos(phase), slot[5] = -9000 * sin(phase), slot[6] = slot[7] = 0;
        }
        size_t used = 0, done = 0;
        int first = 1;
        const double start = now_ns();
        while (done < n) {
            done += motion_frame_write_updates(&source, handles + done, n - done, out, capacity, &used, &first);
            if (done < n) { /* a number outside the fixed format: not in this data */
                fprintf(stderr, "encode: stopped at update %zu\n", done);
                return 1;
            }
        }
        times[t] = now_ns() - start;
        bytes = used;
    }
    qsort(times, ticks, sizeof(double), compare_doubles);
    printf("{\"updates\":%zu,\"bytesPerUpdate\":%.1f,\"nsPerUpdate\":%.2f}\n", n, (double)bytes / n, times[ticks / 2] / n);
    return 0;
}
