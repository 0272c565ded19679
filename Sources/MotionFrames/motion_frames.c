/* The daemon's side of motion_frames.h: one writer per shared-memory subscription. */
#define _GNU_SOURCE
#include "motion_frames.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint32_t power_of_two_at_least(uint64_t value) {
    uint32_t result = 1;
    while (result < value && result < (1u << 30)) result <<= 1;
    return result;
}

int motion_frames_writer_create(motion_frames_writer *writer, uint32_t slot_capacity) {
    memset(writer, 0, sizeof *writer);
    writer->reader_fd = -1;
    if (slot_capacity == 0) slot_capacity = 1;
    uint32_t record_capacity = 256; /* two seconds at 120 Hz */
    uint32_t change_capacity = power_of_two_at_least((uint64_t)slot_capacity * 4 < 4096 ? 4096 : (uint64_t)slot_capacity * 4);
    uint64_t slots_offset = sizeof(motion_frames_header);
    uint64_t records_offset = slots_offset + (uint64_t)slot_capacity * sizeof(motion_frames_slot);
    uint64_t changes_offset = records_offset + (uint64_t)record_capacity * sizeof(motion_frames_record);
    uint64_t size = changes_offset + (uint64_t)change_capacity * sizeof(uint32_t);
    size = (size + 4095) & ~(uint64_t)4095;

    int fd = memfd_create("motiond-frames", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    /* The client's descriptor opens the same memory read-only: it cannot map it writable. */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int reader_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (reader_fd < 0) {
        int saved = errno;
        munmap(base, size);
        close(fd);
        errno = saved;
        return -1;
    }
    /* The mapping keeps the memory: the daemon holds no descriptor per subscription once it is sent. */
    close(fd);
    /* calloc of a large table maps zero pages: only the slots in use cost memory. */
    uint32_t *sequences = calloc(slot_capacity, sizeof(uint32_t));
    if (!sequences) {
        munmap(base, size);
        close(reader_fd);
        errno = ENOMEM;
        return -1;
    }
    motion_frames_header *header = base;
    memcpy(header->magic, MOTION_FRAMES_MAGIC, 4);
    header->version_major = MOTION_FRAMES_VERSION_MAJOR;
    header->version_minor = MOTION_FRAMES_VERSION_MINOR;
    header->header_size = sizeof(motion_frames_header);
    header->slot_size = sizeof(motion_frames_slot);
    header->record_size = sizeof(motion_frames_record);
    header->slot_capacity = slot_capacity;
    header->record_capacity = record_capacity;
    header->change_capacity = change_capacity;
    header->slots_offset = slots_offset;
    header->records_offset = records_offset;
    header->changes_offset = changes_offset;
    header->total_size = size;

    writer->header = header;
    writer->slots = (motion_frames_slot *)((char *)base + slots_offset);
    writer->records = (motion_frames_record *)((char *)base + records_offset);
    writer->changes = (uint32_t *)((char *)base + changes_offset);
    writer->reader_fd = reader_fd;
    writer->sequences = sequences;
    writer->slot_capacity = slot_capacity;
    writer->record_capacity = record_capacity;
    writer->change_capacity = change_capacity;
    writer->size = size;
    return 0;
}

void motion_frames_writer_destroy(motion_frames_writer *writer) {
    if (writer->header) {
        /* The pages are the daemon's to pay for (its memory cgroup), not freed while a client keeps its
         * descriptor: released here, whatever the client holds. */
        madvise(writer->header, writer->size, MADV_REMOVE);
        munmap(writer->header, writer->size);
    }
    if (writer->reader_fd >= 0) close(writer->reader_fd);
    free(writer->sequences);
    memset(writer, 0, sizeof *writer);
    writer->reader_fd = -1;
}

void motion_frames_writer_put(motion_frames_writer *writer, uint32_t index, uint32_t tag, const double *value,
                              const double *velocity, uint32_t components) {
    if (index >= writer->slot_capacity) return;
    if (components > MOTION_FRAMES_COMPONENTS) components = MOTION_FRAMES_COMPONENTS;
    motion_frames_slot *slot = &writer->slots[index];
    uint32_t sequence = writer->sequences[index] | 1u; /* odd while written */
    __atomic_store_n(&slot->sequence, sequence, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    slot->tag = tag;
    slot->components = components;
    for (uint32_t component = 0; component < MOTION_FRAMES_COMPONENTS; component++) {
        slot->value[component] = component < components ? value[component] : 0;
        slot->velocity[component] = component < components && velocity ? velocity[component] : 0;
    }
    __atomic_store_n(&slot->sequence, sequence + 1, __ATOMIC_RELEASE);
    writer->sequences[index] = sequence + 1;

    if (writer->building_count < writer->change_capacity) {
        uint64_t position = writer->building_first + writer->building_count;
        /* Announced before the entry is overwritten: a reader of an older frame that copied this entry
         * sees, when it checks afterwards, that its list was lapped. */
        __atomic_store_n(&writer->header->changes_written, position + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        writer->changes[position & (writer->change_capacity - 1)] = index;
    }
    writer->building_count++;
}

void motion_frames_writer_set_used(motion_frames_writer *writer, uint32_t used) {
    if (used > writer->slot_capacity) used = writer->slot_capacity;
    __atomic_store_n(&writer->header->slots_used, used, __ATOMIC_RELEASE);
}

void motion_frames_writer_set_full(motion_frames_writer *writer) {
    __atomic_store_n(&writer->header->flags, MOTION_FRAMES_FULL, __ATOMIC_RELEASE);
}

uint64_t motion_frames_writer_publish(motion_frames_writer *writer, double time, double present, uint32_t dropped) {
    uint64_t frame = ++writer->frame;
    uint32_t count = writer->building_count;
    uint64_t first = writer->building_first;
    int overflowed = count > writer->change_capacity;
    uint64_t written = first + (overflowed ? writer->change_capacity : count);
    motion_frames_record *record = &writer->records[frame & (writer->record_capacity - 1)];
    __atomic_store_n(&record->frame, 0, __ATOMIC_RELAXED); /* being rewritten */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    record->first_change = first;
    record->change_count = overflowed ? MOTION_FRAMES_ALL_CHANGED : count;
    record->dropped = dropped;
    record->time = time;
    record->present = present;
    __atomic_store_n(&record->frame, frame, __ATOMIC_RELEASE);
    __atomic_store_n(&writer->header->frame, frame, __ATOMIC_RELEASE);
    writer->building_first = written;
    writer->building_count = 0;
    return frame;
}
