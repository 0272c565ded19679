/* Internal to libmotion-client: the client's state and the functions its files share (connection.c: the
 * socket, lines and reconnecting; motion_client.c: calls and subscriptions; events.c: events). Prefixed and
 * hidden, as json_scan.h's. */
#ifndef MOTION_CLIENT_STATE_H
#define MOTION_CLIENT_STATE_H

#include "motion_client.h"

#include "frames_reader.h"
#include "json_scan.h"

#include <stddef.h>

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

#define note_error motion_client_internal_note_error
#define take_descriptor motion_client_internal_take_descriptor
#define passes_region motion_client_internal_passes_region
#define set_error motion_client_internal_set_error
#define default_socket motion_client_internal_default_socket
#define write_all motion_client_internal_write_all
#define has_line motion_client_internal_has_line
#define take_line motion_client_internal_take_line
#define fill motion_client_internal_fill
#define queue_line motion_client_internal_queue_line
#define open_socket motion_client_internal_open_socket
#define greet motion_client_internal_greet
#define arm_retry motion_client_internal_arm_retry
#define drop_connection motion_client_internal_drop_connection
#define sub_of motion_client_internal_sub_of
#define attach_socket motion_client_internal_attach_socket
#define reconnect_once motion_client_internal_reconnect_once
#define call_raw motion_client_internal_call_raw
#define take_back motion_client_internal_take_back
#define now_ms motion_client_internal_now_ms
#pragma GCC visibility push(hidden)

void note_error(motion_client *client, const char *error_json);
int take_descriptor(motion_client *client);
/* Whether a subscribe reply says a shared-memory region came with it (its descriptor is queued). */
int passes_region(const char *result);
void set_error(char *error, size_t capacity, const char *format, ...);
const char *default_socket(char *buffer, size_t capacity);
int write_all(int fd, const char *bytes, size_t length);
int has_line(const motion_client *client);
char *take_line(motion_client *client);
int fill(motion_client *client, int timeout_ms);
int queue_line(motion_client *client, char *line);
int open_socket(const char *path, char *error, size_t error_capacity);
int greet(motion_client *client, char *error, size_t error_capacity);
void arm_retry(motion_client *client, int ms);
void drop_connection(motion_client *client);
int sub_of(const char *json);
int attach_socket(motion_client *client, int fd);
int reconnect_once(motion_client *client);
int call_raw(motion_client *client, const char *method, const char *params_json, char **result_json);
void take_back(motion_client *client, int sub);
long now_ms(void);

#pragma GCC visibility pop

#endif
