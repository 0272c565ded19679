/* ClientLibraryTests: the C library's edges, as a client author met them.
 *   - params that are not JSON answer protocol.parse (the call used to wait forever);
 *   - a program with its own json_int (a common name) still gets the library's subscription ids;
 *   - motion_client_fd is one descriptor for the client's life: a poll loop on it sees the daemon go,
 *     the reconnect attempt fall due, the "reconnected" event and the new daemon's frames;
 *   - a reconnect made by a call is told by a "reconnected" event too;
 *   - a refused subscription says why (motion_client_last_error); a shm one names the frames stream itself.
 * Ephemeral runtimes "waiting1" and "waiting2" tell the test when to restart the daemon. */
#define _POSIX_C_SOURCE 200809L
#include <motion_client.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The library's own JSON helpers must not be this one. */
int json_int(const char *text) {
    (void)text;
    return 42;
}

static void pause_ms(long ms) {
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&pause, NULL);
}

int main(int argc, char **argv) {
    char error[256];
    motion_client *client = motion_client_connect(argc > 1 ? argv[1] : NULL, error, sizeof error);
    if (!client) {
        printf("connect: %s\n", error);
        return 1;
    }
    char *result = NULL;
    int status = motion_client_call(client, "plan.add", "{not json", &result);
    printf("not json: %d %s\n", status, result ? result : "(null)");
    free(result);
    int sub = -1;
    if (motion_client_subscribe(client, "{\"streams\":[\"frames\"],\"targets\":[\"after\"]}", &sub) != 0) return 1;
    printf("subscribed %d\n", sub);
    int refused = -1;
    status = motion_client_subscribe(client, "{\"streams\":[\"video\"]}", &refused);
    printf("refused subscribe: %d %s\n", status, motion_client_last_error(client) ? motion_client_last_error(client) : "(no reason)");
    int shm_sub = -1;
    motion_frames_reader *frames = NULL;
    status = motion_client_subscribe_shm(client, "{\"targets\":[\"after\"]}", &shm_sub, &frames);
    printf("shm without streams: %d sub %d\n", status, shm_sub);
    const int fd = motion_client_fd(client);
    motion_client_call(client, "runtime.create", "{\"name\":\"waiting1\",\"ephemeral\":true}", NULL);
    fflush(stdout);

    /* A poll loop, as the header describes it. */
    int reconnected = 0, framed = 0;
    motion_event event;
    for (int round = 0; round < 4000 && !framed; round++) {
        struct pollfd readable = {.fd = motion_client_fd(client), .events = POLLIN};
        if (!motion_client_pending(client) && poll(&readable, 1, 20000) <= 0) break;
        int got;
        while ((got = motion_client_next_event(client, 0, &event)) == 1) {
            if (event.kind == MOTION_EVENT_OTHER && strstr(event.json, "\"reconnected\"")) {
                reconnected = 1;
                printf("reconnected in the poll loop, %s descriptor\n", motion_client_fd(client) == fd ? "the same" : "another");
                fflush(stdout);
            } else if (reconnected && event.kind == MOTION_EVENT_FRAME && event.sub == sub && event.update_count > 0) {
                framed = 1;
                printf("frame after restart\n");
            }
        }
        if (got < 0) break;
    }
    if (!framed) {
        printf("no frame after the restart\n");
        return 1;
    }
    motion_client_call(client, "runtime.create", "{\"name\":\"waiting2\",\"ephemeral\":true}", NULL);
    fflush(stdout);
    /* Calls only: the daemon goes (-2), then a call connects again. */
    int lost = 0;
    for (int round = 0; round < 800; round++) {
        status = motion_client_call(client, "status", NULL, NULL);
        if (status == -2) lost = 1;
        if (lost && status == 0) break;
        pause_ms(50);
    }
    if (!lost || status != 0) {
        printf("the call did not reconnect (%d)\n", status);
        return 1;
    }
    int told = 0;
    while (motion_client_next_event(client, 0, &event) == 1) {
        if (event.kind == MOTION_EVENT_OTHER && strstr(event.json, "\"reconnected\"")) told = 1;
    }
    printf(told ? "reconnected in a call, told\n" : "reconnected in a call, not told\n");
    motion_client_close(client);
    return told ? 0 : 1;
}
