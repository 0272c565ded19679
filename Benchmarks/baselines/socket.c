/* The limit for streaming frames: a C encoder formats frame lines of U updates (the daemon's JSON shape,
 * doubles with %.17g) and writes them over a Unix stream socket to a reader that discards them.
 *
 *   clang -O3 -o socket socket.c && ./socket UPDATES_PER_FRAME SECONDS
 * prints one JSON object: updates per second delivered, megabytes per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    const int updates = argc > 1 ? atoi(argv[1]) : 40000;
    const double seconds = argc > 2 ? atof(argv[2]) : 3;
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 1;
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        static char sink[1 << 20];
        while (read(fds[1], sink, sizeof sink) > 0) {}
        _exit(0);
    }
    close(fds[1]);
    size_t capacity = (size_t)updates * 200 + 256;
    char *line = malloc(capacity);
    long frames = 0, total_updates = 0;
    double bytes = 0, start = now(), value = 0.1;
    while (now() - start < seconds) {
        size_t n = (size_t)snprintf(line, capacity, "{\"event\":\"frame\",\"sub\":1,\"seq\":%ld,\"t\":%.6f,\"dropped\":0,\"updates\":[", frames + 1, now() - start);
        for (int i = 0; i < updates; i++) {
            value += 0.37;
            n += (size_t)snprintf(line + n, capacity - n,
                                  "%s{\"runtime\":\"default\",\"target\":\"s%d\",\"property\":\"position\",\"value\":[%.17g,%.17g],\"velocity\":[%.17g,%.17g]}",
                                  i ? "," : "", i, value, value * 0.5, -value, value * 2);
        }
        n += (size_t)snprintf(line + n, capacity - n, "]}\n");
        for (size_t written = 0; written < n;) {
            ssize_t w = write(fds[0], line + written, n - written);
            if (w <= 0) return 1;
            written += (size_t)w;
        }
        frames++;
        total_updates += updates;
        bytes += n;
    }
    double elapsed = now() - start;
    close(fds[0]);
    waitpid(child, NULL, 0);
    printf("{\"updatesPerFrame\":%d,\"frames\":%ld,\"updatesPerSecond\":%.0f,\"megabytesPerSecond\":%.1f}\n",
           updates, frames, total_updates / elapsed, bytes / elapsed / 1e6);
    return 0;
}
