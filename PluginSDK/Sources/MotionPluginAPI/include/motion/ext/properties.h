/*
 * motion/ext/properties.h — host extension "motion.properties/1": many property writes in one call
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_PROPERTIES_H
#define MOTION_EXT_PROPERTIES_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Host extension "motion.properties/1" (ABI 1.1): many property writes in one call. Get it with
 * `host->get_extension(host, MOTION_PROPERTIES_EXTENSION)`; a host without it returns NULL, and the plugin
 * calls `write_property` for each instead.
 */
#define MOTION_PROPERTIES_EXTENSION "motion.properties/1"

typedef struct motion_properties {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control, frame] The same as `n` calls of `write_property`: property `properties[i]` gets `counts[i]`
     * components from `values + i * MOTION_MAX_COMPONENTS` and `velocities + i * MOTION_MAX_COMPONENTS`
     * (`velocities` may be NULL: zero velocity). All arrays are borrowed for the call.
     */
    void (*write_properties)(const motion_host *host, const motion_property *properties, const uint8_t *counts,
                             const double *values, const double *velocities, size_t n);
} motion_properties;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_PROPERTIES_H */
