/*
 * A plugin with two faults `motiond --validate` must name. `{"type":"Careless","property":"x"}` writes 1 to
 * the property for 30 advances, then ends; built with ALLOCATE=1 each advance allocates and frees a buffer
 * (a warning: the frame clock's thread should not allocate); built with HOLD=1 it never releases its token
 * although its value no longer changes (a failure: its runtime would never go idle). Built with
 * HUGE_STATE=1 it offers motion.migrate/1 and claims a state of 2^40 bytes when asked for it (a hot swap
 * must refuse to believe it, not allocate a terabyte).
 */
#include <stdlib.h>
#include <string.h>

#include "motion_plugin.h"
#include "motion/ext/migrate.h"

#ifndef ALLOCATE
#define ALLOCATE 0
#endif
#ifndef HOLD
#define HOLD 0
#endif
/* Another plan type name: "Spring" makes it claim a shipped type (PluginDirectoryTests). */
#ifndef HUGE_STATE
#define HUGE_STATE 0
#endif
#ifndef PLAN_TYPE
#define PLAN_TYPE "Careless"
#endif

typedef struct careless {
    const motion_host *host;
    motion_performer_ref ref;
    motion_token token;
    motion_property property;
    int ticks;
} careless;

static void *create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)factory;
    (void)target;
    careless *performer = calloc(1, sizeof *performer);
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
    careless *performer = instance;
    performer->property = performer->host->intern_property(performer->host, performer->ref, "x");
    performer->ticks = 30;
    if (performer->token == 0) performer->token = performer->host->token_generate(performer->host, performer->ref);
    return MOTION_OK;
}

static void advance(void *instance, double dt) {
    (void)dt;
    careless *performer = instance;
    if (performer->token == 0) return;
    if (ALLOCATE) {
        volatile char *buffer = malloc(64);
        if (buffer) buffer[0] = 1;
        free((void *)buffer);
    }
    const double one = 1;
    performer->host->write_property(performer->host, performer->property, &one, NULL, 1);
    if (--performer->ticks <= 0 && !HOLD) {
        performer->host->token_terminate(performer->host, performer->ref, performer->token);
        performer->token = 0;
    }
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = PLAN_TYPE,
    .create = create, .destroy = destroy, .add_plan = add_plan, .advance = advance,
    .plan_schema = "{\"type\":\"object\",\"properties\":{\"property\":{\"type\":\"string\",\"enum\":[\"x\"]}},\"required\":[\"property\"]}",
}};

static size_t export_state(const motion_factory *factory, void *instance, char *buffer, size_t capacity) {
    (void)factory;
    (void)instance;
    (void)buffer;
    (void)capacity;
    return (size_t)1 << 40;
}

static int32_t import_state(const motion_factory *factory, void *instance, const char *json, size_t length, char *error,
                            size_t error_capacity) {
    (void)factory;
    (void)instance;
    (void)json;
    (void)length;
    (void)error;
    (void)error_capacity;
    return MOTION_ERROR;
}

static const motion_migrate migrate = {
    .struct_size = sizeof(motion_migrate), .export_state = export_state, .import_state = import_state,
};

static const void *get_extension(const char *id) {
    return HUGE_STATE && strcmp(id, MOTION_MIGRATE_EXTENSION) == 0 ? &migrate : NULL;
}

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR,
    .id = "test.careless-advance", .version = "1", .build_tag = "c",
    .factory_count = 1, .factories = factories, .get_extension = get_extension,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
