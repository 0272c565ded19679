/*
 * A plugin that passes the probe (which advances a fresh instance once) and crashes on the 5th advance
 * of a performer with a plan: `motiond --validate` must fail it, naming the check it crashed in. Built with
 * OVERFLOW=1 it overflows the engine thread's stack instead (the crash handler needs a stack of its own).
 */
#include <signal.h>
#include <stdlib.h>

#include "motion_plugin.h"

typedef struct crashy {
    const motion_host *host;
    motion_performer_ref ref;
    motion_token token;
    int advances;
} crashy;

static void *create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)factory;
    (void)target;
    crashy *performer = calloc(1, sizeof *performer);
    if (performer == NULL) return NULL;
    performer->host = host;
    performer->ref = ref;
    return performer;
}

static void destroy(void *instance) { free(instance); }

static int32_t add_plan(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json;
    (void)length;
    (void)error;
    (void)capacity;
    crashy *performer = instance;
    if (performer->token == 0) performer->token = performer->host->token_generate(performer->host, performer->ref);
    return MOTION_OK;
}

#ifndef OVERFLOW
#define OVERFLOW 0
#endif

/* Deeper and deeper, each frame holding a page, until the stack runs out (the limit only stops a
 * compiler from calling it infinite). */
static long descend(long depth, long limit) {
    volatile char page[4096];
    page[depth % sizeof page] = (char)depth;
    if (depth >= limit) return page[0];
    return descend(depth + 1, limit) + page[(depth + 1) % sizeof page];
}

static void advance(void *instance, double dt) {
    (void)dt;
    crashy *performer = instance;
    if (performer->token == 0 || ++performer->advances != 5) return;
    if (OVERFLOW) (void)descend(0, (long)1 << 40);
    raise(SIGSEGV);
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = "Crashy",
    .create = create, .destroy = destroy, .add_plan = add_plan, .advance = advance,
    .plan_schema = "{\"type\":\"object\",\"properties\":{\"property\":{\"type\":\"string\"}},\"required\":[\"property\"]}",
}};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR,
    .id = "test.crash-in-advance", .version = "1", .build_tag = "c",
    .factory_count = 1, .factories = factories,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
