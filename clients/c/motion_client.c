/* libmotion-client: see include/motion_client.h. JSON lines over a Unix socket, C99 + POSIX, and Linux's
 * epoll and timerfd for a descriptor that stays the same across reconnects. */
#define _GNU_SOURCE
#include "motion_client.h"

#include "frames_reader.h"
#include "json_scan.h"

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

/* A line longer than this (the daemon's own limit is 1 MiB of request; frames of 40,000 springs are
 * about 3 MiB) is a broken peer: the connection fails rather than grow without bound. */
#define MAXIMUM_LINE (64u << 20)

struct motion_client {
    int fd; /* -1 while disconnected */
    /* What motion_client_fd hands out, the same for the client's life: an epoll set of the socket and
     * `retry_fd`, a timer that fires when the next reconnect attempt is due (armed while disconnected).
     * `retry_ms`: the backoff, 0.1 s doubling to 2 s. */
    int poll_fd, retry_fd, retry_ms;
    long next_id;
    /* Reconnecting: the socket's path, whether to, and the subscriptions to make again, by id − 1 (the
     * daemon numbers a connection's subscriptions from 1, so they get their old ids back; NULL: since
     * unsubscribed, made again as a placeholder that matches nothing and unsubscribed at once). */
    char *path;
    int reconnects;
    char **subscriptions;
    size_t subscription_count;
    /* Bytes read: lines start at input_start; input_length counts from the buffer's start. */
    char *input;
    size_t input_start, input_length, input_capacity;
    /* Event lines that came while a call waited, oldest first. */
    char **queued;
    size_t queued_head, queued_count, queued_capacity;
    /* What the last event handed out points into. */
    char *event_line;
    motion_update *updates;
    size_t update_capacity;
    char *strings;
    size_t strings_capacity;
    /* Descriptors that came with lines (SCM_RIGHTS), oldest first: a shm subscribe reply takes one. */
    int received_fds[8];
    size_t received_count;
    /* Shared-memory readers, by subscription index (NULL for JSON ones), parallel to `subscriptions`. */
    motion_frames_reader **readers;
    /* Why the last call, subscribe included, failed: motiond's error object, or a connection message as
     * one ({"code":"connection.failed",…}); NULL after a success. */
    char *last_error;
};

static void note_error(motion_client *client, const char *error_json) {
    free(client->last_error);
    client->last_error = error_json ? strdup(error_json) : NULL;
}

static int take_descriptor(motion_client *client) {
    if (client->received_count == 0) return -1;
    int fd = client->received_fds[0];
    memmove(client->received_fds, client->received_fds + 1, --client->received_count * sizeof(int));
    return fd;
}

static int call_raw(motion_client *client, const char *method, const char *params_json, char **result_json);

/* Unsubscribes `sub` (a subscription this library could not give its caller). */
static void take_back(motion_client *client, int sub) {
    char params[32];
    snprintf(params, sizeof params, "{\"sub\":%d}", sub);
    call_raw(client, "unsubscribe", params, NULL);
}

/* Whether a subscribe reply says a shared-memory region came with it (its descriptor is queued). */
static int passes_region(const char *result) { return result && strstr(result, "\"transport\":\"shm\"") != NULL; }

static void set_error(char *error, size_t capacity, const char *format, ...) {
    if (!error || capacity == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, capacity, format, arguments);
    va_end(arguments);
}

static const char *default_socket(char *buffer, size_t capacity) {
    const char *socket = getenv("MOTIOND_SOCKET");
    if (socket && *socket) return socket;
    const char *directory = getenv("RUNTIME_DIRECTORY");
    if (directory && *directory) {
        size_t length = strcspn(directory, ":");
        snprintf(buffer, capacity, "%.*s/motiond.sock", (int)length, directory);
        return buffer;
    }
    directory = getenv("XDG_RUNTIME_DIR");
    if (directory && *directory) {
        snprintf(buffer, capacity, "%s/motiond.sock", directory);
        return buffer;
    }
    return "/run/motiond/motiond.sock";
}

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = send(fd, bytes, length, MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

/* The next complete line (without its newline, malloc'd), or NULL if none is buffered. */
static int has_line(const motion_client *client) {
    return client->input_length > client->input_start &&
           memchr(client->input + client->input_start, '\n', client->input_length - client->input_start) != NULL;
}

static char *take_line(motion_client *client) {
    if (client->input_length <= client->input_start) return NULL;
    char *start = client->input + client->input_start;
    char *newline = memchr(start, '\n', client->input_length - client->input_start);
    if (!newline) return NULL;
    size_t length = (size_t)(newline - start);
    char *line = malloc(length + 1);
    if (!line) return NULL;
    memcpy(line, start, length);
    line[length] = 0;
    client->input_start += length + 1;
    return line;
}

/* Reads what the socket has, waiting up to `timeout_ms` (< 0: until something comes). 1 read, 0 timed
 * out, -1 closed or failed. */
static int fill(motion_client *client, int timeout_ms) {
    struct pollfd descriptor = {.fd = client->fd, .events = POLLIN};
    int ready;
    do ready = poll(&descriptor, 1, timeout_ms);
    while (ready < 0 && errno == EINTR);
    if (ready < 0) return -1;
    if (ready == 0) return 0;
    /* Lines already taken leave the buffer in one move, not one per line. */
    if (client->input_start > 0) {
        client->input_length -= client->input_start;
        memmove(client->input, client->input + client->input_start, client->input_length);
        client->input_start = 0;
    }
    if (client->input_length > MAXIMUM_LINE) return -1;
    if (client->input_capacity - client->input_length < 65536) {
        size_t capacity = client->input_capacity * 2 + 65536;
        char *grown = realloc(client->input, capacity);
        if (!grown) return -1;
        client->input = grown;
        client->input_capacity = capacity;
    }
    ssize_t count;
    union {
        char buffer[CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } control;
    struct iovec vector = {.iov_base = client->input + client->input_length,
                           .iov_len = client->input_capacity - client->input_length};
    struct msghdr message;
    do {
        memset(&message, 0, sizeof message);
        message.msg_iov = &vector;
        message.msg_iovlen = 1;
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        count = recvmsg(client->fd, &message, MSG_CMSG_CLOEXEC);
    } while (count < 0 && errno == EINTR);
    if (count <= 0) return -1;
    /* A descriptor comes with the first byte of the line it belongs to (a shm subscribe reply). */
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t fds = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < fds; index++) {
            int fd;
            memcpy(&fd, CMSG_DATA(header) + index * sizeof(int), sizeof fd);
            if (client->received_count < sizeof client->received_fds / sizeof(int)) client->received_fds[client->received_count++] = fd;
            else close(fd);
        }
    }
    client->input_length += (size_t)count;
    return 1;
}

static int queue_line(motion_client *client, char *line) {
    if (client->queued_head + client->queued_count == client->queued_capacity) {
        if (client->queued_head > 0) {
            memmove(client->queued, client->queued + client->queued_head, client->queued_count * sizeof(char *));
            client->queued_head = 0;
        } else {
            size_t capacity = client->queued_capacity * 2 + 16;
            char **grown = realloc(client->queued, capacity * sizeof(char *));
            if (!grown) return -1;
            client->queued = grown;
            client->queued_capacity = capacity;
        }
    }
    client->queued[client->queued_head + client->queued_count++] = line;
    return 0;
}

static int open_socket(const char *path, char *error, size_t error_capacity) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) {
        set_error(error, error_capacity, "socket path too long: %s", path);
        return -1;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        set_error(error, error_capacity, "cannot connect to %s: %s (is motiond running? set MOTIOND_SOCKET)", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

static int greet(motion_client *client, char *error, size_t error_capacity) {
    char *result = NULL;
    int status = call_raw(client, "hello", "{\"protocol\":1,\"client\":\"libmotion-client\"}", &result);
    if (status != 0) set_error(error, error_capacity, "hello refused: %s", result ? result : "the connection closed");
    free(result);
    return status;
}

/* The retry timer fires in `ms` (0: disarmed); a timer that fired is read, so the poll set quiets. */
static void arm_retry(motion_client *client, int ms) {
    uint64_t expirations;
    while (read(client->retry_fd, &expirations, sizeof expirations) > 0) {}
    struct itimerspec when = {.it_value = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000}};
    timerfd_settime(client->retry_fd, 0, &when, NULL);
}

/* The connection is gone: what was read of it is dropped (events already queued stay); while
 * reconnecting, the poll set becomes readable when the first attempt is due. */
static void drop_connection(motion_client *client) {
    while (client->received_count > 0) close(take_descriptor(client));
    if (client->fd >= 0) close(client->fd); /* which also takes it out of the poll set */
    client->fd = -1;
    client->input_start = client->input_length = 0;
    if (client->reconnects) arm_retry(client, client->retry_ms);
}

/* Where an unsubscribed subscription was: a trace subscription to a target no one names. */
static const char placeholder_subscription[] = "{\"streams\":[\"trace\"],\"targets\":[\"\\u2400motion-client.unsubscribed\"]}";

/* The "sub" member of a JSON object (a reply or params), -1 if none. */
static int sub_of(const char *json) {
    json_span field;
    if (!json || !json_member(json, json + strlen(json), "sub", &field)) return -1;
    return json_int(field);
}

static int attach_socket(motion_client *client, int fd) {
    struct epoll_event readable = {.events = EPOLLIN};
    readable.data.fd = fd;
    return epoll_ctl(client->poll_fd, EPOLL_CTL_ADD, fd, &readable);
}

static int reconnect_attempt(motion_client *client);

/* One attempt: connect, hello, subscribe again. 0 on success; else the next attempt waits longer. */
static int reconnect_once(motion_client *client) {
    if (reconnect_attempt(client) == 0) {
        client->retry_ms = 100;
        arm_retry(client, 0);
        return 0;
    }
    client->retry_ms = client->retry_ms < 1000 ? client->retry_ms * 2 : 2000;
    arm_retry(client, client->retry_ms);
    return -1;
}

static int reconnect_attempt(motion_client *client) {
    int fd = open_socket(client->path, NULL, 0);
    if (fd < 0) return -1;
    if (attach_socket(client, fd) != 0) {
        close(fd);
        return -1;
    }
    client->fd = fd;
    client->next_id = 0;
    if (greet(client, NULL, 0) != 0) {
        drop_connection(client);
        return -1;
    }
    for (size_t index = 0; index < client->subscription_count; index++) {
        char *result = NULL;
        if (client->subscriptions[index]) {
            int status = call_raw(client, "subscribe", client->subscriptions[index], &result);
            int region = status == 0 && passes_region(result);
            free(result);
            result = NULL;
            if (status == 0 && client->readers[index]) {
                /* The new daemon's region replaces the old one (slot names come again with it). */
                int fd = take_descriptor(client);
                if (fd < 0 || frames_reader_map(client->readers[index], fd, NULL, 0) != 0) status = -2;
            } else if (region) {
                close(take_descriptor(client)); /* made with motion_client_call: no reader to map it */
            }
            if (status == -2) {
                drop_connection(client);
                return -1;
            }
            if (status == 0) continue;
            /* The new daemon refused it (a limit reached, a key it does not take): it is not made
             * again, and a placeholder takes its id so that the others keep theirs. */
            free(client->subscriptions[index]);
            client->subscriptions[index] = NULL;
        }
        int status = call_raw(client, "subscribe", placeholder_subscription, &result);
        char params[32];
        snprintf(params, sizeof params, "{\"sub\":%d}", status == 0 ? sub_of(result) : -1);
        free(result);
        if (status == -2 || (status == 0 && call_raw(client, "unsubscribe", params, NULL) == -2)) {
            drop_connection(client);
            return -1;
        }
    }
    return 0;
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

static int call_line(motion_client *client, const char *method, const char *params_json, char **result_json);

/* A call, its outcome noted for motion_client_last_error. */
static int call_raw(motion_client *client, const char *method, const char *params_json, char **result_json) {
    char *result = NULL;
    int status = call_line(client, method, params_json, &result);
    if (client) {
        if (status == -1) note_error(client, result);
        else if (status == -2) note_error(client, "{\"code\":\"connection.failed\",\"message\":\"the connection to motiond failed\"}");
        else note_error(client, NULL);
    }
    if (result_json) *result_json = result;
    else free(result);
    return status;
}

static int call_line(motion_client *client, const char *method, const char *params_json, char **result_json) {
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
    size_t length = strlen(method) * 6 + (params_json ? strlen(params_json) : 2) + 64;
    char *request = malloc(length);
    if (!request) return -2;
    int used = snprintf(request, length, "{\"id\":%ld,\"method\":", id);
    used += json_write_string(request + used, method);
    used += snprintf(request + used, length - (size_t)used, ",\"params\":%s}\n", params_json ? params_json : "{}");
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

static long now_ms(void) {
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
