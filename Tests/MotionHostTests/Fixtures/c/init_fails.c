/* A plugin whose init reports failure: it must not be registered. */
#include "motion_plugin.h"
static int32_t refuse(const motion_host *host) { (void)host; return MOTION_ERROR; }
static const motion_plugin plugin = {.magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = 1, .abi_minor = 0, .id = "test.init-fails", .version = "1", .init = refuse};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
