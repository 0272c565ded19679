/* Small libc facts and services Swift cannot reach or must not do itself. */
#ifndef MOTION_HOST_SUPPORT_H
#define MOTION_HOST_SUPPORT_H
#include <stddef.h>
#include <stdint.h>

/** Bytes of heap in use by malloc (mallinfo2's uordblks): `motiond --validate` watches it grow. */
size_t motion_heap_in_use(void);

/** mallopt(M_MXFAST, 0): no fastbins, so freed small chunks merge when freed, not all at once later
 *  (`MallocTuning`). 1 on success. */
int motion_malloc_disable_fast_bins(void);

/** malloc_trim(0): free memory at the top of every arena and unused whole pages inside them go back to
 *  the system (`MallocTuning.returnFreedMemorySoon`). 1 if some was returned. While threads run at
 *  realtime, at SCHED_FIFO 19 for its duration (it holds the arenas' locks). */
int motion_malloc_trim(void);

/** The calling thread's CPU time and context switches so far (getrusage RUSAGE_THREAD): voluntary ones
 *  (it blocked: a sleep, I/O) and involuntary ones (it was preempted). Tells a slow plugin call from a
 *  busy machine. 0, or -1 on failure. */
typedef struct motion_thread_usage_t {
    uint64_t cpu_ns;
    long voluntary;
    long involuntary;
} motion_thread_usage_t;
int motion_thread_usage(motion_thread_usage_t *out);

/**
 * Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT that, when the engine thread was
 * inside a plugin, write "label\nfunction\nsignal\nseconds\n" (label is "file\nhash"; seconds since
 * the epoch) to `fd`, fsync it, say so in one line on stderr (journal-prefixed when JOURNAL_STREAM was
 * set at install) and die by the signal, using only async-signal-safe calls; a crash outside a plugin
 * goes to the handler that was there before (or the default action). `marker` points at two pointers:
 * the label and the function name (NULL when no plugin is being called). Returns 0, or -1 if a handler
 * could not be installed.
 */
int motion_crash_handler_install(int fd, const void *const *marker);

/** After `motion_crash_handler_install`: a thread that ends the process when one plugin call (the
 *  marker's call count unchanged) has lasted `seconds`, recording it like a crash with signal 0 ("hung").
 *  The marker holds two triples (label, function, count): the engine thread's calls, then the loader's
 *  (`dlopen` of an image and its constructors, off the engine thread). 0, or -1 when it could not start. */
int motion_hang_watch_start(unsigned seconds);

/**
 * Names the calling thread as the one that calls plugins (an abort raised on another thread is not a
 * plugin's crash; a signal another process sends never is) and gives it an alternate signal stack, so
 * the handler runs even when a plugin overflowed the thread's stack. Returns 0, or -1.
 */
int motion_crash_handler_engine_thread(void);

/** `begins` 1: names the calling thread as the one about to map a plugin's image (before the marker's
 *  loader triple is set), with an alternate signal stack, so a fault there (a constructor's) is recorded
 *  against that plugin like a call's; 0: after the image is mapped and the triple cleared. */
void motion_crash_handler_loading(int begins);

/**
 * An anonymous in-memory file (memfd_create, close-on-exec) named `name`, or -1 with errno set: a plugin
 * image motiond can dlopen as /proc/self/fd/N when no filesystem has room for a private copy.
 */
int motion_memory_file(const char *name);

/** The socket's SO_COOKIE (a number unique to it while the system runs), or 0. */
unsigned long long motion_socket_cookie(int fd);

/**
 * This process's descriptor of the socket whose SO_COOKIE is `cookie` (a scan of /proc/self/fd), or -1.
 * The caller makes sure that socket cannot be closed meanwhile (it runs on the socket's event loop).
 */
int motion_socket_with_cookie(unsigned long long cookie);

/**
 * sendmsg of `length` bytes with `descriptor` attached (SCM_RIGHTS), without blocking or SIGPIPE.
 * Returns the bytes sent (the descriptor went with the first), or -1 with errno (EAGAIN: nothing sent).
 */
long motion_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor);

/** Names the calling thread for the kernel (its comm: top -H, perf, /proc): at most 15 bytes. */
int motion_thread_set_name(const char *name);

/**
 * Asks the scheduler for a time slice of `nanoseconds` for the calling thread (sched_setattr with
 * SCHED_OTHER at its current nice value and `sched_runtime`, Linux 6.12+ EEVDF): a thread that runs
 * briefly and often gets an earlier deadline, so it runs sooner after it wakes when the CPUs are busy.
 * Needs no privilege. Returns 0, or -1 with errno (EINVAL on older kernels, EPERM under a filter).
 */
int motion_thread_request_slice(unsigned long long nanoseconds);


/**
 * Puts the calling thread at SCHED_FIFO `priority` (with SCHED_RESET_ON_FORK: children start at
 * SCHED_OTHER), after setting RLIMIT_RTTIME to `soft_us`/`hard_us` µs and a SIGXCPU handler that puts the
 * thread back to SCHED_OTHER when it ran `soft_us` at realtime without blocking. 0, or the errno of the
 * step that failed (EPERM: no RLIMIT_RTPRIO or CAP_SYS_NICE; ENOSPC: 64 threads asked already).
 */
int motion_realtime_request(int priority, unsigned long soft_us, unsigned long hard_us);


/** 1 while threads of this process are at realtime priority (granted, not demoted since). */
int motion_realtime_active(void);

/** 1 once if the SIGXCPU handler has put the realtime threads back to SCHED_OTHER since the last call. */
int motion_realtime_demoted(void);

/** Blocks until the SIGXCPU handler demotes the realtime thread (1) or `motion_realtime_wake` is called (0);
 * -1 if there is no pipe to wait on. For one waiting thread. */
int motion_realtime_wait(void);

/** Wakes `motion_realtime_wait` with 0 (the watch is stopping). */
void motion_realtime_wake(void);

/** RLIMIT_RTPRIO's soft limit (99 when unlimited), or -1. */
long motion_rlimit_rtprio(void);

#endif
