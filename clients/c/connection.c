/* libmotion-client: the socket, its lines and descriptors, and reconnecting (client_state.h). */
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

void note_error(motion_client *client, const char *error_json) {
    free(client->last_error);
    client->last_error = error_json ? strdup(error_json) : NULL;
}

int take_descriptor(motion_client *client) {
    if (client->received_count == 0) return -1;
    int fd = client->received_fds[0];
    memmove(client->received_fds, client->received_fds + 1, --client->received_count * sizeof(int));
    return fd;
}

/* Whether a subscribe reply says a shared-memory region came with it (its descriptor is queued). */
int passes_region(const char *result) { return result && strstr(result, "\"transport\":\"shm\"") != NULL; }

void set_error(char *error, size_t capacity, const char *format, ...) {
    if (!error || capacity == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, capacity, format, arguments);
    va_end(arguments);
}

const char *default_socket(char *buffer, size_t capacity) {
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

int write_all(int fd, const char *bytes, size_t length) {
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
int has_line(const motion_client *client) {
    return client->input_length > client->input_start &&
           memchr(client->input + client->input_start, '\n', client->input_length - client->input_start) != NULL;
}

char *take_line(motion_client *client) {
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
int fill(motion_client *client, int timeout_ms) {
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

int queue_line(motion_client *client, char *line) {
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

int open_socket(const char *path, char *error, size_t error_capacity) {
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

int greet(motion_client *client, char *error, size_t error_capacity) {
    char *result = NULL;
    int status = call_raw(client, "hello", "{\"protocol\":1,\"client\":\"libmotion-client\"}", &result);
    if (status != 0) set_error(error, error_capacity, "hello refused: %s", result ? result : "the connection closed");
    free(result);
    return status;
}

/* The retry timer fires in `ms` (0: disarmed); a timer that fired is read, so the poll set quiets. */
void arm_retry(motion_client *client, int ms) {
    uint64_t expirations;
    while (read(client->retry_fd, &expirations, sizeof expirations) > 0) {}
    struct itimerspec when = {.it_value = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000}};
    timerfd_settime(client->retry_fd, 0, &when, NULL);
}

/* The connection is gone: what was read of it is dropped (events already queued stay); while
 * reconnecting, the poll set becomes readable when the first attempt is due. */
void drop_connection(motion_client *client) {
    while (client->received_count > 0) close(take_descriptor(client));
    if (client->fd >= 0) close(client->fd); /* which also takes it out of the poll set */
    client->fd = -1;
    client->input_start = client->input_length = 0;
    if (client->reconnects) arm_retry(client, client->retry_ms);
}

/* Where an unsubscribed subscription was: a trace subscription to a target no one names. */
static const char placeholder_subscription[] = "{\"streams\":[\"trace\"],\"targets\":[\"\\u2400motion-client.unsubscribed\"]}";

/* The "sub" member of a JSON object (a reply or params), -1 if none. */
int sub_of(const char *json) {
    json_span field;
    if (!json || !json_member(json, json + strlen(json), "sub", &field)) return -1;
    return json_int(field);
}

int attach_socket(motion_client *client, int fd) {
    struct epoll_event readable = {.events = EPOLLIN};
    readable.data.fd = fd;
    return epoll_ctl(client->poll_fd, EPOLL_CTL_ADD, fd, &readable);
}

static int reconnect_attempt(motion_client *client);

/* One attempt: connect, hello, subscribe again. 0 on success; else the next attempt waits longer. */
int reconnect_once(motion_client *client) {
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
