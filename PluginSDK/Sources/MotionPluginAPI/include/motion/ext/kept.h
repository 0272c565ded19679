/*
 * motion/ext/kept.h — plugin extension "motion.kept/1": write the values an advance kept
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_KEPT_H
#define MOTION_EXT_KEPT_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Plugin extension "motion.kept/1": the other half of the host's "motion.unread/1" (motion/ext/unread.h).
 * Return it from `motion_plugin.get_extension(MOTION_KEPT_EXTENSION)`, together with "motion.batch/1":
 * only factories advanced in batches may keep (`writes_unread` answers 0 inside any other call). A plugin
 * without it must write every value: the host can ask only a plugin with it for what it kept.
 *
 * The contract, for a plugin that keeps the values of an advance in which `writes_unread` was nonzero:
 * - `write_kept` writes the current value and velocity of every property whose write was kept, as the
 *   last advance would have written them (the same numbers, not stepped again). The host calls it (or
 *   `write_kept_some` for the properties concerned) before `yield_property` and before `destroy`, so a
 *   yielded or destroyed performer writes nothing more;
 * - an animation that ends on the plugin's own (at rest, removed, replaced) has its last value written
 *   as it ends: the host cannot ask for it once the animation is gone;
 * - writes made inside `write_kept` make no frame (no subscriber read those properties at that tick),
 *   and do not replace a value written to the property since the advance that kept it (a newer plan's
 *   start, a Set): write nothing else from there.
 */
#define MOTION_KEPT_EXTENSION "motion.kept/1"

typedef struct motion_kept {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control, frame] Write now, through `host`'s `write_property` or "motion.properties/1", every value
     * that `factory`'s performers of `host` kept since they last wrote it. The host calls it before anything
     * reads a property after an advance in which `writes_unread` was nonzero: a request, a frame, or a
     * plugin's `read_property` (possibly from inside this plugin's own `advance_batch`, between its
     * performers: write what the performers hold at that moment). Writes nothing when nothing was kept.
     */
    void (*write_kept)(const motion_factory *factory, const motion_host *host);
    /**
     * [control, frame] The same for the `n` properties in `handles` only: write what `factory`'s performers
     * of `host` kept for those of them they animate (writing more, up to all of them as `write_kept` does,
     * is allowed). The host calls it instead of `write_kept` when it reads one property or a few (another
     * performer's `read_property`, a claim, a performer that goes), so that such a read costs what it
     * reads, not a write of every kept value; a host that reads many calls `write_kept`. May be NULL. It
     * was appended after `write_kept`: a table of the earlier size (16 bytes) is accepted without it.
     */
    void (*write_kept_some)(const motion_factory *factory, const motion_host *host, const uint32_t *handles, size_t n);
} motion_kept;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_KEPT_H */
