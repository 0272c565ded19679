/* The client's side of motion_frames.h: map a shared-memory subscription's region and read what changed. */
#define _GNU_SOURCE
#include "motion_client.h"
#include "frames_reader.h"
#include "json_scan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void reader_error(char *error, size_t capacity, const char *message) {
    if (error && capacity) snprintf(error, capacity, "%s", message);
}

static void unmap(motion_frames_reader *reader) {
    if (reader->base) munmap((void *)reader->base, reader->size);
    reader->base = NULL;
}

int frames_reader_map(motion_frames_reader *reader, int fd, char *error, size_t error_capacity) {
    struct stat status;
    if (fstat(fd, &status) != 0 || (size_t)status.st_size < sizeof(motion_frames_header)) {
        reader_error(error, error_capacity, "shm: the descriptor is not a frame region");
        close(fd);
        return -1;
    }
    size_t size = (size_t)status.st_size;
    const unsigned char *base = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        reader_error(error, error_capacity, "shm: cannot map the region");
        return -1;
    }
    const motion_frames_header *header = (const motion_frames_header *)base;
    /* Checked once, then kept: the reader never trusts offsets it has not bounded. */
    uint64_t slots_end = header->slots_offset + (uint64_t)header->slot_capacity * header->slot_size;
    uint64_t records_end = header->records_offset + (uint64_t)header->record_capacity * header->record_size;
    uint64_t changes_end = header->changes_offset + (uint64_t)header->change_capacity * sizeof(uint32_t);
    const char *problem = NULL;
    if (memcmp(header->magic, MOTION_FRAMES_MAGIC, 4) != 0) problem = "shm: no MOTF magic";
    else if (header->version_major != MOTION_FRAMES_VERSION_MAJOR) problem = "shm: unsupported major version";
    else if (header->header_size < sizeof(motion_frames_header) || header->slot_size < sizeof(motion_frames_slot) ||
             header->record_size < sizeof(motion_frames_record)) problem = "shm: sizes smaller than this header's";
    else if (header->slot_size != sizeof(motion_frames_slot) || header->record_size != sizeof(motion_frames_record))
        problem = "shm: a newer layout with larger slots (this reader needs motion_frames.h 1.0 sizes)";
    else if (header->record_capacity == 0 || (header->record_capacity & (header->record_capacity - 1)) ||
             header->change_capacity == 0 || (header->change_capacity & (header->change_capacity - 1)))
        problem = "shm: ring sizes are not powers of two";
    else if (slots_end > size || records_end > size || changes_end > size) problem = "shm: tables outside the region";
    if (problem) {
        reader_error(error, error_capacity, problem);
        munmap((void *)base, size);
        return -1;
    }
    uint32_t *seen = calloc(header->slot_capacity, sizeof *seen);
    uint32_t *changed = malloc((size_t)header->slot_capacity * sizeof *changed);
    if (!seen || !changed) {
        free(seen);
        free(changed);
        reader_error(error, error_capacity, "out of memory");
        munmap((void *)base, size);
        return -1;
    }
    unmap(reader);
    free(reader->seen);
    free(reader->changed);
    reader->base = base;
    reader->size = size;
    reader->header = header;
    reader->slots = (const motion_frames_slot *)(base + header->slots_offset);
    reader->records = (const motion_frames_record *)(base + header->records_offset);
    reader->changes = (const uint32_t *)(base + header->changes_offset);
    reader->slot_capacity = header->slot_capacity;
    reader->record_capacity = header->record_capacity;
    reader->change_capacity = header->change_capacity;
    reader->seen = seen;
    reader->changed = changed;
    reader->epoch = 0;
    reader->last_frame = 0;
    reader->changed_count = reader->changed_next = 0;
    reader->announced = 0;
    reader->named = 0;
    /* A new region (a restarted daemon) names its slots anew. */
    for (uint32_t slot = 0; slot < reader->name_capacity; slot++) {
        free(reader->names[slot].text);
        reader->names[slot].text = NULL;
    }
    return 0;
}

motion_frames_reader *motion_frames_reader_open(int fd, char *error, size_t error_capacity) {
    motion_frames_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        close(fd);
        reader_error(error, error_capacity, "out of memory");
        return NULL;
    }
    if (frames_reader_map(reader, fd, error, error_capacity) != 0) {
        free(reader);
        return NULL;
    }
    return reader;
}

void frames_reader_free(motion_frames_reader *reader) {
    if (!reader) return;
    unmap(reader);
    free(reader->seen);
    free(reader->changed);
    for (uint32_t slot = 0; slot < reader->name_capacity; slot++) free(reader->names[slot].text);
    free(reader->names);
    free(reader);
}

void motion_frames_reader_close(motion_frames_reader *reader) {
    if (reader && reader->client) return; /* owned by its client: freed by motion_client_close */
    frames_reader_free(reader);
}

const motion_frames_header *motion_frames_reader_header(const motion_frames_reader *reader) {
    return reader ? reader->header : NULL;
}

uint64_t motion_frames_reader_frame(const motion_frames_reader *reader) {
    return reader ? reader->last_frame : 0;
}

static void note(motion_frames_reader *reader, uint32_t slot) {
    if (slot >= reader->slot_capacity || reader->seen[slot] == reader->epoch) return;
    reader->seen[slot] = reader->epoch;
    reader->changed[reader->changed_count++] = slot;
}

/* Every used slot: the lists were lapped or a frame changed more than the ring holds. */
static void note_all(motion_frames_reader *reader) {
    uint32_t used = __atomic_load_n(&reader->header->slots_used, __ATOMIC_ACQUIRE);
    if (used > reader->slot_capacity) used = reader->slot_capacity;
    if (reader->client && used > reader->named) used = reader->named;
    for (uint32_t slot = 0; slot < used; slot++) note(reader, slot);
}

/* Collects the slots changed by frames last_frame+1 ... newest, each once. */
static void collect(motion_frames_reader *reader) {
    uint64_t newest = __atomic_load_n(&reader->header->frame, __ATOMIC_ACQUIRE);
    if (reader->client && newest > reader->announced) newest = reader->announced;
    reader->changed_count = reader->changed_next = 0;
    reader->direct_count = reader->direct_next = 0;
    if (newest == reader->last_frame) return;
    if (newest == reader->last_frame + 1) {
        /* One frame: its list names each slot once; read it in place. */
        const motion_frames_record *record = &reader->records[newest & (reader->record_capacity - 1)];
        if (__atomic_load_n(&record->frame, __ATOMIC_ACQUIRE) == newest) {
            uint64_t first = record->first_change;
            uint32_t count = record->change_count;
            __atomic_thread_fence(__ATOMIC_ACQUIRE);
            if (__atomic_load_n(&record->frame, __ATOMIC_RELAXED) == newest && count != MOTION_FRAMES_ALL_CHANGED &&
                count <= reader->change_capacity) {
                reader->direct_first = first;
                reader->direct_count = count;
                reader->last_frame = newest;
                return;
            }
        }
    }
    if (++reader->epoch == 0) {
        memset(reader->seen, 0, (size_t)reader->slot_capacity * sizeof *reader->seen);
        reader->epoch = 1;
    }
    int all = newest < reader->last_frame || newest - reader->last_frame >= reader->record_capacity;
    uint64_t mask = reader->change_capacity - 1;
    for (uint64_t frame = reader->last_frame + 1; !all && frame <= newest; frame++) {
        const motion_frames_record *record = &reader->records[frame & (reader->record_capacity - 1)];
        if (__atomic_load_n(&record->frame, __ATOMIC_ACQUIRE) != frame) { all = 1; break; }
        uint64_t first = record->first_change;
        uint32_t count = record->change_count;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&record->frame, __ATOMIC_RELAXED) != frame || count == MOTION_FRAMES_ALL_CHANGED ||
            count > reader->change_capacity) { all = 1; break; }
        for (uint32_t index = 0; index < count; index++) note(reader, reader->changes[(first + index) & mask]);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        uint64_t written = __atomic_load_n(&reader->header->changes_written, __ATOMIC_RELAXED);
        if (written > first + reader->change_capacity) {
            all = 1; /* the list was overwritten while read: what was noted stays, the rest comes from a scan */
        }
    }
    if (all) note_all(reader);
    reader->last_frame = newest;
}

/* A consistent copy of a slot straight into `out` (one copy, no intermediate). */
static inline void read_slot(const motion_frames_slot *source, uint32_t slot, motion_frames_value *out) {
    for (;;) {
        uint32_t before = __atomic_load_n(&source->sequence, __ATOMIC_ACQUIRE);
        if (before & 1u) continue;
        out->slot = slot;
        out->tag = source->tag;
        uint32_t components = source->components;
        out->components = components;
        /* Only the components in use (entries past them are left as they were). */
        switch (components) {
        case 1: out->value[0] = source->value[0]; out->velocity[0] = source->velocity[0]; break;
        case 2: memcpy(out->value, source->value, 16); memcpy(out->velocity, source->velocity, 16); break;
        case 3: memcpy(out->value, source->value, 24); memcpy(out->velocity, source->velocity, 24); break;
        default: memcpy(out->value, source->value, sizeof out->value + sizeof out->velocity); break;
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&source->sequence, __ATOMIC_RELAXED) == before) break;
    }
    if (out->components > MOTION_FRAMES_COMPONENTS) out->components = MOTION_FRAMES_COMPONENTS;
}

size_t motion_frames_reader_read(motion_frames_reader *reader, motion_frames_value *values, size_t capacity) {
    if (!reader || !reader->base) return 0;
    if (reader->changed_next == reader->changed_count && reader->direct_next == reader->direct_count) collect(reader);
    size_t count = 0;
    if (reader->direct_next < reader->direct_count) {
        uint64_t mask = reader->change_capacity - 1, first = reader->direct_first;
        uint32_t end = reader->direct_count, next = reader->direct_next;
        if (end - next > capacity) end = next + (uint32_t)capacity;
        /* Locals: the copies into `values` cannot be taken to change them. */
        const uint32_t *changes = reader->changes, slot_capacity = reader->slot_capacity;
        const motion_frames_slot *slots = reader->slots;
        for (; next < end; next++) {
            uint32_t slot = changes[(first + next) & mask];
            if (slot >= slot_capacity) continue;
            /* The slot some updates ahead is on its way from the writer's core meanwhile. */
            uint32_t ahead = changes[(first + next + 32) & mask];
            if (ahead < slot_capacity) {
                __builtin_prefetch(&slots[ahead]);
                __builtin_prefetch((const char *)&slots[ahead] + 64);
            }
            read_slot(&slots[slot], slot, &values[count++]);
        }
        reader->direct_next = next;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&reader->header->changes_written, __ATOMIC_RELAXED) > first + reader->change_capacity) {
            /* Lapped while read: the slots are given again from a scan (some twice, all with their latest). */
            reader->direct_count = reader->direct_next = 0;
            reader->changed_count = reader->changed_next = 0;
            if (++reader->epoch == 0) { memset(reader->seen, 0, (size_t)reader->slot_capacity * sizeof *reader->seen); reader->epoch = 1; }
            note_all(reader);
        }
        return count;
    }
    while (count < capacity && reader->changed_next < reader->changed_count) {
        uint32_t slot = reader->changed[reader->changed_next++];
        read_slot(&reader->slots[slot], slot, &values[count++]);
    }
    return count;
}

int motion_frames_reader_name(const motion_frames_reader *reader, uint32_t slot, uint32_t tag, const char **runtime,
                              const char **target, const char **property) {
    if (!reader || slot >= reader->name_capacity || !reader->names[slot].text || reader->names[slot].tag != tag) return 0;
    const char *text = reader->names[slot].text;
    if (runtime) *runtime = text;
    text += strlen(text) + 1;
    if (target) *target = text;
    text += strlen(text) + 1;
    if (property) *property = text;
    return 1;
}

/* A `slots` event: {"slot":S,"tag":G,"runtime":…,"target":…,"property":…} entries. */
int frames_reader_apply_names(motion_frames_reader *reader, const char *line, const char *end) {
    json_span slots, entry, field;
    if (!json_member(line, end, "slots", &slots) || slots.start[0] != '[') return -1;
    const char *cursor = slots.start + 1;
    while (json_next_element(&cursor, slots.end, &entry)) {
        if (!json_member(entry.start, entry.end, "slot", &field)) continue;
        int slot = json_int(field);
        if (slot < 0 || (uint32_t)slot >= reader->slot_capacity) continue;
        if ((uint32_t)slot >= reader->name_capacity) {
            uint32_t capacity = reader->name_capacity * 2 + 1024;
            if (capacity <= (uint32_t)slot) capacity = (uint32_t)slot + 1;
            if (capacity > reader->slot_capacity) capacity = reader->slot_capacity;
            struct frames_slot_name *grown = realloc(reader->names, capacity * sizeof *grown);
            if (!grown) return -1;
            memset(grown + reader->name_capacity, 0, (capacity - reader->name_capacity) * sizeof *grown);
            reader->names = grown;
            reader->name_capacity = capacity;
        }
        static const char *const keys[3] = {"runtime", "target", "property"};
        json_span spans[3];
        size_t bytes = 0;
        int complete = 1;
        for (int key = 0; key < 3; key++) {
            if (!json_member(entry.start, entry.end, keys[key], &spans[key]) || spans[key].start[0] != '"') complete = 0;
            else bytes += (size_t)(spans[key].end - spans[key].start) + 1;
        }
        if (!complete) continue;
        char *text = malloc(bytes), *cursor_out = text;
        if (!text) return -1;
        for (int key = 0; key < 3; key++) {
            cursor_out += json_decode_string(spans[key], cursor_out);
            *cursor_out++ = 0;
        }
        free(reader->names[slot].text);
        reader->names[slot].text = text;
        if ((uint32_t)slot >= reader->named) reader->named = (uint32_t)slot + 1;
        reader->names[slot].tag = json_member(entry.start, entry.end, "tag", &field) ? (uint32_t)json_number(field) : 0;
    }
    return 0;
}
