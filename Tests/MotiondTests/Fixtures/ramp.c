/* A plugin built twice from this one source with a different RAMP_RATE (and RAMP_VERSION): plan type
 * "Ramp" moves property "x" at RAMP_RATE units per second forever. It implements motion.migrate/1, so
 * a running ramp moves to the new build keeping its value and switches to the new rate. Built with
 * RAMP_CRASH_ON_IMPORT, its import_state crashes: the swap's probe must refuse that build. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "motion_plugin.h"

#ifndef RAMP_RATE
#define RAMP_RATE 10.0
#endif
#ifndef RAMP_VERSION
#define RAMP_VERSION "1.0.0"
#endif

typedef struct {
    const motion_host *host;
    motion_performer_ref ref;
    motion_property x;
    double value;
    int active;
} ramp;

static void *ramp_create(const motion_factory *f, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)f; (void)target;
    ramp *r = calloc(1, sizeof *r);
    if (r) { r->host = host; r->ref = ref; r->x = MOTION_INVALID_PROPERTY; }
    return r;
}

static void ramp_destroy(void *instance) { free(instance); }

static void ramp_start(ramp *r) {
    if (r->x == MOTION_INVALID_PROPERTY) r->x = r->host->intern_property(r->host, r->ref, "x");
    if (!r->active) { r->host->token_generate(r->host, r->ref); r->active = 1; }
}

static int32_t ramp_add(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json; (void)length; (void)error; (void)capacity;
    ramp_start(instance);
    return MOTION_OK;
}

static void ramp_advance(void *instance, double dt) {
    ramp *r = instance;
    if (!r->active) return;
    r->value += RAMP_RATE * dt;
    double velocity = RAMP_RATE;
    r->host->write_property(r->host, r->x, &r->value, &velocity, 1);
}

static size_t ramp_export(const motion_factory *f, void *instance, char *buffer, size_t capacity) {
    (void)f;
    ramp *r = instance;
    char text[128];
    int n = snprintf(text, sizeof text, "{\"value\":%.17g,\"active\":%d}", r->value, r->active);
    if (n > 0 && (size_t)n <= capacity) memcpy(buffer, text, (size_t)n);
    return n > 0 ? (size_t)n : 0;
}

static int32_t ramp_import(const motion_factory *f, void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)f; (void)length;
    ramp *r = instance;
#ifdef RAMP_CRASH_ON_IMPORT
    raise(SIGSEGV);
#endif
    int active = 0;
    if (sscanf(json, "{\"value\":%lf,\"active\":%d}", &r->value, &active) != 2) {
        snprintf(error, capacity, "state: expected {\"value\":…,\"active\":…}");
        return MOTION_ERROR;
    }
    if (active) ramp_start(r);
    return MOTION_OK;
}

static const motion_migrate migrate = {
    .struct_size = sizeof(motion_migrate), .export_state = ramp_export, .import_state = ramp_import,
};

static const void *ramp_extension(const char *id) { return strcmp(id, MOTION_MIGRATE_EXTENSION) == 0 ? &migrate : NULL; }

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = "Ramp",
    .create = ramp_create, .destroy = ramp_destroy, .add_plan = ramp_add, .advance = ramp_advance,
}};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR, .id = "test.ramp", .version = RAMP_VERSION, .build_tag = "c",
    .factory_count = 1, .factories = factories, .get_extension = ramp_extension,
};

const motion_plugin *motion_plugin_entry(void) { return &plugin; }
