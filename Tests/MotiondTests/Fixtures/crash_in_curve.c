/*
 * A plugin with one timing function, `crashOut`, that crashes past the middle of a tween: the crash is
 * this plugin's, not the Tween plugin's that asked for the value (CrashQuarantineTests).
 */
#include <signal.h>

#include "motion_plugin.h"

static double crash_out(double t) {
    if (t > 0.5) raise(SIGSEGV);
    return t;
}

static const motion_function functions[] = {
    {.name = "crashOut", .signature = "d(d)", .function = (void (*)(void))crash_out},
};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR,
    .id = "test.crash-in-curve", .version = "1", .build_tag = "c",
    .function_count = 1, .functions = functions,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
