/* The physical limit for a shared-memory frame reader: one thread writes N slots of motion_frames.h's
 * 80-byte layout per frame, each under its seqlock (as motion_frames_writer_put does), at 120 Hz; another
 * thread, on the other core, copies every slot the moment the frame is published, checking each seqlock
 * (as motion_frames_reader_read does, without its change list, names or bounds checks). What is left is
 * moving freshly written lines from one core to the other.
 *
 *   clang -O3 -march=native -pthread -o slots slots.c && ./slots N FRAMES
 * prints one JSON object: nanoseconds per slot read, and per slot written (medians of the frames). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_time.h"

typedef struct slot {
    uint32_t sequence, tag, components, reserved;
    double value[4], velocity[4];
} slot; /* 80 bytes, as motion_frames_slot */

static slot *slots;
static slot *copies;
static long count;
static int frames;
static uint64_t published; /* [atomic] the frame last written */
static int done;          /* [atomic] the reader has its frames */
static double *times;
static double *write_times; /* the writer's, per frame (its first `frames`) */

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *writer(void *unused) {
    (void)unused;
    pin(0);
    int timed = 0;
    for (uint64_t frame = 1; !__atomic_load_n(&done, __ATOMIC_ACQUIRE); frame++) {
        const double start = now_ns();
        for (long i = 0; i < count; i++) {
            slot *s = &slots[i];
            const uint32_t sequence = __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) | 1u;
            __atomic_store_n(&s->sequence, sequence, __ATOMIC_RELAXED);
            __atomic_thread_fence(__ATOMIC_RELEASE);
            s->tag = 1;
            s->components = 2;
            s->value[0] = (double)frame + i;
            s->value[1] = (double)frame - i;
            s->value[2] = s->value[3] = 0;
            s->velocity[0] = 1;
            s->velocity[1] = -1;
            s->velocity[2] = s->velocity[3] = 0;
            __atomic_store_n(&s->sequence, sequence + 1, __ATOMIC_RELEASE);
        }
        if (timed < frames) write_times[timed++] = (now_ns() - start) / count;
        __atomic_store_n(&published, frame, __ATOMIC_RELEASE);
        /* Then wait out the rest of the 120 Hz interval, as the daemon's clock does. */
        while (now_ns() - start < 1e9 / 120) {
        }
    }
    return NULL;
}

static void *reader(void *unused) {
    (void)unused;
    pin(1);
    uint64_t seen = 0;
    for (int frame = 0; frame <= frames; frame++) {
        uint64_t newest;
        while ((newest = __atomic_load_n(&published, __ATOMIC_ACQUIRE)) == seen) {
        }
        seen = newest;
        const double start = now_ns();
        for (long i = 0; i < count; i++) {
            const slot *s = &slots[i];
            slot *out = &copies[i];
            for (;;) {
                const uint32_t before = __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
                if (before & 1u) continue;
                memcpy(out, s, sizeof *out);
                __atomic_thread_fence(__ATOMIC_ACQUIRE);
                if (__atomic_load_n(&s->sequence, __ATOMIC_RELAXED) == before) break;
            }
        }
        /* The first frame warms up the mappings. */
        if (frame > 0) times[frame - 1] = (now_ns() - start) / count;
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    return NULL;
}

int main(int argc, char **argv) {
    count = argc > 1 ? atol(argv[1]) : 40000;
    frames = argc > 2 ? atoi(argv[2]) : 240;
    slots = aligned_alloc(64, sizeof(slot) * count);
    copies = aligned_alloc(64, sizeof(slot) * count);
    times = malloc(sizeof(double) * frames);
    write_times = malloc(sizeof(double) * frames);
    memset(slots, 0, sizeof(slot) * count);
    memset(copies, 0, sizeof(slot) * count);
    pthread_t threads[2];
    pthread_create(&threads[1], NULL, reader, NULL);
    pthread_create(&threads[0], NULL, writer, NULL);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    qsort(times, frames, sizeof(double), compare_doubles);
    qsort(write_times, frames, sizeof(double), compare_doubles);
    double checksum = 0;
    for (long i = 0; i < count; i += 997) checksum += copies[i].value[0];
    printf("{\"slots\":%ld,\"frames\":%d,\"nsPerSlotRead\":%.3f,\"nsPerSlotWritten\":%.3f,\"checksum\":%.1f}\n", count,
           frames, times[frames / 2], write_times[frames / 2], checksum);
    return 0;
}
