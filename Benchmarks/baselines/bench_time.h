/* What the C benchmarks share: a monotonic clock in nanoseconds and a comparison for qsort of doubles. */
#ifndef MOTION_BENCH_TIME_H
#define MOTION_BENCH_TIME_H
#include <time.h>

static inline double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static inline int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
