/*
 * CurvesPlugin — timing functions as plain C functions, called by motiond through libffi (docs/vocabulary.md).
 * No glue: each function is listed with a signature string; 'd' is double, 'i' is int32_t.
 * Use from a Tween: "timing": {"function": "steps", "args": [4]}.
 */
#include <math.h>
#include <stdint.h>

#include "curves_plugin.h"

/* CSS steps(n, end): floor(t·n)/n, and 1 at t = 1. */
static double steps(double t, int32_t n) {
    if (n < 1) return t;
    if (t >= 1) return 1;
    if (t <= 0) return 0;
    return floor(t * n) / n;
}

/* Robert Penner's bounce-out. */
static double bounce_out(double t) {
    const double n = 7.5625, d = 2.75;
    if (t <= 0) return 0;
    if (t >= 1) return 1;
    if (t < 1 / d) return n * t * t;
    if (t < 2 / d) { t -= 1.5 / d; return n * t * t + 0.75; }
    if (t < 2.5 / d) { t -= 2.25 / d; return n * t * t + 0.9375; }
    t -= 2.625 / d;
    return n * t * t + 0.984375;
}

/* Elastic-out with the given period (0.3 is the classic value): overshoots, then settles at 1. */
static double elastic_out(double t, double period) {
    if (t <= 0) return 0;
    if (t >= 1) return 1;
    if (period <= 0) period = 0.3;
    const double pi = 3.14159265358979323846;
    return pow(2, -10 * t) * sin((t - period / 4) * (2 * pi) / period) + 1;
}

static const motion_function functions[] = {
    {.name = "steps", .signature = "d(di)", .function = (void (*)(void))steps},
    {.name = "bounceOut", .signature = "d(d)", .function = (void (*)(void))bounce_out},
    {.name = "elasticOut", .signature = "d(dd)", .function = (void (*)(void))elastic_out},
};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC,
    .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR,
    .id = "org.motiond.curves",
    .version = "1.0.0",
    .build_tag = "c",
    .factory_count = 0,
    .function_count = sizeof functions / sizeof functions[0],
    .factories = NULL,
    .functions = functions,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
