/*
 * motion/ext/unread.h — host extension "motion.unread/1": whether anyone reads this tick's values
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_UNREAD_H
#define MOTION_EXT_UNREAD_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Host extension "motion.unread/1": lets a plugin that steps many performers in one loop skip writing
 * values that no one will read. Get it with `host->get_extension(host, MOTION_UNREAD_EXTENSION)`; a host
 * without it returns NULL (then write every value, as always).
 *
 * Writing values is most of a tick's cost once the maths is vectorised: the host's property store takes a
 * cache line per property. With no frame subscriber, nothing reads that store until someone asks (a state
 * request, another performer's `read_property`, a subscriber that arrives). The pair of extensions lets
 * the host ask for the values only then: it says, during an advance, that the values will be unread
 * (`writes_unread`), and the plugin, which keeps them in its own state anyway, writes them when the host
 * calls its "motion.kept/1" `write_kept` (motion/ext/kept.h). Only a plugin with "motion.kept/1" may keep.
 */
#define MOTION_UNREAD_EXTENSION "motion.unread/1"

typedef struct motion_unread {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [frame] Nonzero when no one will read the values that the advance in progress writes before the host
     * calls "motion.kept/1" `write_kept`, but those of `read_properties`: a plugin with that extension may
     * then keep them instead of writing them. 0 outside an advance and when someone may read any value (a
     * frame subscriber without a filter). Ask once per `advance_batch`: the answer holds for the call.
     */
    int (*writes_unread)(const motion_host *host);
    /**
     * [frame] The exceptions, while `writes_unread` is nonzero: NULL when there are none, else a byte per
     * property handle, `*count` of them, nonzero for a property someone reads at every tick (a subscriber
     * filtered to a few targets): write those as always. Handles at or past `*count` are not read. Valid
     * until the advance in progress returns; made before it, so a property first animated during it (a
     * plan whose delay ended) may not be flagged until the next tick: write such first steps as always.
     */
    const uint8_t *(*read_properties)(const motion_host *host, size_t *count);
    /**
     * [frame] The same exceptions as a list: the handles whose `read_properties` byte is nonzero, `*count`
     * of them, in no particular order (a property first animated during the advance may be missing, as
     * there). NULL when `read_properties` is NULL or the host does not offer the list (then use
     * `read_properties`). Valid until the advance in progress returns.
     * A plugin whose lanes far outnumber the list finds the few it must write from here, so that a
     * subscriber filtered to a few targets costs what it reads, not a look at every moving lane.
     * Appended after the first two: a host built with an older header has a shorter table, so check that
     * `struct_size` covers this member before calling it.
     */
    const uint32_t *(*read_property_list)(const motion_host *host, size_t *count);
} motion_unread;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_UNREAD_H */
