/* A plugin whose constructor aborts as soon as it is loaded: the probe must take the hit, not motiond. */
#include <stdlib.h>
#include "motion_plugin.h"

__attribute__((constructor)) static void explode(void) { abort(); }

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR, .id = "test.abort", .version = "1", .build_tag = "c",
};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
