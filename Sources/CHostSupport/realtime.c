/* The engine thread at realtime priority (docs/operations.md#realtime-priority), with RLIMIT_RTTIME as the
 * safety net: a thread that runs `soft` µs at realtime without blocking gets SIGXCPU, whose handler puts it
 * back to SCHED_OTHER (a runaway plugin cannot lock a core; the hang watch then does the rest). */
#define _GNU_SOURCE
#include "host_support.h"
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static atomic_int realtime_tid = 0;
static atomic_int realtime_demoted = 0;

static void on_cpu_limit(int signal) {
    (void)signal;
    int saved = errno;
    int tid = atomic_load(&realtime_tid);
    if (tid > 0) {
        struct sched_param parameters = {.sched_priority = 0};
        syscall(SYS_sched_setscheduler, tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &parameters);
        atomic_store(&realtime_demoted, 1);
    }
    errno = saved;
}

int motion_realtime_request(int priority, unsigned long soft_us, unsigned long hard_us) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_cpu_limit;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGXCPU, &action, NULL) != 0) return errno;
    /* The limit first: never realtime without the net. Lowered only (a hard limit above today's would
     * need privilege). */
    struct rlimit current, wanted = {.rlim_cur = soft_us, .rlim_max = hard_us};
    if (getrlimit(RLIMIT_RTTIME, &current) == 0 && current.rlim_max != RLIM_INFINITY && current.rlim_max < wanted.rlim_max) {
        wanted.rlim_max = current.rlim_max;
        /* Below the hard limit, so that SIGXCPU (the demotion) comes before the hard limit's SIGKILL. */
        if (wanted.rlim_cur >= wanted.rlim_max) wanted.rlim_cur = wanted.rlim_max / 2;
    }
    if (setrlimit(RLIMIT_RTTIME, &wanted) != 0) return errno;
    struct sched_param parameters = {.sched_priority = priority};
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &parameters) != 0) return errno;
    atomic_store(&realtime_demoted, 0);
    atomic_store(&realtime_tid, (int)syscall(SYS_gettid));
    return 0;
}

int motion_realtime_demoted(void) {
    return atomic_exchange(&realtime_demoted, 0);
}

long motion_rlimit_rtprio(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_RTPRIO, &limit) != 0) return -1;
    return limit.rlim_cur == RLIM_INFINITY ? 99 : (long)limit.rlim_cur;
}
