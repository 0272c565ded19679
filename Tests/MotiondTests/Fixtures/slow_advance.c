/*
 * A plugin whose advance computes: `{"type":"Slow","ms":30,"ticks":3}` holds the engine thread for `ms`
 * milliseconds of CPU in each of its first `ticks` advances, then ends. motiond must say which plugin stalls the
 * frames (a `plugin.slow` trace event and a warning), not only count overruns. Built with MINIMUM_MS=20,
 * the example plan `motiond --validate` makes from the schema computes for 20 ms: the validator must fail it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "motion_plugin.h"

#ifndef MINIMUM_MS
#define MINIMUM_MS 0
#endif
#define TEXT(x) #x
#define STRING(x) TEXT(x)

typedef struct slow {
    const motion_host *host;
    motion_performer_ref ref;
    motion_token token;
    long ms;
    long ticks;
} slow;

static void *create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)factory;
    (void)target;
    slow *performer = calloc(1, sizeof *performer);
    if (performer == NULL) return NULL;
    performer->host = host;
    performer->ref = ref;
    return performer;
}

static void destroy(void *instance) { free(instance); }

/* The schema has checked both numbers are there: read each after its key. */
static long number_after(const char *json, size_t length, const char *key) {
    char buffer[256];
    const size_t n = length < sizeof buffer - 1 ? length : sizeof buffer - 1;
    memcpy(buffer, json, n);
    buffer[n] = 0;
    const char *at = strstr(buffer, key);
    return at ? strtol(at + strlen(key), NULL, 10) : 0;
}

static int32_t add_plan(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)error;
    (void)capacity;
    slow *performer = instance;
    performer->ms = number_after(json, length, "\"ms\":");
    performer->ticks = number_after(json, length, "\"ticks\":");
    if (performer->token == 0) performer->token = performer->host->token_generate(performer->host, performer->ref);
    return MOTION_OK;
}

static void advance(void *instance, double dt) {
    (void)dt;
    slow *performer = instance;
    if (performer->token == 0) return;
    /* `ms` of this thread's CPU time, spun: as long however busy the machine (a sleep would be the
     * plugin blocking, which motiond reports too, but a preempted spin on the wall clock would not be
     * the plugin's time). */
    struct timespec start, now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < performer->ms);
    if (--performer->ticks <= 0) {
        performer->host->token_terminate(performer->host, performer->ref, performer->token);
        performer->token = 0;
    }
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = "Slow",
    .create = create, .destroy = destroy, .add_plan = add_plan, .advance = advance,
    .plan_schema = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":" STRING(MINIMUM_MS) "},"
                   "\"ticks\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"ms\",\"ticks\"]}",
}};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR,
    .id = "test.slow-advance", .version = "1", .build_tag = "c",
    .factory_count = 1, .factories = factories,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
