/*
 * A buggy plugin: `{"type":"NaNWriter","property":"x"}` writes NaN to its property at its first advance,
 * then ends. motiond must say which plugin wrote a value that is not finite (frames show it as null).
 */
#include <math.h>
#include <stdlib.h>

#include "motion_plugin.h"
#include "motion/ext/claim.h"

typedef struct writer {
    const motion_host *host;
    motion_performer_ref ref;
    motion_token token;
    motion_property property;
} writer;

static void *create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref, const char *target) {
    (void)factory;
    (void)target;
    writer *performer = calloc(1, sizeof *performer);
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
    writer *performer = instance;
    performer->property = performer->host->intern_property(performer->host, performer->ref, "x");
    /* Claimed, so that each performer's NaN is its own to report (`Engine+NonFinite`). */
    const motion_claim *claim = performer->host->get_extension(performer->host, MOTION_CLAIM_EXTENSION);
    if (claim != NULL) claim->claim_property(performer->host, performer->ref, performer->property);
    if (performer->token == 0) performer->token = performer->host->token_generate(performer->host, performer->ref);
    return MOTION_OK;
}

static void advance(void *instance, double dt) {
    (void)dt;
    writer *performer = instance;
    if (performer->token == 0) return;
    const double value = NAN, velocity = 0;
    performer->host->write_property(performer->host, performer->property, &value, &velocity, 1);
    performer->host->token_terminate(performer->host, performer->ref, performer->token);
    performer->token = 0;
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = "NaNWriter",
    .create = create, .destroy = destroy, .add_plan = add_plan, .advance = advance,
    .plan_schema = "{\"type\":\"object\",\"properties\":{\"property\":{\"type\":\"string\"}},\"required\":[\"property\"]}",
}};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR,
    .id = "test.nan-writer", .version = "1", .build_tag = "c",
    .factory_count = 1, .factories = factories,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
