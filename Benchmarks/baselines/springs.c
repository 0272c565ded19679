/* The physical limit for the engine's springs: N springs of D components in structure-of-arrays layout,
 * evaluated the way motiond's lanes do it (docs/vocabulary.md#exact-motion: the closed form over each
 * tick's time, one 2x2 matrix computed once per tick for springs that share their physics, as a UI's and
 * this benchmark's do), with nothing else: no performers, no property store, no frames.
 *
 *   clang -O3 -march=native -o springs springs.c -lm && ./springs N D TICKS [HZ]
 * prints one JSON object: nanoseconds per spring per 120 Hz tick (median of the ticks). Ticks run back to
 * back, or with HZ paced as the daemon's clock paces its own: each starts at an absolute deadline
 * (clock_nanosleep), so the arrays have sat idle for the rest of the interval, as the daemon's lanes have.
 * The daemon's `status.tick` is compared with the paced loop (BENCHMARKS.md: on some machines a tick that
 * follows 7 ms of idleness costs 1.7x one that follows another tick, in C as in the daemon). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <errno.h>
#include <math.h>

#include "bench_time.h"

int main(int argc, char **argv) {
    const long n = argc > 1 ? atol(argv[1]) : 100000;
    const int d = argc > 2 ? atoi(argv[2]) : 2;
    const int ticks = argc > 3 ? atoi(argv[3]) : 200;
    const double hz = argc > 4 ? atof(argv[4]) : 0;
    const long count = n * d;
    const double k = 120, c = 0.05, frame = 1.0 / 120;
    double *x = malloc(sizeof(double) * count), *v = malloc(sizeof(double) * count);
    double *target = malloc(sizeof(double) * count), *shown = malloc(sizeof(double) * count);
    double *times = malloc(sizeof(double) * ticks);
    for (long i = 0; i < count; i++) { target[i] = 1000 + i % 7; x[i] = -target[i]; v[i] = 0; }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    for (int t = 0; t < ticks; t++) {
        if (hz > 0) {
            long interval = (long)(1e9 / hz);
            deadline.tv_nsec += interval;
            while (deadline.tv_nsec >= 1000000000L) { deadline.tv_nsec -= 1000000000L; deadline.tv_sec++; }
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR) {}
        }
        double start = now_ns();
        /* The transition over this tick (underdamped, as k and c here are), with libm. */
        const double alpha = c / 2, omega = sqrt(k - alpha * alpha), decay = exp(-alpha * frame);
        const double C = decay * cos(omega * frame), S = decay * sin(omega * frame) / omega;
        const double m11 = C + alpha * S, m12 = S, m21 = -k * S, m22 = C - alpha * S;
        for (long i = 0; i < count; i++) {
            const double xi = x[i], vi = v[i];
            x[i] = m11 * xi + m12 * vi;
            v[i] = m21 * xi + m22 * vi;
            shown[i] = target[i] + x[i];
        }
        times[t] = now_ns() - start;
    }
    qsort(times, ticks, sizeof(double), compare_doubles);
    double checksum = 0;
    for (long i = 0; i < count; i += 997) checksum += shown[i];
    printf("{\"springs\":%ld,\"dimensions\":%d,\"ticks\":%d,\"pacedHz\":%g,\"tickMedianMs\":%.4f,\"tickP99Ms\":%.4f,"
           "\"nsPerSpringPerTick\":%.3f,\"checksum\":%.3f}\n",
           n, d, ticks, hz, times[ticks / 2] / 1e6, times[ticks * 99 / 100] / 1e6, times[ticks / 2] / n, checksum);
    return 0;
}
