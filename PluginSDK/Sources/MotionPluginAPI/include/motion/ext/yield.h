/*
 * motion/ext/yield.h — plugin extension "motion.yield/1": let go of a claimed property
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_YIELD_H
#define MOTION_EXT_YIELD_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Plugin extension "motion.yield/1": the other half of "motion.claim/1". Return it from
 * `motion_plugin.get_extension(MOTION_YIELD_EXTENSION)`.
 */
#define MOTION_YIELD_EXTENSION "motion.yield/1"

typedef struct motion_yield {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Another performer of the same target claimed `property`: stop animating it now and
     * write nothing more to it; end that animation as any other (an "animation.ended" trace with reason
     * "interrupted", its token released). `instance` was made by `factory`, a factory of this image.
     * Called from inside the claimant's `add_plan` (possibly a performer of another plugin), or after the
     * frame in which a delayed plan of the claimant started. Also called on a performer that does not
     * animate `property` (every performer of the target hears of a claim): then drop any plan for it that
     * has not started yet, or do nothing.
     */
    void (*yield_property)(const motion_factory *factory, void *instance, motion_property property);
} motion_yield;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_YIELD_H */
