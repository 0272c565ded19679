/* Internal to libmotion-client: the reader's state and what motion_client.c does with it. */
#ifndef MOTION_FRAMES_READER_INTERNAL_H
#define MOTION_FRAMES_READER_INTERNAL_H

#include "motion_client.h"

#include <stddef.h>
#include <stdint.h>

struct frames_slot_name {
    char *text; /* "runtime\0target\0property\0" */
    uint32_t tag;
};

struct motion_frames_reader {
    motion_client *client; /* the client that owns it, or NULL (opened from a descriptor) */
    int sub;
    const unsigned char *base;
    size_t size;
    const motion_frames_header *header;
    const motion_frames_slot *slots;
    const motion_frames_record *records;
    const uint32_t *changes;
    uint32_t slot_capacity, record_capacity, change_capacity;
    uint64_t last_frame;
    /* Slots changed since the last frame handed out, each once (seen[slot] == epoch), and how far
     * motion_frames_reader_read got through them. */
    uint32_t *seen, epoch;
    uint32_t *changed;
    size_t changed_count, changed_next;
    /* One frame behind (the usual case): its list is read straight from the change ring. */
    uint64_t direct_first;
    uint32_t direct_count, direct_next;
    struct frames_slot_name *names;
    uint32_t name_capacity;
    /* A client's reader reads no further than the frames announced on its socket, and scans no further
     * than the slots named there, so that every value it hands out has its name. */
    uint64_t announced;
    uint32_t named;
};

/* Internal: prefixed and hidden, as json_scan.h's. */
#define frames_reader_map motion_client_internal_frames_reader_map
#define frames_reader_apply_names motion_client_internal_frames_reader_apply_names
#define frames_reader_free motion_client_internal_frames_reader_free
#pragma GCC visibility push(hidden)

/* Maps `fd` (taking it) into `reader`, replacing any earlier region. 0 on success. */
int frames_reader_map(motion_frames_reader *reader, int fd, char *error, size_t error_capacity);
int frames_reader_apply_names(motion_frames_reader *reader, const char *line, const char *end);
void frames_reader_free(motion_frames_reader *reader);

#pragma GCC visibility pop

#endif
