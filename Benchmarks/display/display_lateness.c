/* Display-timed frames as a client sees them (BENCHMARKS.md): a 60 Hz display subscription and a 10 s
 * linear tween for 3 s; prints frames, skipped vblanks and how late frames came after their send time.
 *   cc -std=c99 -O2 -Iclients/c/include Benchmarks/display/display_lateness.c -L.build/debug -lmotion-client \
 *      -Wl,-rpath,$PWD/.build/debug -o /tmp/display_lateness && /tmp/display_lateness SOCKET
 * (add load with: for i in 1 2 3; do timeout 30 yes >/dev/null & done) */
#define _POSIX_C_SOURCE 200809L
#include <motion_client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double mono(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    char error[256];
    motion_client *c = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!c) { puts(error); return 1; }
    char params[256]; int sub;
    snprintf(params, sizeof params, "{\"streams\":[\"frames\"],\"display\":{\"period\":%.9f,\"vblank\":%.6f}}", 1.0/60, mono());
    motion_client_subscribe(c, params, &sub);
    motion_client_call(c, "plan.add", "{\"target\":\"card\",\"plan\":{\"type\":\"Tween\",\"property\":\"x\",\"from\":[0],\"to\":[100],\"duration\":10,\"timing\":\"linear\"}}", NULL);
    double start = mono(), last = 0, maxLate = -1; int frames = 0, gaps = 0, lateCount = 0;
    motion_event e;
    while (mono() - start < 3 && motion_client_next_event(c, 100, &e) >= 0) {
        if (e.kind != MOTION_EVENT_FRAME || e.present == 0) continue;
        double period = 1.0/60, sendAt = e.present - period - 0.002, late = mono() - sendAt;
        if (late > maxLate) maxLate = late;
        if (late > 0.005) lateCount++;
        if (last && e.present - last > 1.5 * period) gaps++;
        last = e.present; frames++;
    }
    printf("frames %d in 3 s, gaps %d, late>5ms %d, max late %.1f ms\n", frames, gaps, lateCount, maxLate * 1000);
    motion_client_close(c);
    return 0;
}
