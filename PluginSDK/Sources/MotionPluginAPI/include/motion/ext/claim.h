/*
 * motion/ext/claim.h — host extension "motion.claim/1": one animation per property
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_CLAIM_H
#define MOTION_EXT_CLAIM_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Host extension "motion.claim/1": one animation per property. Two performers of one target (say a
 * Spring and then a Tween on "opacity") must not both drive a property: the newer plan wins. A performer
 * that starts animating a property claims it; the performer that animated it before is told to let go
 * through its plugin's "motion.yield/1" extension, if it has one. Negotiated by id: a host without it
 * returns NULL, and the plugin simply does not claim.
 */
#define MOTION_CLAIM_EXTENSION "motion.claim/1"

typedef struct motion_claim {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] `performer` starts animating `property` (a handle of its own target). If another
     * performer of the target claimed it before and is still alive, the host first calls that
     * performer's `yield_property` (so its "interrupted" trace comes before the claimant's own events);
     * then every other performer of the target that has "motion.yield/1" is told as well, so one holding
     * a plan for the property that still waits (a delay) drops it: the newest plan wins. A claim made
     * during a frame (a plan whose delay ended) is carried out when the frame is over.
     */
    void (*claim_property)(const motion_host *host, motion_performer_ref performer, motion_property property);
} motion_claim;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_CLAIM_H */
