/* libmotion-client: events, typed frames, and waiting for them (client_state.h). */
#define _GNU_SOURCE
#include "client_state.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int read_vector(json_span array, double out[4]) {
    int count = 0;
    const char *cursor = array.start + 1;
    json_span element;
    while (count < 4 && json_next_element(&cursor, array.end, &element)) out[count++] = json_number(element);
    return count;
}

static const char *const update_names[3] = {"runtime", "target", "property"};

/* Frame updates: one pass sizes the string storage (a decoded string is never longer than its JSON),
 * the next decodes into it. */
static int read_updates(motion_client *client, json_span updates) {
    size_t count = 0, bytes = 0;
    const char *cursor = updates.start + 1;
    json_span update, field;
    while (json_next_element(&cursor, updates.end, &update)) {
        count++;
        for (int name = 0; name < 3; name++) {
            if (json_member(update.start, update.end, update_names[name], &field)) bytes += (size_t)(field.end - field.start);
            bytes += 1;
        }
    }
    if (count > client->update_capacity) {
        motion_update *grown = realloc(client->updates, count * sizeof *grown);
        if (!grown) return -1;
        client->updates = grown;
        client->update_capacity = count;
    }
    if (bytes > client->strings_capacity) {
        char *grown = realloc(client->strings, bytes);
        if (!grown) return -1;
        client->strings = grown;
        client->strings_capacity = bytes;
    }
    char *strings = client->strings;
    cursor = updates.start + 1;
    for (size_t index = 0; index < count && json_next_element(&cursor, updates.end, &update); index++) {
        motion_update *out = &client->updates[index];
        memset(out, 0, sizeof *out);
        const char **names[3] = {&out->runtime, &out->target, &out->property};
        for (int name = 0; name < 3; name++) {
            *names[name] = strings;
            if (json_member(update.start, update.end, update_names[name], &field) && field.start[0] == '"') {
                strings += json_decode_string(field, strings);
            }
            *strings++ = 0;
        }
        if (json_member(update.start, update.end, "value", &field)) out->count = read_vector(field, out->value);
        if (json_member(update.start, update.end, "velocity", &field)) read_vector(field, out->velocity);
    }
    return (int)count;
}

static int fill_event(motion_client *client, motion_event *event) {
    const char *line = client->event_line, *end = line + strlen(line);
    memset(event, 0, sizeof *event);
    event->json = line;
    event->kind = MOTION_EVENT_OTHER;
    json_span field;
    if (json_member(line, end, "event", &field)) {
        if (json_string_is(field, "frame")) event->kind = MOTION_EVENT_FRAME;
        else if (json_string_is(field, "trace")) event->kind = MOTION_EVENT_TRACE;
    }
    if (json_member(line, end, "sub", &field)) event->sub = json_int(field);
    if (json_member(line, end, "t", &field)) event->t = json_number(field);
    if (json_member(line, end, "present", &field)) event->present = json_number(field);
    int names = json_member(line, end, "event", &field) && json_string_is(field, "slots");
    json_span shm;
    int announces = event->kind == MOTION_EVENT_FRAME && json_member(line, end, "shm", &shm);
    for (size_t index = 0; (names || announces) && index < client->subscription_count; index++) {
        motion_frames_reader *reader = client->readers[index];
        if (!reader || reader->sub != event->sub) continue;
        if (names) frames_reader_apply_names(reader, line, end);
        if (announces) reader->announced = (uint64_t)json_number(shm);
    }
    if (event->kind != MOTION_EVENT_FRAME || !json_member(line, end, "updates", &field) || field.start[0] != '[') return 0;
    int count = read_updates(client, field);
    if (count < 0) return -1;
    event->updates = client->updates;
    event->update_count = (size_t)count;
    return 0;
}

long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int motion_client_next_event(motion_client *client, int timeout_ms, motion_event *event) {
    if (!client || !event) return -1;
    long deadline_ms = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    free(client->event_line);
    client->event_line = NULL;
    for (;;) {
        if (client->fd < 0 && client->queued_count == 0) {
            if (!client->reconnects) return -1;
            /* An attempt only when the retry timer says one is due (drop_connection and reconnect_once arm
             * it): a poll loop woken by other work does not try at every wake-up, and a timeout waits for
             * the attempt that falls within it. */
            int wait_ms = timeout_ms;
            if (timeout_ms > 0) {
                long left = deadline_ms - now_ms();
                if (left <= 0) return 0;
                wait_ms = (int)left;
            }
            struct pollfd due = {.fd = client->retry_fd, .events = POLLIN};
            int ready;
            do ready = poll(&due, 1, wait_ms);
            while (ready < 0 && errno == EINTR);
            if (ready <= 0) return 0;
            if (reconnect_once(client) == 0) {
                /* Told as an event of its own: the application re-adds what lived only in the old daemon. */
                client->event_line = strdup("{\"event\":\"reconnected\"}");
                return client->event_line && fill_event(client, event) == 0 ? 1 : -1;
            }
            if (timeout_ms == 0) return 0;
            continue;
        }
        if (client->queued_count > 0) {
            client->event_line = client->queued[client->queued_head++];
            client->queued_count--;
            if (client->queued_count == 0) client->queued_head = 0;
        } else {
            client->event_line = take_line(client);
        }
        if (client->event_line) return fill_event(client, event) == 0 ? 1 : -1;
        int status = client->fd < 0 ? -1 : fill(client, timeout_ms);
        if (status == -1) {
            drop_connection(client);
            if (!client->reconnects) return -1;
            continue;
        }
        if (status != 1) return status;
        /* Something came. A line longer than one read (a frame of thousands of updates) is waited for
         * until the deadline; with timeout 0 only what has arrived is taken. */
        if (!has_line(client)) {
            if (timeout_ms == 0) return 0;
            if (timeout_ms > 0) {
                long left = deadline_ms - now_ms();
                if (left <= 0) return 0;
                timeout_ms = (int)left;
            }
        }
    }
}
