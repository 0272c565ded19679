/*
 * SetPlugin — the smallest useful motiond plugin, in C with no Swift.
 *
 * Plan type "Set": {"type":"Set","property":"opacity","value":[1]} writes the value at once.
 * It is not continuous (it never takes an is-active token), so it never receives `advance`. It claims
 * the property it sets ("motion.claim/1"), so a Spring or Tween still moving it stops there.
 * It declares the plans it accepts as a JSON Schema (the host validates them) and reads them through
 * the host extension "motion.plan/1", so it scans no JSON itself.
 * It doubles as a template for C plugin authors: only motion_plugin.h is needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_plugin.h"

typedef struct set_performer {
    const motion_host *host;
    motion_performer_ref ref;
    /* "motion.plan/1": the plan as typed values (ABI 1.2 hosts have it; `init` refuses others). */
    const motion_plan_reader *plan;
    /* "motion.claim/1", or NULL on a host without it. */
    const motion_claim *claim;
} set_performer;

/* The plans "Set" accepts: the host refuses any other shape (an unknown or misspelt key, a wrong type)
 * before add_plan runs, so add_plan only reads what is declared here. */
static const char set_schema[] =
    "{\"type\":\"object\","
    "\"description\":\"Writes a value at once.\","
    "\"properties\":{"
    "\"property\":{\"type\":\"string\",\"description\":\"The property of the target it sets.\"},"
    "\"value\":{\"type\":\"array\",\"items\":{\"type\":\"number\",\"minimum\":-1e15,\"maximum\":1e15},"
    "\"minItems\":1,\"maxItems\":4,"
    "\"description\":\"The value, 1 to 4 numbers within ±1e15 (as every plan's values); velocity 0.\"}},"
    "\"required\":[\"property\",\"value\"]}";

static void set_error(char *error, size_t capacity, const char *message) {
    if (error != NULL && capacity > 0) {
        snprintf(error, capacity, "%s", message);
    }
}

static int32_t set_init(const motion_host *host) {
    const motion_plan_reader *plan = host->get_extension(host, MOTION_PLAN_EXTENSION);
    if (plan == NULL || plan->struct_size < sizeof(motion_plan_reader)) {
        host->log(host, 0, MOTION_LOG_ERROR, "org.motiond.set needs the host extension motion.plan/1");
        return MOTION_ERROR;
    }
    return MOTION_OK;
}

static void *set_create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref,
                        const char *target) {
    (void)factory;
    (void)target;
    set_performer *performer = calloc(1, sizeof *performer);
    if (performer == NULL) return NULL;
    performer->host = host;
    performer->ref = ref;
    performer->plan = host->get_extension(host, MOTION_PLAN_EXTENSION);
    const motion_claim *claim = host->get_extension(host, MOTION_CLAIM_EXTENSION);
    if (claim != NULL && claim->struct_size >= sizeof(motion_claim)) performer->claim = claim;
    return performer;
}

static void set_destroy(void *instance) { free(instance); }

static int32_t set_add_plan(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json;
    (void)length;
    set_performer *performer = instance;
    const motion_host *host = performer->host;
    const motion_plan_reader *plan = performer->plan;
    const motion_plan_node *root = plan->root(host);
    /* Validated against set_schema: "property" is a string and "value" 1 to 4 numbers. */
    const char *property = plan->string(host, plan->member(host, root, "property"), NULL);
    double value[MOTION_MAX_COMPONENTS];
    uint32_t count = plan->vector(host, plan->member(host, root, "value"), value, MOTION_MAX_COMPONENTS);
    if (property == NULL || count == 0 || count > MOTION_MAX_COMPONENTS) {
        set_error(error, capacity, "value: expected an array of 1 to 4 numbers");
        return MOTION_ERROR;
    }
    motion_property handle = host->intern_property(host, performer->ref, property);
    if (handle == MOTION_INVALID_PROPERTY) {
        set_error(error, capacity, "property: rejected by the host");
        return MOTION_ERROR;
    }
    /* A value set now wins over an animation of another plan type still moving the property. */
    if (performer->claim != NULL) performer->claim->claim_property(host, performer->ref, handle);
    host->write_property(host, handle, value, NULL, count);
    return MOTION_OK;
}

static const motion_factory set_factories[] = {
    {
        .struct_size = sizeof(motion_factory),
        .flags = 0,
        .plan_type = "Set",
        .factory_data = NULL,
        .create = set_create,
        .destroy = set_destroy,
        .add_plan = set_add_plan,
        .add_named_plan = NULL,
        .remove_named_plan = NULL,
        .advance = NULL,
        .plan_schema = set_schema,
    },
};

/* Hot swap: a Set performer holds nothing between plans (the value lives in the host), so its state is
 * an empty object and a new build takes over with nothing to restore. */
static size_t set_export_state(const motion_factory *factory, void *instance, char *buffer, size_t capacity) {
    (void)factory;
    (void)instance;
    if (capacity >= 2) memcpy(buffer, "{}", 2);
    return 2;
}

static int32_t set_import_state(const motion_factory *factory, void *instance, const char *json, size_t length,
                                char *error, size_t capacity) {
    (void)factory;
    (void)instance;
    (void)json;
    (void)length;
    (void)error;
    (void)capacity;
    return MOTION_OK;
}

static const motion_migrate set_migrate = {
    .struct_size = sizeof(motion_migrate),
    .reserved = 0,
    .export_state = set_export_state,
    .import_state = set_import_state,
};

static const void *set_get_extension(const char *id) {
    return strcmp(id, MOTION_MIGRATE_EXTENSION) == 0 ? &set_migrate : NULL;
}

static const motion_plugin set_plugin = {
    .magic = MOTION_PLUGIN_MAGIC,
    .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR,
    .id = "org.motiond.set",
    .version = "1.1.0",
    .build_tag = "c",
    .init = set_init,
    .deinit = NULL,
    .factory_count = sizeof set_factories / sizeof set_factories[0],
    .function_count = 0,
    .factories = set_factories,
    .functions = NULL,
    .get_extension = set_get_extension,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &set_plugin; }
