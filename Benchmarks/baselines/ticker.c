/* The floor for tick lateness: a loop that sleeps to absolute 120 Hz deadlines with clock_nanosleep
 * (as motiond's frame clock does) and records how late each wake-up is.
 *
 *   clang -O3 -o ticker ticker.c && ./ticker HZ SECONDS
 * prints one JSON object: lateness p50 / p99 / max in milliseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_time.h"

int main(int argc, char **argv) {
    const double hz = argc > 1 ? atof(argv[1]) : 120;
    const double seconds = argc > 2 ? atof(argv[2]) : 5;
    const long ticks = (long)(hz * seconds);
    const long period = (long)(1e9 / hz);
    double *late = malloc(sizeof(double) * ticks);
    struct timespec deadline, woke;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    for (long i = 0; i < ticks; i++) {
        deadline.tv_nsec += period;
        while (deadline.tv_nsec >= 1000000000L) { deadline.tv_nsec -= 1000000000L; deadline.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
        clock_gettime(CLOCK_MONOTONIC, &woke);
        late[i] = ((woke.tv_sec - deadline.tv_sec) * 1e9 + (woke.tv_nsec - deadline.tv_nsec)) / 1e6;
    }
    qsort(late, ticks, sizeof(double), compare_doubles);
    printf("{\"hz\":%.0f,\"ticks\":%ld,\"lateP50Ms\":%.4f,\"lateP99Ms\":%.4f,\"lateMaxMs\":%.4f}\n",
           hz, ticks, late[ticks / 2], late[ticks * 99 / 100], late[ticks - 1]);
    return 0;
}
