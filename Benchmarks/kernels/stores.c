/* The floor of the engine's "every value written" row: what storing one 64-byte slot per property costs
 * with nothing else to do, as the host's property store lays them out (value then velocity, 4 components
 * each). MODE stream: non-temporal stores of whole lines (what motion_store_write does past 131,072
 * properties); plain: ordinary stores; half: non-temporal stores of the first 32 bytes of each line only;
 * packed: 32 bytes per property, lines full (a 2-D value and velocity in a 32-byte slot).
 *
 *   clang -O2 -march=native -o /tmp/stores Benchmarks/kernels/stores.c && /tmp/stores PROPERTIES MODE
 * prints nanoseconds per property (best of 200 passes). */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../baselines/bench_time.h"

int main(int argc, char **argv) {
    const long n = argc > 1 ? atol(argv[1]) : 250000;
    const char *mode = argc > 2 ? argv[2] : "stream";
    double *slots = aligned_alloc(64, (size_t)n * 64);
    memset(slots, 0, (size_t)n * 64);
    double best = 1e300;
    for (int pass = 0; pass < 200; pass++) {
        const __m256d v = _mm256_set1_pd(pass);
        const double start = now_ns();
        if (strcmp(mode, "plain") == 0) {
            for (long i = 0; i < n; i++) { _mm256_store_pd(slots + i * 8, v); _mm256_store_pd(slots + i * 8 + 4, v); }
        } else if (strcmp(mode, "half") == 0) {
            for (long i = 0; i < n; i++) _mm256_stream_pd(slots + i * 8, v);
        } else if (strcmp(mode, "packed") == 0) {
            for (long i = 0; i < n; i++) _mm256_stream_pd(slots + i * 4, v);
        } else {
            for (long i = 0; i < n; i++) { _mm256_stream_pd(slots + i * 8, v); _mm256_stream_pd(slots + i * 8 + 4, v); }
        }
        _mm_sfence();
        const double elapsed = now_ns() - start;
        if (elapsed < best) best = elapsed;
    }
    printf("{\"properties\":%ld,\"mode\":\"%s\",\"nsPerProperty\":%.3f,\"check\":%g}\n", n, mode, best / n, slots[n * 2]);
    return 0;
}
