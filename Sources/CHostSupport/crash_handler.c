#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "host_support.h"

static int record_fd = -1;
static const void *const *marker_slots;
static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static struct sigaction previous[sizeof signals / sizeof signals[0]];

static void write_all(const char *text, size_t length) {
    while (length > 0) {
        ssize_t written = write(record_fd, text, length);
        if (written <= 0) return;
        text += written;
        length -= (size_t)written;
    }
}

static void write_string(const char *text) { write_all(text, strlen(text)); }

static void on_crash(int signal, siginfo_t *info, void *context) {
    const char *label = marker_slots != NULL ? (const char *)marker_slots[0] : NULL;
    const char *function = marker_slots != NULL ? (const char *)marker_slots[1] : NULL;
    if (label != NULL && record_fd >= 0) {
        char number[16];
        size_t digits = 0;
        char reversed[16];
        int value = signal;
        do {
            reversed[digits++] = (char)('0' + value % 10);
            value /= 10;
        } while (value > 0 && digits < sizeof reversed);
        for (size_t i = 0; i < digits; i++) number[i] = reversed[digits - 1 - i];
        write_string(label);
        write_all("\n", 1);
        write_string(function != NULL ? function : "?");
        write_all("\n", 1);
        write_all(number, digits);
        write_all("\n", 1);
        fsync(record_fd);
    }
    /* A crash inside a plugin dies at once (the plugin is named in the record); any other crash goes to
     * the handler that was there before (Swift's backtracer prints where the daemon itself failed). */
    for (size_t i = 0; label == NULL && i < sizeof signals / sizeof signals[0]; i++) {
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
