/*
 * motion/ext/gesture.h — host extension "motion.gesture/1": read a client's pointer gesture
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_GESTURE_H
#define MOTION_EXT_GESTURE_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Host extension "motion.gesture/1" (docs/vocabulary.md#interactions): clients stream pointer samples into a runtime with
 * `gesture.push`; a performer of that runtime reads a gesture's latest position, phase and velocity through
 * an interned handle, so interactions (drag, toss, pinch …) are plugins. Get it with
 * `host->get_extension(host, MOTION_GESTURE_EXTENSION)`; a host without it returns NULL.
 *
 * A performer that interned a gesture is also advanced with dt = 0 as soon as a client's samples for it
 * arrive (even without a token, in [control]), so it can apply them to its properties at once: the frame
 * carrying the effect goes out without waiting for the next tick. It may take a token then (to be
 * advanced every tick while the gesture runs) and emit plans.
 */
#define MOTION_GESTURE_EXTENSION "motion.gesture/1"

/** An interned gesture of the performer's runtime. Valid while the performer lives. */
typedef uint32_t motion_gesture_ref;
#define MOTION_INVALID_GESTURE 0xFFFFFFFFu

/** Phases of a gesture; NONE: no sample has arrived yet. */
#define MOTION_GESTURE_NONE 0u
#define MOTION_GESTURE_BEGAN 1u
#define MOTION_GESTURE_MOVED 2u
#define MOTION_GESTURE_ENDED 3u
#define MOTION_GESTURE_CANCELLED 4u

typedef struct motion_gesture_state {
    /** MOTION_GESTURE_*. */
    uint32_t phase;
    /** Coordinates in `position`, `origin` and `velocity` (1 or 2; 0 before the first sample). */
    uint32_t count;
    /** Counts `began`s: a new number is a new gesture. */
    uint64_t generation;
    /** The latest sample's position and time (seconds on CLOCK_MONOTONIC). */
    double position[2];
    double time;
    /** The position at `began`. */
    double origin[2];
    /**
     * Units per second. While the gesture runs, the tracker's current estimate; once it has ended, the
     * release velocity (0 after `cancelled`). The LSQ2 estimator of docs/vocabulary.md#interactions.
     */
    double velocity[2];
} motion_gesture_state;

typedef struct motion_gesture {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Interns the gesture `name` (borrowed, UTF-8) of the performer's runtime, whether or not a
     * client has pushed samples for it yet. Returns MOTION_INVALID_GESTURE for an empty name or an unknown
     * performer. Do this when a plan arrives.
     */
    motion_gesture_ref (*intern_gesture)(const motion_host *host, motion_performer_ref performer, const char *name);
    /**
     * [control, frame] Copies the gesture's state into `state` (`state_size` bytes: pass
     * sizeof(motion_gesture_state)). Returns MOTION_OK, or MOTION_ERROR for a handle this performer did
     * not intern.
     */
    int32_t (*read_gesture)(const motion_host *host, motion_performer_ref performer, motion_gesture_ref gesture,
                            motion_gesture_state *state, size_t state_size);
} motion_gesture;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_GESTURE_H */
