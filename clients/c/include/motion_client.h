/*
 * libmotion-client: talk to motiond from C (docs/clients.md). pkg-config name `motion-client`.
 *
 *   char error[256];
 *   motion_client *client = motion_client_connect(NULL, error, sizeof error);   // says hello
 *   char *result = NULL;
 *   if (motion_client_call(client, "plan.add",
 *           "{\"target\":\"card\",\"plan\":{\"type\":\"Spring\",\"property\":\"x\",\"to\":[100]}}", &result) == 0)
 *       puts(result);
 *   free(result);
 *   int sub;
 *   motion_client_subscribe(client, "{\"streams\":[\"frames\"]}", &sub);
 *   motion_event event;
 *   while (motion_client_next_event(client, -1, &event) == 1)
 *       for (size_t i = 0; i < event.update_count; i++)
 *           printf("%s.%s = %g\n", event.updates[i].target, event.updates[i].property, event.updates[i].value[0]);
 *   motion_client_close(client);
 *
 * Threads: a motion_client is used by one thread at a time (no internal locking); different clients are
 * independent. Ownership: strings a call returns through `result_json` are malloc'd and yours to free();
 * an event's pointers (json, updates and their strings) belong to the client and stay valid until the next
 * call on it (motion_client_next_event, motion_client_call, motion_client_subscribe or close).
 * Events that arrive while a call waits for its reply are queued, in order, for motion_client_next_event.
 */
#ifndef MOTION_CLIENT_H
#define MOTION_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "motion_frames.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MOTION_CLIENT_VERSION_MAJOR 1
#define MOTION_CLIENT_VERSION_MINOR 2

typedef struct motion_client motion_client;

/*
 * Connects to motiond and says hello (protocol 1). `socket_path` NULL follows the default rules of
 * README.md (Running motiond, --socket): $MOTIOND_SOCKET, else $RUNTIME_DIRECTORY/motiond.sock (its first entry), else
 * $XDG_RUNTIME_DIR/motiond.sock, else /run/motiond/motiond.sock. Lines over 64 MiB fail the connection. Returns NULL on
 * failure with a message in `error` (NUL-terminated, truncated to `error_capacity`; `error` may be NULL).
 */
motion_client *motion_client_connect(const char *socket_path, char *error, size_t error_capacity);

/*
 * Sends a request and waits for its reply. `params_json` is a JSON object or NULL (none). Returns 0 on
 * success with the result object in *result_json; -1 when motiond answered an error (*result_json is the
 * error object: {"code":…,"message":…}; params that are not JSON are "protocol.parse"); -2 when the
 * connection failed (*result_json is NULL).
 * `result_json` may be NULL when the caller does not want the text. A "subscribe" with "transport":"shm"
 * made here gets no reader (the region's descriptor is closed): use motion_client_subscribe_shm.
 */
int motion_client_call(motion_client *client, const char *method, const char *params_json, char **result_json);

/*
 * A change that must take effect once (docs/protocol.md#idempotency-keys): sent with the idempotency `key`
 * (1 to 128 bytes of text), and sent again with it whenever its answer is lost (the connection failed, or
 * motiond answered that it is stopping), connecting again as needed, for up to `retry_ms`. motiond
 * applies it once and answers a repeat with the first result ("replayed":true when that came from its
 * journal after a restart). Returns as motion_client_call (an empty or NULL key: -1, "request.invalid", not
 * sent). With reconnecting off, tried once. (1.2)
 */
int motion_client_call_keyed(motion_client *client, const char *method, const char *params_json, const char *key,
                             int retry_ms, char **result_json);

/* `subscribe` with `params_json` (e.g. {"streams":["frames"],"runtime":"ui"}); *sub_id gets the id. 0 on
 * success; -1 refused, -2 the connection failed (motion_client_last_error says why). */
int motion_client_subscribe(motion_client *client, const char *params_json, int *sub_id);

/* Why the last call or subscription on `client` failed: motiond's error object ({"code":…,"message":…}),
 * or {"code":"connection.failed",…}; NULL after a success. Owned by the client, valid until its next
 * call. (1.1) */
const char *motion_client_last_error(const motion_client *client);

/*
 * A descriptor to poll for reading with other work (poll, select, epoll); when it is readable, call
 * motion_client_next_event with timeout 0 until it returns 0. It is the same for the client's life, across
 * reconnects (an epoll set of the socket and a timer): readable when the socket has bytes, and while the
 * daemon is away when the next reconnect attempt is due (motion_client_next_event then makes it). Events
 * a call queued (or lines already read) do not make it readable: drain them after every call, or check
 * motion_client_pending before polling. Do not read from it or close it.
 */
int motion_client_fd(const motion_client *client);

/* 1 if an event can be taken without reading the socket (queued during a call, or already read). */
int motion_client_pending(const motion_client *client);

enum motion_event_kind {
    MOTION_EVENT_FRAME = 1, /* frame: updates filled */
    MOTION_EVENT_TRACE = 2, /* trace: see json (kind, fields) */
    MOTION_EVENT_OTHER = 3, /* route events, gaps, closing notices: see json */
};

/* One property's new value in a frame. */
typedef struct motion_update {
    const char *runtime;
    const char *target;
    const char *property;
    int count; /* components, 1–4 */
    double value[4];
    double velocity[4];
} motion_update;

typedef struct motion_event {
    int kind;       /* enum motion_event_kind */
    int sub;        /* the subscription it is for */
    double t;       /* daemon uptime, seconds */
    double present; /* display-timed frames: CLOCK_MONOTONIC seconds its values are for; else 0 */
    size_t update_count;
    const motion_update *updates;
    const char *json; /* the whole event line, NUL-terminated */
} motion_event;

/*
 * The next event. `timeout_ms` < 0 waits for one, 0 only takes what has arrived, > 0 waits up to that
 * for the first bytes (then takes what is complete).
 * Returns 1 with *event filled, 0 if none came in time, -1 if the connection closed or failed.
 */
int motion_client_next_event(motion_client *client, int timeout_ms, motion_event *event);

/*
 * Reconnecting (on by default; docs/clients.md): when motiond goes away (a restart, an upgrade),
 * motion_client_next_event connects again with backoff (0.1 s doubling to 2 s: an attempt when one is
 * due, waiting for it up to the call's timeout; motion_client_fd becomes readable then), says hello, makes every subscription again (they keep their ids; one made with
 * motion_client_call("subscribe") too, one since unsubscribed not) and returns an
 * event {"event":"reconnected"} (kind MOTION_EVENT_OTHER): re-add what lived only in the old daemon. A
 * call on a lost connection returns -2 and is never replayed (motion_client_call_keyed's is); the next call connects first, and then the
 * "reconnected" event is queued for motion_client_next_event all the same.
 * `enabled` 0: a lost connection makes motion_client_next_event return -1.
 */
void motion_client_set_reconnect(motion_client *client, int enabled);

/*
 * Shared-memory frames (docs/clients.md, layout in motion_frames.h). motion_client_subscribe_shm subscribes with
 * `params_json` plus "transport":"shm" (e.g. {"runtime":"ui","slots":65536}; "streams":["frames"] when
 * none are named) and maps
 * the region the daemon passes with the reply. The reader belongs to the client (valid until
 * motion_client_close; after a reconnect it maps the new daemon's region by itself).
 *
 *   motion_frames_reader *frames;
 *   motion_client_subscribe_shm(client, "{\"streams\":[\"frames\"]}", &sub, &frames);
 *   motion_frames_value values[1024];
 *   for (;;) {
 *       motion_client_next_event(client, -1, &event);     // a frame announcement (or slot names)
 *       size_t count;
 *       while ((count = motion_frames_reader_read(frames, values, 1024)) > 0)
 *           for (size_t i = 0; i < count; i++) {
 *               const char *target, *property;
 *               if (motion_frames_reader_name(frames, values[i].slot, values[i].tag, NULL, &target, &property))
 *                   printf("%s.%s = %g\n", target, property, values[i].value[0]);
 *           }
 *   }
 *
 * motion_client_next_event applies the `slots` events (slot names) to the reader before returning them,
 * and returns each frame announcement as a MOTION_EVENT_FRAME with no updates. Reading the region never
 * blocks the daemon and always gives each changed slot's latest value; a reader that was away longer
 * than the rings hold gets every slot once.
 */
typedef struct motion_frames_reader motion_frames_reader;

typedef struct motion_frames_value {
    uint32_t slot;
    uint32_t tag;        /* pass to motion_frames_reader_name with the slot */
    uint32_t components; /* 1–4: value[components] and velocity[components] are set, the rest unspecified;
                            0: the slot's property went away (its tag is one no naming gives) */
    uint32_t reserved;
    double value[MOTION_FRAMES_COMPONENTS];
    double velocity[MOTION_FRAMES_COMPONENTS];
} motion_frames_value;

int motion_client_subscribe_shm(motion_client *client, const char *params_json, int *sub_id,
                                motion_frames_reader **reader);

/* Maps a region from a descriptor you received yourself (taking the descriptor); NULL with `error`. */
motion_frames_reader *motion_frames_reader_open(int fd, char *error, size_t error_capacity);
/* Unmaps a reader from motion_frames_reader_open (one of a client is freed with the client). */
void motion_frames_reader_close(motion_frames_reader *reader);

/* Up to `capacity` slots that changed since the frames already read, each once with its latest value.
 * Returns how many were filled; 0 when nothing changed since. Call until it returns less than asked. */
size_t motion_frames_reader_read(motion_frames_reader *reader, motion_frames_value *values, size_t capacity);
/* The newest frame read so far (0: none). */
uint64_t motion_frames_reader_frame(const motion_frames_reader *reader);
const motion_frames_header *motion_frames_reader_header(const motion_frames_reader *reader);
/* The slot's (runtime, target, property) for `tag`: 1, or 0 if not named yet (names come by events). */
int motion_frames_reader_name(const motion_frames_reader *reader, uint32_t slot, uint32_t tag, const char **runtime,
                              const char **target, const char **property);

/* Closes the connection and frees everything the client owns. NULL is allowed. */
void motion_client_close(motion_client *client);

#ifdef __cplusplus
}
#endif

#endif
