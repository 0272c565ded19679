/*
 * motion/ext/migrate.h — plugin extension "motion.migrate/1": hot swap with state
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_MIGRATE_H
#define MOTION_EXT_MIGRATE_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Plugin extension "motion.migrate/1": hot swap with state. When a new build of a plugin replaces a
 * running one, the host moves each running performer to the new build at a tick boundary: it exports the
 * old instance's state as JSON, creates an instance with the new build's factory for the same plan type
 * and target (under a new performer ref: the trace's `performer.migrated {performer, from}` pairs them;
 * property handles stay valid), and imports the state into it. Both builds must offer the extension;
 * without it, running performers finish on the old build and new plans go to the new one.
 * Return it from `motion_plugin.get_extension(MOTION_MIGRATE_EXTENSION)`.
 */
#define MOTION_MIGRATE_EXTENSION "motion.migrate/1"

typedef struct motion_migrate {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Writes the instance's state (UTF-8 JSON, no NUL needed) into `buffer` of `capacity` bytes
     * and returns its length. If the length exceeds `capacity` (the first buffer is 4 KiB), the host calls
     * again with a buffer at least that large; a state over 16 MiB is not exported. Returns 0 if the
     * instance cannot be exported: that performer then stays on this build and finishes here, and the
     * others move.
     * `instance` was made by `factory`, a factory of this plugin image.
     */
    size_t (*export_state)(const motion_factory *factory, void *instance, char *buffer, size_t capacity);
    /**
     * [control] Restores state that an earlier build's `export_state` wrote (`length` bytes, borrowed,
     * followed by a NUL) into `instance`, freshly created by `factory` (of this image) and given no plan
     * yet. It continues where the old instance was: it takes tokens (token_generate) for what is still
     * running and writes no jump. Returns MOTION_OK, or MOTION_ERROR with a NUL-terminated message in
     * `error` (capacity bytes); the host then destroys the instance and keeps the old build running.
     */
    int32_t (*import_state)(const motion_factory *factory, void *instance, const char *json, size_t length,
                            char *error, size_t error_capacity);
} motion_migrate;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_MIGRATE_H */
