/*
 * motion/ext/curves.h — host extension "motion.curves/1": timing functions through libffi
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_CURVES_H
#define MOTION_EXT_CURVES_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Host extension "motion.curves/1": timing functions that plugins export (`motion_plugin.functions`),
 * called by the host through libffi. Get it with `host->get_extension(host, MOTION_CURVES_EXTENSION)`.
 * A curve is bound to its arguments once, when a plan is added; evaluating it is then one call per sample.
 */
#define MOTION_CURVES_EXTENSION "motion.curves/1"

typedef uint64_t motion_curve;

typedef struct motion_curves {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Binds the function `name` (borrowed) to `arguments` (the values after t, borrowed) and
     * returns a curve, or 0 with a NUL-terminated message in `error` when there is no such function or
     * the arguments do not match its signature.
     */
    motion_curve (*bind)(const motion_host *host, const char *name, const double *arguments,
                         uint32_t argument_count, char *error, size_t error_capacity);
    /** [control, frame] f(t, arguments...). Returns t unchanged for an unknown curve. */
    double (*evaluate)(const motion_host *host, motion_curve curve, double t);
    /** [control, frame] The curve is no longer used. */
    void (*release)(const motion_host *host, motion_curve curve);
} motion_curves;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_CURVES_H */
