/* A plugin built for a future major ABI. */
#include "motion_plugin.h"
static const motion_plugin plugin = {.magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = 2, .abi_minor = 0, .id = "test.future", .version = "1"};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
