/*
 * motion_frames.h — the layout of motiond's shared-memory frame channel (docs/clients.md), version 1.0.
 *
 * `subscribe {"streams":["frames"],"transport":"shm"}` answers with a memfd passed over the socket
 * (SCM_RIGHTS, with the reply line). Map it read-only (PROT_READ, MAP_SHARED) and check the header:
 * `magic` is "MOTF", `version_major` is MOTION_FRAMES_VERSION_MAJOR, and header_size / slot_size /
 * record_size are at least this header's sizes (a later minor version only appends members).
 *
 * The region holds
 *   - a table of property slots: one per (runtime, target, property) the subscription has seen, its latest
 *     value and velocity, written under a seqlock (`sequence` odd while the daemon writes it);
 *   - a ring of frame records: per frame its number, time and the positions of its changed slots in
 *   - a ring of changed-slot indices.
 * The daemon writes and never waits for a reader; a reader never blocks the daemon. A reader that falls
 * more than a ring behind misses only the lists, never values: it reads every used slot instead (each
 * holds its latest value — conflation is free).
 *
 * On the socket, in order: `{"event":"slots","sub":N,"slots":[{"slot":S,"tag":G,"runtime":…,"target":…,
 * "property":…},…]}` names slots when first used (a slot re-used for another property gets a new `tag`,
 * also written in the slot; a slot whose property went away — its runtime destroyed, its target ended —
 * is written with 0 components and a new tag that no `slots` event names, and listed as changed: a slot
 * counts only while its tag is the one its naming gave), then `{"event":"frame","sub":N,"seq":…,"t":…,"dropped":0,"shm":F}`
 * announces that frame F is published (`frame` in the header is F, its record is in the ring).
 *
 * When the subscription ends (unsubscribe, or its connection closes) the daemon releases the region's
 * memory: a reader that keeps its descriptor then reads zeros (`magic` no longer "MOTF").
 *
 * Byte order and alignment are the host's (the memfd never leaves the machine). All offsets are from the
 * start of the region. Fields marked [atomic] are written with release and must be read with acquire.
 */
#ifndef MOTION_FRAMES_H
#define MOTION_FRAMES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MOTION_FRAMES_MAGIC "MOTF"
#define MOTION_FRAMES_VERSION_MAJOR 1
#define MOTION_FRAMES_VERSION_MINOR 0
/* Components of a value (and of a velocity) a slot holds. */
#define MOTION_FRAMES_COMPONENTS 4
/* A record's change_count when its frame changed more slots than the change ring holds: read every slot. */
#define MOTION_FRAMES_ALL_CHANGED UINT32_MAX

typedef struct motion_frames_header {
    char magic[4];            /* "MOTF" */
    uint16_t version_major;
    uint16_t version_minor;
    uint32_t header_size;     /* sizeof(motion_frames_header) of the writer */
    uint32_t slot_size;       /* sizeof(motion_frames_slot) of the writer */
    uint32_t record_size;     /* sizeof(motion_frames_record) of the writer */
    uint32_t slot_capacity;   /* slots in the table */
    uint32_t record_capacity; /* records in the frame ring (a power of two) */
    uint32_t change_capacity; /* slot indices in the change ring (a power of two) */
    uint64_t slots_offset;
    uint64_t records_offset;
    uint64_t changes_offset;
    uint64_t total_size;      /* bytes of the region */
    uint64_t frame;           /* [atomic] the last frame published; 0 before the first */
    uint64_t changes_written; /* [atomic] change-ring positions ever written (or being written): a list
                                 whose first_change + change_capacity < this after you copied it was lapped */
    uint32_t slots_used;      /* [atomic] slots 0 ..< slots_used have been named */
    uint32_t flags;           /* [atomic] MOTION_FRAMES_FULL once a property found no free slot */
    uint8_t reserved[40];     /* zero; later minor versions may use them */
} motion_frames_header;       /* 128 bytes */

#define MOTION_FRAMES_FULL 1u

typedef struct motion_frames_record {
    uint64_t frame;           /* [atomic] the frame it describes (a reader checks it before and after) */
    uint64_t first_change;    /* position in the change ring: index = position % change_capacity */
    uint32_t change_count;    /* or MOTION_FRAMES_ALL_CHANGED */
    uint32_t dropped;         /* values written more than once since the subscriber's previous frame */
    double time;              /* daemon uptime, seconds (`t` of a JSON frame) */
    double present;           /* display-timed: CLOCK_MONOTONIC seconds the values are for; else 0 */
} motion_frames_record;       /* 40 bytes */

typedef struct motion_frames_slot {
    uint32_t sequence;        /* [atomic] seqlock: odd while written; read it, copy, read it again */
    uint32_t tag;             /* which naming of this slot the value belongs to (see "slots" events) */
    uint32_t components;      /* 1 ... MOTION_FRAMES_COMPONENTS; 0: its property went away */
    uint32_t reserved;
    double value[MOTION_FRAMES_COMPONENTS];
    double velocity[MOTION_FRAMES_COMPONENTS];
} motion_frames_slot;         /* 80 bytes */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(motion_frames_header) == 128, "motion_frames_header is 128 bytes");
_Static_assert(sizeof(motion_frames_record) == 40, "motion_frames_record is 40 bytes");
_Static_assert(sizeof(motion_frames_slot) == 80, "motion_frames_slot is 80 bytes");
#endif

/*
 * A consistent copy of one slot (C11 atomics or GCC builtins; any language with acquire loads can do the
 * same). Returns 1 with *out filled, 0 if the daemon kept writing it (try again).
 */
static inline int motion_frames_slot_read(const motion_frames_slot *slot, motion_frames_slot *out) {
    uint32_t before = __atomic_load_n(&slot->sequence, __ATOMIC_ACQUIRE);
    if (before & 1u) return 0;
    *out = *slot;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&slot->sequence, __ATOMIC_RELAXED) == before;
}

/* The writer's side, used by motiond (the daemon is the only writer; clients only read). */
typedef struct motion_frames_writer {
    motion_frames_header *header;
    motion_frames_slot *slots;
    motion_frames_record *records;
    uint32_t *changes;
    int reader_fd;   /* read-only, the one passed to the client (the daemon keeps only the mapping) */
    /* The writer's own copies: it never trusts what is in the shared region. */
    uint32_t slot_capacity, record_capacity, change_capacity;
    uint64_t size, frame, building_first;
    uint32_t building_count;
    /* Each slot's seqlock as the writer last left it (even): read here, not from the shared line, so that
     * a slot's write begins with no load from a line the reader's core may hold. */
    uint32_t *sequences;
} motion_frames_writer;

/* Creates a sealed-size memfd of `slot_capacity` slots (and rings sized from it), mapped read-write. 0 on
 * success; -1 with errno. */
int motion_frames_writer_create(motion_frames_writer *writer, uint32_t slot_capacity);
/* Releases the region's memory (a reader still holding its descriptor reads zeros) and unmaps it. */
void motion_frames_writer_destroy(motion_frames_writer *writer);
/* Writes one slot's value and velocity under its seqlock and lists it as changed in the frame being built. */
void motion_frames_writer_put(motion_frames_writer *writer, uint32_t slot, uint32_t tag, const double *value,
                              const double *velocity, uint32_t components);
/* Asks for `slot`'s lines, and `source` (the value about to be put there): the daemon calls it some slots
 * ahead, so that the lines of several slots are on their way at once (BENCHMARKS.md, shared memory on
 * Intel: the tick's p50 at 250,000 springs 20-25 % shorter). */
static inline void motion_frames_writer_prefetch(const motion_frames_writer *writer, uint32_t slot, const void *source) {
    if (slot >= writer->slot_capacity) return;
    const char *line = (const char *)&writer->slots[slot];
    /* For reading (PREFETCHW, for owning, was measured slower here: BENCHMARKS.md, shared memory on Intel). */
    __builtin_prefetch(line, 1, 3);
    __builtin_prefetch(line + sizeof(motion_frames_slot) - 1, 1, 3);
    __builtin_prefetch(source, 0, 3);
}
/* Names slots 0 ..< used as in use. */
void motion_frames_writer_set_used(motion_frames_writer *writer, uint32_t used);
void motion_frames_writer_set_full(motion_frames_writer *writer);
/* Publishes the frame built since the last publish: its record, then `frame`. Returns the frame number. */
uint64_t motion_frames_writer_publish(motion_frames_writer *writer, double time, double present, uint32_t dropped);

#ifdef __cplusplus
}
#endif

#endif
