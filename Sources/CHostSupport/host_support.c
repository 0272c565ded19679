#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host_support.h"

size_t motion_heap_in_use(void) { return mallinfo2().uordblks; }

int motion_malloc_disable_fast_bins(void) { return mallopt(M_MXFAST, 0); }

/* malloc_trim holds each arena's lock while it works. A trimming thread at SCHED_OTHER that a busy
 * machine preempts holds the realtime engine thread's next allocation behind it: a priority inversion
 * (a `plan.add` of one spring took 20–60 ms under Benchmarks/isolation's `churn` with a CPU-bound process
 * beside the daemon). While threads run at realtime, the trim runs at realtime too, just below the
 * engine thread, and goes back after. */
int motion_malloc_trim(void) {
    int policy = sched_getscheduler(0), raised = 0;
    struct sched_param previous = {0};
    if (policy >= 0 && sched_getparam(0, &previous) == 0 && motion_realtime_active()) {
        struct sched_param parameters = {.sched_priority = 19};
        raised = sched_setscheduler(0, SCHED_FIFO | 0x40000000 /* SCHED_RESET_ON_FORK */, &parameters) == 0;
    }
    int result = malloc_trim(0);
    /* Back with SCHED_RESET_ON_FORK kept: without CAP_SYS_NICE the kernel refuses to clear it, and the
     * pool thread would stay at realtime. If even that fails, at least not at realtime. */
    if (raised && sched_setscheduler(0, policy | 0x40000000, &previous) != 0) {
        struct sched_param other = {0};
        sched_setscheduler(0, SCHED_OTHER | 0x40000000, &other);
    }
    return result;
}

int motion_thread_usage(motion_thread_usage_t *out) {
    struct rusage usage;
    if (getrusage(RUSAGE_THREAD, &usage) != 0) return -1;
    out->cpu_ns = ((uint64_t)usage.ru_utime.tv_sec + (uint64_t)usage.ru_stime.tv_sec) * 1000000000u +
                  ((uint64_t)usage.ru_utime.tv_usec + (uint64_t)usage.ru_stime.tv_usec) * 1000u;
    out->voluntary = usage.ru_nvcsw;
    out->involuntary = usage.ru_nivcsw;
    return 0;
}

int motion_memory_file(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

int motion_thread_set_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER1); glibc 2.36 has no wrapper for the call. */
struct motion_sched_attr {
    uint32_t size;
    uint32_t sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime;
    uint64_t sched_deadline;
    uint64_t sched_period;
    uint32_t sched_util_min;
    uint32_t sched_util_max;
};

int motion_thread_request_slice(unsigned long long nanoseconds) {
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
    if (nice == -1 && errno != 0) return -1;
    struct motion_sched_attr attr = {
        .size = sizeof attr, .sched_policy = SCHED_OTHER, .sched_nice = nice, .sched_runtime = nanoseconds};
    return (int)syscall(SYS_sched_setattr, 0, &attr, 0);
}
