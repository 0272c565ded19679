/* The engine thread and the frame writers at realtime priority (docs/operations.md#realtime-priority), with
 * RLIMIT_RTTIME as the safety net: a thread that runs `soft` µs at realtime without blocking gets SIGXCPU,
 * whose handler puts it back to SCHED_OTHER (a runaway plugin cannot lock a core; the hang watch then does
 * the rest). */
#define _GNU_SOURCE
#include "host_support.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

/* The threads that asked (0: a free slot), whether the handler demoted them since the watch last looked,
 * and whether they are at realtime now (set by a granted request, cleared by the handler). */
#define REALTIME_THREADS 64
static atomic_int realtime_tids[REALTIME_THREADS];
static atomic_int realtime_demoted = 0;
static atomic_int realtime_promoted = 0;
/* The handler writes a byte here (write is async-signal-safe): the watch sleeps in read until then. */
static int demotion_pipe[2] = {-1, -1};
static pthread_once_t demotion_pipe_once = PTHREAD_ONCE_INIT;

static void open_demotion_pipe(void) {
    if (pipe2(demotion_pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
        /* The reading end blocks; the writing end never does (a full pipe already says "demoted"). */
        fcntl(demotion_pipe[0], F_SETFL, fcntl(demotion_pipe[0], F_GETFL) & ~O_NONBLOCK);
    }
}

static void demote(int tid) {
    struct sched_param parameters = {.sched_priority = 0};
    syscall(SYS_sched_setscheduler, tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &parameters);
    atomic_store(&realtime_promoted, 0);
    atomic_store(&realtime_demoted, 1);
}

/* The kernel sends RLIMIT_RTTIME's SIGXCPU to the process, and it may be handled on any thread (one that
 * blocks it passes it on): which thread ran too long is not known here, so every realtime thread goes
 * back to SCHED_OTHER, and the watch asks again for all of them later. */
static void on_cpu_limit(int signal) {
    (void)signal;
    int saved = errno;
    for (int slot = 0; slot < REALTIME_THREADS; slot++) {
        int tid = atomic_load(&realtime_tids[slot]);
        if (tid > 0) demote(tid);
    }
    if (atomic_load(&realtime_demoted) != 0 && demotion_pipe[1] >= 0) {
        char byte = 'd';
        ssize_t written = write(demotion_pipe[1], &byte, 1);
        (void)written;
    }
    errno = saved;
}

int motion_realtime_request(int priority, unsigned long soft_us, unsigned long hard_us) {
    pthread_once(&demotion_pipe_once, open_demotion_pipe);
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
    /* Registered before it is raised (a SIGXCPU in between finds it), and only if there is room: a
     * realtime thread the handler cannot find would run into the hard limit's SIGKILL. */
    int self = (int)syscall(SYS_gettid), slot = -1, added = 0;
    for (int index = 0; index < REALTIME_THREADS && slot < 0; index++) {
        if (atomic_load(&realtime_tids[index]) == self) slot = index;
    }
    for (int index = 0; index < REALTIME_THREADS && slot < 0; index++) {
        int free = 0;
        if (atomic_compare_exchange_strong(&realtime_tids[index], &free, self)) slot = index, added = 1;
    }
    if (slot < 0) return ENOSPC;
    struct sched_param parameters = {.sched_priority = priority};
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &parameters) != 0) {
        int error = errno;
        if (added) atomic_store(&realtime_tids[slot], 0);
        return error;
    }
    atomic_store(&realtime_promoted, 1);
    return 0;
}

int motion_realtime_active(void) {
    return atomic_load(&realtime_promoted);
}

int motion_realtime_demoted(void) {
    return atomic_exchange(&realtime_demoted, 0);
}

int motion_realtime_wait(void) {
    pthread_once(&demotion_pipe_once, open_demotion_pipe);
    if (demotion_pipe[0] < 0) return -1;
    char byte = 0;
    for (;;) {
        ssize_t got = read(demotion_pipe[0], &byte, 1);
        if (got == 1) return byte == 'd' ? 1 : 0;
        if (got < 0 && errno == EINTR) continue;
        return -1;
    }
}

void motion_realtime_wake(void) {
    pthread_once(&demotion_pipe_once, open_demotion_pipe);
    if (demotion_pipe[1] < 0) return;
    char byte = 's';
    ssize_t written = write(demotion_pipe[1], &byte, 1);
    (void)written;
}

long motion_rlimit_rtprio(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_RTPRIO, &limit) != 0) return -1;
    return limit.rlim_cur == RLIM_INFINITY ? 99 : (long)limit.rlim_cur;
}
