/* A plugin that needs a newer minor ABI than this host provides. */
#include "motion_plugin.h"
static const motion_plugin plugin = {.magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR + 1, .id = "test.future-minor", .version = "1"};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
