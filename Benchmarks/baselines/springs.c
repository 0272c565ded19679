/* The physical limit for the engine's springs: N springs of D components in structure-of-arrays layout,
 * advanced the way motiond's Simulation does it (classic RK4 at a fixed 8 ms step, interpolated to the
 * frame time), with nothing else: no performers, no property store, no frames.
 *
 *   clang -O3 -march=native -o springs springs.c && ./springs N D TICKS [HZ]
 * prints one JSON object: nanoseconds per spring per 120 Hz tick (median of the ticks). Ticks run back to
 * back, or with HZ paced as the daemon's clock paces its own: each starts at an absolute deadline
 * (clock_nanosleep), so the arrays have sat idle for the rest of the interval, as the daemon's lanes have.
 * The daemon's `status.tick` is compared with the paced loop (BENCHMARKS.md: on some machines a tick that
 * follows 7 ms of idleness costs 1.7× one that follows another tick, in C as in the daemon). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <errno.h>

#include "bench_time.h"

int main(int argc, char **argv) {
    const long n = argc > 1 ? atol(argv[1]) : 100000;
    const int d = argc > 2 ? atoi(argv[2]) : 2;
    const int ticks = argc > 3 ? atoi(argv[3]) : 200;
    const double hz = argc > 4 ? atof(argv[4]) : 0;
    const long count = n * d;
    const double h = 0.008, k = 120, c = 0.05, frame = 1.0 / 120;
    double *x = malloc(sizeof(double) * count), *v = malloc(sizeof(double) * count);
    double *px = malloc(sizeof(double) * count), *pv = malloc(sizeof(double) * count);
    double *target = malloc(sizeof(double) * count), *shown = malloc(sizeof(double) * count);
    double *times = malloc(sizeof(double) * ticks);
    for (long i = 0; i < count; i++) { x[i] = 0; v[i] = 0; px[i] = 0; pv[i] = 0; target[i] = 1000 + i % 7; }
    double accumulator = 0;
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
        accumulator += frame;
        while (accumulator > 0) {
            for (long i = 0; i < count; i++) {
                double xi = x[i], vi = v[i], ti = target[i];
                px[i] = xi; pv[i] = vi;
                double k1x = vi, k1v = -k * (xi - ti) - c * vi;
                double k2x = vi + k1v * h / 2, k2v = -k * (xi + k1x * h / 2 - ti) - c * (vi + k1v * h / 2);
                double k3x = vi + k2v * h / 2, k3v = -k * (xi + k2x * h / 2 - ti) - c * (vi + k2v * h / 2);
                double k4x = vi + k3v * h, k4v = -k * (xi + k3x * h - ti) - c * (vi + k3v * h);
                x[i] = xi + (k1x + 2 * k2x + 2 * k3x + k4x) * h / 6;
                v[i] = vi + (k1v + 2 * k2v + 2 * k3v + k4v) * h / 6;
            }
            accumulator -= h;
        }
        double alpha = (h + accumulator) / h;
        for (long i = 0; i < count; i++) shown[i] = px[i] + (x[i] - px[i]) * alpha;
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
