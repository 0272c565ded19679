/* A curve plugin whose function declares a signature motiond cannot call. */
#include "motion_plugin.h"
static double wobble(double t) { return t; }
static const motion_function functions[] = {{.name = "wobble", .signature = "q(d)", .function = (void (*)(void))wobble}};
static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR, .id = "test.bad-curve", .version = "1", .build_tag = "c",
    .function_count = 1, .functions = functions,
};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
