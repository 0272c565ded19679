/*
 * A plugin built against the ABI 1.1 header as it was frozen (Tests/MotionHostTests/Fixtures/abi-1.1):
 * its motion_factory is 72 bytes, smaller than today's. Two factories, so a host that walked the array
 * with its own sizeof(motion_factory) would misread the second one. "First" writes [1] to the plan's
 * property, "Second" writes [2].
 */
#include <stdlib.h>
#include <string.h>

#include "motion_plugin.h"

#if MOTION_ABI_MINOR != 1
#error "this fixture must be built against the frozen ABI 1.1 header"
#endif

typedef struct pair_performer {
    const motion_host *host;
    motion_performer_ref ref;
    double value;
} pair_performer;

static void *pair_create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref,
                         const char *target) {
    (void)target;
    pair_performer *performer = calloc(1, sizeof *performer);
    if (performer == NULL) return NULL;
    performer->host = host;
    performer->ref = ref;
    performer->value = *(const double *)factory->factory_data;
    return performer;
}

static void pair_destroy(void *instance) { free(instance); }

static int32_t pair_add_plan(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json;
    (void)length;
    (void)error;
    (void)capacity;
    pair_performer *performer = instance;
    motion_property property = performer->host->intern_property(performer->host, performer->ref, "x");
    performer->host->write_property(performer->host, property, &performer->value, NULL, 1);
    return MOTION_OK;
}

static const double one = 1, two = 2;

static const motion_factory factories[] = {
    {.struct_size = sizeof(motion_factory), .plan_type = "First", .factory_data = (void *)&one,
     .create = pair_create, .destroy = pair_destroy, .add_plan = pair_add_plan},
    {.struct_size = sizeof(motion_factory), .plan_type = "Second", .factory_data = (void *)&two,
     .create = pair_create, .destroy = pair_destroy, .add_plan = pair_add_plan},
};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR,
    .id = "test.abi11", .version = "1.1.0", .build_tag = "c",
    .factory_count = 2, .factories = factories,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
