/* A plugin whose init reports failure, saying why in the log: it must not be registered, and the reason
 * it logged is the rejection's. */
#include "motion_plugin.h"
static int32_t refuse(const motion_host *host) {
    host->log(host, 0, MOTION_LOG_INFO, "looking for a display");
    host->log(host, 0, MOTION_LOG_ERROR, "no display: cannot open /dev/dri/card0");
    return MOTION_ERROR;
}
static const motion_plugin plugin = {.magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = 1, .abi_minor = 0, .id = "test.init-fails", .version = "1", .init = refuse};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
