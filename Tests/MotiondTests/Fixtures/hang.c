/* A plugin whose performer hangs in advance(): the frame loop stops making progress, so the watchdog
 * pings must stop and let systemd restart the service. */
#include <stdlib.h>
#include <unistd.h>
#include "motion_plugin.h"

typedef struct { const motion_host *host; motion_performer_ref ref; int active; } hang_performer;

static void *hang_create(const motion_factory *f, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)f; (void)target;
    hang_performer *p = calloc(1, sizeof *p);
    if (p) { p->host = host; p->ref = ref; }
    return p;
}
static void hang_destroy(void *instance) { free(instance); }
static int32_t hang_add(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json; (void)length; (void)error; (void)capacity;
    hang_performer *p = instance;
    p->host->token_generate(p->host, p->ref);
    p->active = 1;
    return MOTION_OK;
}
/* Hangs once animating; the probe's advance of a fresh instance (no plan) returns at once. */
static void hang_advance(void *instance, double dt) {
    (void)dt;
    if (!((hang_performer *)instance)->active) return;
#ifdef HANG_SPINS
    /* Built with -DHANG_SPINS (RealtimeTests): never blocks, so a realtime thread trips RLIMIT_RTTIME. */
    for (;;) __asm__ volatile("" ::: "memory");
#else
    for (;;) pause();
#endif
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = "Hang",
    .create = hang_create, .destroy = hang_destroy, .add_plan = hang_add, .advance = hang_advance,
}};
static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR, .id = "test.hang", .version = "1", .build_tag = "c",
    .factory_count = 1, .factories = factories,
};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
