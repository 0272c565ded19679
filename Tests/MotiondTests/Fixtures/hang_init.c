/* A plugin whose init hangs, except in motiond's probe (it reads its own command line for `--probe`):
 * it passes the probe, then holds the daemon's start for ever unless the hang watch sees the call. Built
 * with HANG_IN_CONSTRUCTOR, its constructor hangs instead (dlopen runs it, before any function of the ABI);
 * with CRASH_IN_CONSTRUCTOR, its constructor writes through a null pointer (outside the probe). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "motion_plugin.h"

static int in_probe(void) {
    char line[4096];
    int descriptor = open("/proc/self/cmdline", O_RDONLY);
    if (descriptor < 0) return 0;
    ssize_t length = read(descriptor, line, sizeof line - 1);
    close(descriptor);
    for (ssize_t at = 0; at < length; at += (ssize_t)strlen(line + at) + 1) {
        line[length] = 0;
        if (strcmp(line + at, "--probe") == 0) return 1;
    }
    return 0;
}

#if defined(CRASH_IN_CONSTRUCTOR)
__attribute__((constructor)) static void crash_when_loaded(void) {
    if (in_probe()) return;
    *(volatile int *)0 = 1;
}
#define HANG_INIT NULL
#elif defined(HANG_IN_CONSTRUCTOR)
__attribute__((constructor)) static void hang_when_loaded(void) {
    if (in_probe()) return;
    for (;;) pause();
}
#define HANG_INIT NULL
#else
static int32_t hang_init(const motion_host *host) {
    (void)host;
    if (in_probe()) return MOTION_OK;
    for (;;) pause();
}
#define HANG_INIT hang_init
#endif

static void *none_create(const motion_factory *f, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)f; (void)host; (void)ref; (void)target;
    return malloc(1);
}
static void none_destroy(void *instance) { free(instance); }
static int32_t none_add(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)instance; (void)json; (void)length; (void)error; (void)capacity;
    return MOTION_OK;
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .plan_type = "HangInit",
    .create = none_create, .destroy = none_destroy, .add_plan = none_add,
}};
static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR, .id = "test.hang-init", .version = "1", .build_tag = "c",
    .init = HANG_INIT, .factory_count = 1, .factories = factories,
};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
