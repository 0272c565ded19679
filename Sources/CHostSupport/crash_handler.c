#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host_support.h"

static int record_fd = -1;
/* "<2>" when stderr is the journal's (JOURNAL_STREAM set at install): the line is logged as critical. */
static int journal_prefix;
static const void *const *marker_slots;
static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
/* The thread that calls plugins (0: not named yet, any thread counts). */
static volatile long engine_thread;
/* The thread mapping a plugin's image (`dlopen`, its constructors run in it) while the loader's mark is set. */
static volatile long loader_thread;
static struct sigaction previous[sizeof signals / sizeof signals[0]];

static void write_to(int fd, const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void write_all(const char *text, size_t length) { write_to(record_fd, text, length); }

static void write_string(const char *text) { write_all(text, strlen(text)); }

/* `value` in decimal into `out` (room for 20 digits); returns the number of digits. */
static size_t decimal(unsigned long long value, char *out) {
    char reversed[20];
    size_t digits = 0;
    do {
        reversed[digits++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && digits < sizeof reversed);
    for (size_t i = 0; i < digits; i++) out[i] = reversed[digits - 1 - i];
    return digits;
}

/* The record the next start quarantines from: label, function, signal (0: hung) and when it happened
 * (clock_gettime is async-signal-safe: the quarantine's time is the crash's). Nothing without a record. */
static void record(const char *label, const char *function, const char *number, size_t digits) {
    if (record_fd < 0) return;
    char seconds[20];
    struct timespec now;
    const size_t second_digits = clock_gettime(CLOCK_REALTIME, &now) == 0 ? decimal((unsigned long long)now.tv_sec, seconds) : 0;
    write_string(label);
    write_all("\n", 1);
    write_string(function != NULL ? function : "?");
    write_all("\n", 1);
    write_all(number, digits);
    write_all("\n", 1);
    write_all(seconds, second_digits);
    write_all("\n", 1);
    fsync(record_fd);
}

/* One line on stderr, so the log says why the daemon is gone (the next start says the rest). */
static void say(const char *label, const char *function, const char *number, size_t digits) {
    if (journal_prefix) write_to(2, "<2>", 3);
    static const char opening[] = "motiond: killed by signal ";
    write_to(2, opening, sizeof opening - 1);
    write_to(2, number, digits);
    static const char inside[] = " inside a plugin's ";
    write_to(2, inside, sizeof inside - 1);
    write_to(2, function != NULL ? function : "?", function != NULL ? strlen(function) : 1);
    write_to(2, ": ", 2);
    const char *end = strchr(label, '\n');
    write_to(2, label, end != NULL ? (size_t)(end - label) : strlen(label));
    static const char recorded[] = " (recorded: it is quarantined at the next start)\n";
    static const char unrecorded[] = " (not recorded: no state directory)\n";
    if (record_fd >= 0) write_to(2, recorded, sizeof recorded - 1);
    else write_to(2, unrecorded, sizeof unrecorded - 1);
}

/* A fault the plugin caused while it was called: one the kernel raised (si_code > 0), on any thread (a
 * plugin may crash on a thread of its own), or one the process raised itself (abort, raise) on the thread
 * that calls plugins; never a signal another process sent. */
static int caused_by_plugin(siginfo_t *info) {
    if (info == NULL || info->si_code > 0) return 1;
    if ((info->si_code != SI_TKILL && info->si_code != SI_USER) || info->si_pid != getpid()) return 0;
    return engine_thread == 0 || syscall(SYS_gettid) == engine_thread;
}

/* Marks every descriptor past stderr close-on-exec (close_range, Linux 5.11+; else one fcntl each, both
 * async-signal-safe): the handler chained to below (Swift's backtracer) spawns a child, and a child that
 * inherited the clients' sockets kept them open while it ran — the clients saw no end, and a restart could
 * not take the socket for minutes (docs/threat_model.md). Nothing is closed: the backtracer still reads
 * the process. */
static void no_descriptor_outlives_the_crash(void) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0) return;
#endif
    for (int fd = 3; fd < 65536; fd++) {
        const int flags = fcntl(fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

/* A fault on the thread mapping a plugin's image while the loader's mark is set: its constructors (a
 * signal another process sends never is). */
static int caused_by_loader(siginfo_t *info) {
    if (marker_slots == NULL || marker_slots[3] == NULL || loader_thread == 0 || syscall(SYS_gettid) != loader_thread) return 0;
    if (info == NULL || info->si_code > 0) return 1;
    return (info->si_code == SI_TKILL || info->si_code == SI_USER) && info->si_pid == getpid();
}

static void on_crash(int signal, siginfo_t *info, void *context) {
    no_descriptor_outlives_the_crash();
    /* The loader's mark first: it is tied to the thread that maps the image. A constructor that crashes
     * while the engine thread is inside another plugin's call (a hot swap maps images while ticks run) is
     * the constructor's plugin's, not the one the engine thread was calling. */
    const int loading = caused_by_loader(info);
    const int inside = !loading && marker_slots != NULL && caused_by_plugin(info);
    const char *label = loading ? (const char *)marker_slots[3] : inside ? (const char *)marker_slots[0] : NULL;
    const char *function = loading ? (const char *)marker_slots[4] : inside ? (const char *)marker_slots[1] : NULL;
    if (label != NULL) {
        char number[20];
        const size_t digits = decimal((unsigned long long)signal, number);
        record(label, function, number, digits);
        say(label, function, number, digits);
    }
    /* SIGABRT from another process is systemd's watchdog (WatchdogSec) or an operator asking for a core:
     * the default action at once. Swift's backtracer spent more than 15 s on it, holding the restart. */
    const int asked_to_abort = signal == SIGABRT && info != NULL && (info->si_code == SI_USER || info->si_code == SI_QUEUE)
                               && info->si_pid != getpid();
    /* A crash inside a plugin dies at once (the plugin is named in the record); any other crash goes to
     * the handler that was there before (Swift's backtracer prints where the daemon itself failed). */
    for (size_t i = 0; label == NULL && !asked_to_abort && i < sizeof signals / sizeof signals[0]; i++) {
        if (signals[i] != signal) continue;
        struct sigaction *old = &previous[i];
        if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != NULL) {
            sigaction(signal, old, NULL);
            old->sa_sigaction(signal, info, context);
            return;
        }
        if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler != NULL) {
            sigaction(signal, old, NULL);
            old->sa_handler(signal);
            return;
        }
    }
    /* The default action: die by this signal, as if nothing had been here. */
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, NULL);
    raise(signal);
}

int motion_crash_handler_install(int fd, const void *const *marker) {
    record_fd = fd;
    marker_slots = marker;
    journal_prefix = getenv("JOURNAL_STREAM") != NULL;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (sigaction(signals[i], &action, &previous[i]) != 0) return -1;
    }
    return 0;
}

/* A stack of its own for the handler on the calling thread, unless it has one: a plugin that overflows
 * the thread's stack is still recorded (without one the handler cannot run, and it crashes every start). */
static int alternate_stack(void) {
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return 0;
    const size_t size = 256 * 1024;
    char *alternate = malloc(size);  /* one per thread that asks; kept for the thread's life */
    if (alternate == NULL) return -1;
    stack_t stack;
    memset(&stack, 0, sizeof stack);
    stack.ss_sp = alternate;
    stack.ss_size = size;
    return sigaltstack(&stack, NULL);
}

void motion_crash_handler_loading(int begins) {
    if (begins) {
        alternate_stack();
        loader_thread = syscall(SYS_gettid);
    } else {
        loader_thread = 0;
    }
}

int motion_crash_handler_engine_thread(void) {
    engine_thread = syscall(SYS_gettid);
    return alternate_stack();
}

/* The hang watch (docs/operations.md#a-plugin-that-hangs): a thread of its own looks at the marker ten
 * times a second. One plugin call that has not returned after `hang_seconds` is recorded like a crash
 * (signal 0: "hung"), said on stderr, and the process ends at once: the plugin is quarantined at the next
 * start, as one that crashed, instead of holding the frame clock (and every restart's replay) for ever. */
static unsigned hang_seconds;

static void *watch_hangs(void *unused) {
    (void)unused;
    /* Two markers of three words: the engine thread's calls, then the loader's (`dlopen` of an image, its
     * constructors included, off the engine thread). */
    const volatile unsigned long *markers = (const volatile unsigned long *)marker_slots;
    unsigned long seen_label[2] = {0, 0}, seen_count[2] = {0, 0};
    struct timespec since[2] = {{0, 0}, {0, 0}}, now, tenth = {0, 100000000};
    for (;;) {
        nanosleep(&tenth, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        int hung = -1;
        for (int which = 0; which < 2; which++) {
            const volatile unsigned long *slots = markers + 3 * which;
            const unsigned long label = slots[0], count = slots[2];
            if (label == 0 || label != seen_label[which] || count != seen_count[which]) {
                seen_label[which] = label;
                seen_count[which] = count;
                since[which] = now;
            } else if (now.tv_sec - since[which].tv_sec >= (time_t)hang_seconds) {
                hung = which;
            }
        }
        if (hung < 0) continue;
        const volatile unsigned long *slots = markers + 3 * hung;
        const char *function = (const char *)slots[1];
        const unsigned long label = slots[0];
        record((const char *)label, function, "0", 1);
        if (journal_prefix) write_to(2, "<2>", 3);
        static const char opening[] = "motiond: a plugin's ";
        write_to(2, opening, sizeof opening - 1);
        write_to(2, function != NULL ? function : "?", function != NULL ? strlen(function) : 1);
        static const char middle[] = " has not returned for a while; ending motiond: ";
        write_to(2, middle, sizeof middle - 1);
        const char *text = (const char *)label, *end = strchr(text, '\n');
        write_to(2, text, end != NULL ? (size_t)(end - text) : strlen(text));
        static const char recorded[] = " (recorded: it is quarantined at the next start)\n";
        static const char unrecorded[] = " (not recorded: no state directory)\n";
        if (record_fd >= 0) write_to(2, recorded, sizeof recorded - 1);
        else write_to(2, unrecorded, sizeof unrecorded - 1);
        _exit(70); /* EX_SOFTWARE */
    }
    return NULL;
}

int motion_hang_watch_start(unsigned seconds) {
    if (marker_slots == NULL || seconds == 0) return -1;
    hang_seconds = seconds;
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    const int status = pthread_create(&thread, &attributes, watch_hangs, NULL);
    pthread_attr_destroy(&attributes);
    return status == 0 ? 0 : -1;
}
