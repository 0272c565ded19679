/*
 * motion/ext/batch.h — plugin extension "motion.batch/1": advance many performers in one call
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_BATCH_H
#define MOTION_EXT_BATCH_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Plugin extension "motion.batch/1" (ABI 1.1): advance many performers in one call. Without it the host
 * calls `motion_factory.advance` once per performer per tick; with it, once per factory per tick, so a
 * plugin can keep its performers' state in contiguous arrays and step them in one loop.
 * Return it from `motion_plugin.get_extension(MOTION_BATCH_EXTENSION)`.
 */
#define MOTION_BATCH_EXTENSION "motion.batch/1"

typedef struct motion_batch {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [frame] Advances `count` instances by `dt` seconds: the same as calling `factory->advance` on each of
     * them in turn. Every instance was made by `factory` (a continuous factory of this image), holds at
     * least one token, and appears once. `instances` is borrowed for the call. Host services may be used
     * as from `advance`; a token taken during the call is advanced from the next tick.
     */
    void (*advance_batch)(const motion_factory *factory, void *const *instances, size_t count, double dt);
} motion_batch;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_BATCH_H */
