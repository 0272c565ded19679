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

int motion_malloc_trim(void) { return malloc_trim(0); }

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
