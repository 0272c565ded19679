/* libmotion-client: see include/motion_client.h. JSON lines over a Unix socket, C99 + POSIX, and Linux's
 * epoll and timerfd for a descriptor that stays the same across reconnects. Connecting, calls and
 * subscriptions here; the socket and reconnecting in connection.c, events in events.c. */
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

/* Unsubscribes `sub` (a subscription this library could not give its caller). */
void take_back(motion_client *client, int sub) {
    char params[32];
    snprintf(params, sizeof params, "{\"sub\":%d}", sub);
    call_raw(client, "unsubscribe", params, NULL);
}

motion_client *motion_client_connect(const char *socket_path, char *error, size_t error_capacity) {
    char buffer[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
    const char *path = socket_path ? socket_path : default_socket(buffer, sizeof buffer);
    int fd = open_socket(path, error, error_capacity);
    if (fd < 0) return NULL;
    motion_client *client = calloc(1, sizeof *client);
    if (!client || !(client->path = strdup(path))) {
        close(fd);
        free(client);
        set_error(error, error_capacity, "out of memory");
        return NULL;
    }
    client->poll_fd = client->retry_fd = -1;
    client->fd = fd;
    client->reconnects = 1;
    client->retry_ms = 100;
    client->poll_fd = epoll_create1(EPOLL_CLOEXEC);
    client->retry_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    struct epoll_event readable = {.events = EPOLLIN};
    readable.data.fd = client->retry_fd;
    if (client->poll_fd < 0 || client->retry_fd < 0 || attach_socket(client, fd) != 0 ||
        epoll_ctl(client->poll_fd, EPOLL_CTL_ADD, client->retry_fd, &readable) != 0) {
        set_error(error, error_capacity, "cannot make the client's poll descriptor: %s", strerror(errno));
        motion_client_close(client);
        return NULL;
    }
    if (greet(client, error, error_capacity) != 0) {
        motion_client_close(client);
        return NULL;
    }
    return client;
}

void motion_client_set_reconnect(motion_client *client, int enabled) {
    if (!client) return;
    client->reconnects = enabled != 0;
    if (!client->reconnects) arm_retry(client, 0);
    else if (client->fd < 0) arm_retry(client, client->retry_ms);
}

static int record_subscription(motion_client *client, int sub, const char *params_json, motion_frames_reader *reader);

int motion_client_call(motion_client *client, const char *method, const char *params_json, char **result_json) {
    char *result = NULL;
    int status = call_raw(client, method, params_json, &result);
    if (status == 0 && method && strcmp(method, "subscribe") == 0) {
        /* A shm region passed with the reply has no reader here (motion_client_subscribe_shm maps one):
         * its descriptor is closed, so that a later shm subscription takes its own. */
        if (passes_region(result)) close(take_descriptor(client));
        record_subscription(client, sub_of(result), params_json, NULL);
    } else if (status == 0 && method && strcmp(method, "unsubscribe") == 0) {
        /* Not made again after a reconnect (its reader, if any, stays the caller's until close). */
        int sub = sub_of(params_json);
        if (sub >= 1 && (size_t)sub <= client->subscription_count) {
            free(client->subscriptions[sub - 1]);
            client->subscriptions[sub - 1] = NULL;
        }
    }
    if (result_json) *result_json = result;
    else free(result);
    return status;
}

static int call_line(motion_client *client, const char *method, const char *params_json, const char *key,
                     char **result_json);

/* A call, its outcome noted for motion_client_last_error. */
int call_raw(motion_client *client, const char *method, const char *params_json, char **result_json) {
    char *result = NULL;
    int status = call_line(client, method, params_json, NULL, &result);
    if (client) {
        if (status == -1) note_error(client, result);
        else if (status == -2) note_error(client, "{\"code\":\"connection.failed\",\"message\":\"the connection to motiond failed\"}");
        else note_error(client, NULL);
    }
    if (result_json) *result_json = result;
    else free(result);
    return status;
}

static int call_line(motion_client *client, const char *method, const char *params_json, const char *key,
                     char **result_json) {
    if (result_json) *result_json = NULL;
    if (!client || !method) return -2;
    /* Disconnected: one attempt to connect again (a call is never replayed on a new connection: it
     * might have been applied before the old one failed). */
    if (client->fd < 0) {
        if (!client->reconnects || reconnect_once(client) != 0) return -2;
        /* Told as an event, as motion_client_next_event tells its own reconnects: the application
         * re-adds what lived only in the old daemon. */
        char *told = strdup("{\"event\":\"reconnected\"}");
        if (!told || queue_line(client, told) != 0) free(told);
    }
    long id = ++client->next_id;
    size_t length = strlen(method) * 6 + (params_json ? strlen(params_json) : 2) + (key ? strlen(key) * 6 + 16 : 0) + 64;
    char *request = malloc(length);
    if (!request) return -2;
    int used = snprintf(request, length, "{\"id\":%ld,\"method\":", id);
    used += json_write_string(request + used, method);
    used += snprintf(request + used, length - (size_t)used, ",\"params\":%s", params_json ? params_json : "{}");
    if (key) {
        used += snprintf(request + used, length - (size_t)used, ",\"key\":");
        used += json_write_string(request + used, key);
    }
    used += snprintf(request + used, length - (size_t)used, "}\n");
    /* Pretty-printed params would split the request line; outside strings a newline is only a space
     * (and JSON strings cannot hold a raw one). */
    for (int index = 0; index < used - 1; index++) {
        if (request[index] == '\n' || request[index] == '\r') request[index] = ' ';
    }
    int failed = write_all(client->fd, request, (size_t)used);
    free(request);
    if (failed) {
        drop_connection(client);
        return -2;
    }
    for (;;) {
        char *line;
        while ((line = take_line(client))) {
            json_span reply_id, result, reply_error;
            const char *end = line + strlen(line);
            int has_id = json_member(line, end, "id", &reply_id);
            if (has_id && json_number(reply_id) == (double)id) {
                int status = json_member(line, end, "result", &result) ? 0 : -1;
                if (status == -1 && !json_member(line, end, "error", &reply_error)) status = -2;
                if (result_json && status != -2) *result_json = json_copy(status == 0 ? result : reply_error);
                free(line);
                return status;
            }
            /* "id":null with an error: motiond could not read a request line (params that are not JSON)
             * and so cannot name it; this library sends one line and waits for its answer, so it is this
             * call's. */
            if (has_id && reply_id.end - reply_id.start == 4 && memcmp(reply_id.start, "null", 4) == 0 &&
                json_member(line, end, "error", &reply_error)) {
                if (result_json) *result_json = json_copy(reply_error);
                free(line);
                return -1;
            }
            if (queue_line(client, line) != 0) {
                free(line);
                return -2;
            }
        }
        if (fill(client, -1) != 1) {
            drop_connection(client);
            return -2;
        }
    }
}

/* Subscribes; with `reader` (a shm subscription) maps the region that came with the reply. */
static int subscribe(motion_client *client, const char *params_json, int *sub_id, motion_frames_reader **reader) {
    char *result = NULL;
    int status = call_raw(client, "subscribe", params_json, &result);
    int sub = status == 0 ? sub_of(result) : -1;
    motion_frames_reader *mapped = NULL;
    if (status == 0 && reader) {
        int fd = take_descriptor(client);
        mapped = fd < 0 ? NULL : motion_frames_reader_open(fd, NULL, 0);
        if (!mapped) {
            /* Not mappable here: the subscription is taken back rather than left without a reader. */
            take_back(client, sub);
            note_error(client, "{\"code\":\"shm.unmappable\",\"message\":\"the shared-memory region could not be mapped\"}");
            status = -2;
        } else {
            mapped->client = client;
            mapped->sub = sub;
        }
    } else if (status == 0 && passes_region(result)) {
        close(take_descriptor(client)); /* motion_client_subscribe with "transport":"shm": no reader here */
    }
    if (status == 0 && record_subscription(client, sub, params_json, mapped) != 0 && mapped) {
        /* Out of memory: the client could not own the reader (nor map it again after a reconnect), so the
         * subscription is taken back rather than leaked. */
        take_back(client, sub);
        frames_reader_free(mapped);
        mapped = NULL;
        status = -2;
    }
    if (reader) *reader = mapped;
    if (status == 0 && sub_id) *sub_id = sub;
    free(result);
    return status;
}

/* Keeps subscription `sub`'s params (and shm reader) to make it again after a reconnect. -1 when out of
 * memory (it is then not made again) or `sub` is not an id. */
static int record_subscription(motion_client *client, int sub, const char *params_json, motion_frames_reader *reader) {
    if (sub < 1) return -1;
    size_t needed = (size_t)sub;
    if (needed > client->subscription_count) {
        char **grown = realloc(client->subscriptions, needed * sizeof(char *));
        if (!grown) return -1;
        client->subscriptions = grown;
        motion_frames_reader **readers = realloc(client->readers, needed * sizeof *readers);
        if (!readers) return -1;
        client->readers = readers;
        for (size_t index = client->subscription_count; index < needed; index++) {
            client->subscriptions[index] = NULL;
            client->readers[index] = NULL;
        }
        client->subscription_count = needed;
    }
    char *kept = strdup(params_json ? params_json : "{}");
    if (!kept) return -1;
    free(client->subscriptions[sub - 1]);
    client->subscriptions[sub - 1] = kept;
    if (reader) client->readers[sub - 1] = reader;
    return 0;
}

int motion_client_subscribe(motion_client *client, const char *params_json, int *sub_id) {
    return subscribe(client, params_json, sub_id, NULL);
}

int motion_client_subscribe_shm(motion_client *client, const char *params_json, int *sub_id,
                                motion_frames_reader **reader) {
    if (reader) *reader = NULL;
    if (!client || !params_json || !reader) return -2;
    /* The params with "transport":"shm" added (after the opening brace), and the frames stream when no
     * streams are named (the only one a shm subscription takes). */
    const char *brace = strchr(params_json, '{');
    if (!brace) return -2;
    size_t length = strlen(params_json) + 64;
    char *params = malloc(length);
    if (!params) return -2;
    const char *rest = brace + 1;
    while (*rest == ' ' || *rest == '\n' || *rest == '\t' || *rest == '\r') rest++;
    json_span named;
    const char *streams = json_member(params_json, params_json + strlen(params_json), "streams", &named) ? "" : ",\"streams\":[\"frames\"]";
    snprintf(params, length, "{\"transport\":\"shm\"%s%s%s", streams, *rest == '}' ? "" : ",", rest);
    int status = subscribe(client, params, sub_id, reader);
    free(params);
    return status;
}

int motion_client_fd(const motion_client *client) { return client ? client->poll_fd : -1; }

const char *motion_client_last_error(const motion_client *client) { return client ? client->last_error : NULL; }

int motion_client_pending(const motion_client *client) {
    return client && (client->queued_count > 0 || has_line(client));
}

void motion_client_close(motion_client *client) {
    if (!client) return;
    if (client->fd >= 0) close(client->fd);
    if (client->poll_fd >= 0) close(client->poll_fd);
    if (client->retry_fd >= 0) close(client->retry_fd);
    for (size_t index = 0; index < client->subscription_count; index++) {
        free(client->subscriptions[index]);
        frames_reader_free(client->readers[index]);
    }
    free(client->subscriptions);
    free(client->readers);
    while (client->received_count > 0) close(take_descriptor(client));
    free(client->path);
    for (size_t index = 0; index < client->queued_count; index++) free(client->queued[client->queued_head + index]);
    free(client->queued);
    free(client->input);
    free(client->event_line);
    free(client->updates);
    free(client->strings);
    free(client->last_error);
    free(client);
}

/* The answer is lost, not refused: the connection failed, or motiond is stopping (or still applying the
 * first request with this key). */
static int answer_lost(int status, const char *result) {
    if (status == -2) return 1;
    if (status != -1 || !result) return 0;
    return strstr(result, "\"server.shutting_down\"") != NULL || strstr(result, "\"request.pending\"") != NULL;
}

int motion_client_call_keyed(motion_client *client, const char *method, const char *params_json, const char *key,
                             int retry_ms, char **result_json) {
    if (result_json) *result_json = NULL;
    if (!client || !method) return -2;
    if (!key || !*key) {
        /* Refused as motiond refuses it (a key is 1 to 128 bytes), not a failed connection. */
        const char *refusal = "{\"code\":\"request.invalid\",\"message\":\"key: expected a string of 1 to 128 bytes (an idempotency key)\"}";
        note_error(client, refusal);
        if (result_json) *result_json = strdup(refusal);
        return -1;
    }
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long pause_ms = 100;
    for (;;) {
        char *result = NULL;
        int status = call_line(client, method, params_json, key, &result);
        if (status == -1) note_error(client, result);
        else if (status == -2) note_error(client, "{\"code\":\"connection.failed\",\"message\":\"the connection to motiond failed\"}");
        else note_error(client, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (!answer_lost(status, result) || !client->reconnects || elapsed_ms >= retry_ms) {
            if (result_json) *result_json = result;
            else free(result);
            return status;
        }
        free(result);
        /* Sent again once motiond is back (call_line connects first when the connection is gone). */
        long wait_ms = pause_ms < retry_ms - elapsed_ms ? pause_ms : retry_ms - elapsed_ms;
        struct timespec pause = {wait_ms / 1000, (wait_ms % 1000) * 1000000};
        nanosleep(&pause, NULL);
        pause_ms = pause_ms * 2 > 2000 ? 2000 : pause_ms * 2;
    }
}
