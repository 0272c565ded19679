/* A plugin whose descriptor starts with the wrong magic: the loader must refuse it before any call. */
#include "motion_plugin.h"
static const motion_plugin plugin = {.magic = 0xDEADBEEFu, .struct_size = sizeof(motion_plugin), .abi_major = 1, .abi_minor = 0, .id = "test.bad", .version = "1"};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
