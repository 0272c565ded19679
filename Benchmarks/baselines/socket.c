/* The limit for streaming frames: a C encoder writes frame lines of U updates in the daemon's shape and
 * number format, and sends them over a Unix stream socket to a reader that discards them.
 *
 * Like the daemon, each update's `{"runtime":…,"target":…,"property":…,"value":` prefix is encoded once
 * and copied, and numbers are written in fixed point with at most nine decimals (trailing zeros dropped).
 * With a third argument `g17` numbers are written with printf's %.17g instead (exact, and far slower).
 *
 *   clang -O3 -o socket socket.c && ./socket UPDATES_PER_FRAME SECONDS [fixed|g17]
 * prints one JSON object: updates per second delivered, megabytes per second. */
#include <math.h>
#include <stdint.h>
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

static int use_g17;

/* The daemon's fixed-point format (FrameEncoder.writeFixed), for magnitudes below 1e9. */
static char *put_number(char *out, double number) {
    if (use_g17) return out + sprintf(out, "%.17g", number);
    double magnitude = fabs(number);
    uint64_t fixed = (uint64_t)(magnitude * 1e9 + 0.5);
    if (fixed == 0) { *out++ = '0'; return out; }
    if (number < 0) *out++ = '-';
    uint32_t integer = (uint32_t)(fixed / 1000000000u), fraction = (uint32_t)(fixed % 1000000000u);
    char digits[10];
    int count = 0;
    do { digits[count++] = (char)('0' + integer % 10); integer /= 10; } while (integer);
    while (count) *out++ = digits[--count];
    if (fraction) {
        int length = 9;
        while (fraction % 10 == 0) { fraction /= 10; length--; }
        *out++ = '.';
        for (int i = length - 1; i >= 0; i--) { out[i] = (char)('0' + fraction % 10); fraction /= 10; }
        out += length;
    }
    return out;
}

int main(int argc, char **argv) {
    const int updates = argc > 1 ? atoi(argv[1]) : 40000;
    const double seconds = argc > 2 ? atof(argv[2]) : 3;
    use_g17 = argc > 3 && strcmp(argv[3], "g17") == 0;
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
    char **prefixes = malloc(sizeof(char *) * updates);
    size_t *prefix_lengths = malloc(sizeof(size_t) * updates);
    for (int i = 0; i < updates; i++) {
        char text[128];
        prefix_lengths[i] = (size_t)snprintf(text, sizeof text, "{\"runtime\":\"default\",\"target\":\"s%d\",\"property\":\"position\",\"value\":", i);
        prefixes[i] = strdup(text);
    }
    size_t capacity = (size_t)updates * 256 + 256;
    char *line = malloc(capacity);
    long frames = 0, total_updates = 0;
    double bytes = 0, start = now(), value = 1000.123456789;
    while (now() - start < seconds) {
        char *out = line + snprintf(line, capacity, "{\"event\":\"frame\",\"sub\":1,\"seq\":%ld,\"t\":%.6f,\"dropped\":0,\"updates\":[", frames + 1, now() - start);
        for (int i = 0; i < updates; i++) {
            value += 0.000370001;
            if (i) *out++ = ',';
            memcpy(out, prefixes[i], prefix_lengths[i]);
            out += prefix_lengths[i];
            *out++ = '[';
            out = put_number(out, value);
            *out++ = ',';
            out = put_number(out, value * 0.5);
            memcpy(out, "],\"velocity\":[", 14);
            out += 14;
            out = put_number(out, -value * 0.01);
            *out++ = ',';
            out = put_number(out, value * 0.02);
            *out++ = ']';
            *out++ = '}';
        }
        memcpy(out, "]}\n", 3);
        size_t n = (size_t)(out + 3 - line);
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
    printf("{\"updatesPerFrame\":%d,\"format\":\"%s\",\"frames\":%ld,\"updatesPerSecond\":%.0f,\"megabytesPerSecond\":%.1f,\"bytesPerUpdate\":%.1f}\n",
           updates, use_g17 ? "g17" : "fixed", frames, total_updates / elapsed, bytes / elapsed / 1e6, bytes / total_updates);
    return 0;
}
