/*
 * SetPlugin — the smallest useful motiond plugin, in C with no Swift.
 *
 * Plan type "Set": {"type":"Set","property":"opacity","value":[1]} writes the value at once.
 * It is not continuous (it never takes an is-active token), so it never receives `advance`. It claims
 * the property it sets ("motion.claim/1"), so a Spring or Tween still moving it stops there.
 * It doubles as a template for C plugin authors: only motion_plugin.h is needed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_plugin.h"

typedef struct set_performer {
    const motion_host *host;
    motion_performer_ref ref;
    /* "motion.claim/1", or NULL on a host without it. */
    const motion_claim *claim;
} set_performer;

static void set_error(char *error, size_t capacity, const char *message) {
    if (error != NULL && capacity > 0) {
        snprintf(error, capacity, "%s", message);
    }
}

/* Finds `"key"` followed by `:` in a JSON object text and returns the position after the colon. */
static const char *find_member(const char *json, size_t length, const char *key) {
    size_t key_length = strlen(key);
    const char *end = json + length;
    for (const char *p = json; p + key_length + 2 <= end; p++) {
        if (*p != '"' || strncmp(p + 1, key, key_length) != 0 || p[key_length + 1] != '"') continue;
        const char *q = p + key_length + 2;
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q < end && *q == ':') return q + 1;
    }
    return NULL;
}

static int parse_string(const char *p, const char *end, char *out, size_t capacity) {
    while (p < end && isspace((unsigned char)*p)) p++;
    if (p >= end || *p != '"') return 0;
    p++;
    size_t n = 0;
    while (p < end && *p != '"') {
        if (*p == '\\' || n + 1 >= capacity) return 0;
        out[n++] = *p++;
    }
    out[n] = '\0';
    return p < end && n > 0;
}

static int parse_vector(const char *p, const char *end, double *out, uint32_t *count) {
    while (p < end && isspace((unsigned char)*p)) p++;
    if (p >= end || *p != '[') return 0;
    p++;
    *count = 0;
    for (;;) {
        while (p < end && isspace((unsigned char)*p)) p++;
        if (p < end && *p == ']') return *count > 0;
        if (*count == MOTION_MAX_COMPONENTS) return 0;
        char buffer[64];
        size_t n = 0;
        while (p < end && n + 1 < sizeof buffer && (isdigit((unsigned char)*p) || strchr("+-.eE", *p))) {
            buffer[n++] = *p++;
        }
        buffer[n] = '\0';
        char *stop = NULL;
        double value = strtod(buffer, &stop);
        if (n == 0 || stop != buffer + n) return 0;
        out[(*count)++] = value;
        while (p < end && isspace((unsigned char)*p)) p++;
        if (p < end && *p == ',') p++;
        else if (!(p < end && *p == ']')) return 0;
    }
}

static void *set_create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref,
                        const char *target) {
    (void)factory;
    (void)target;
    set_performer *performer = calloc(1, sizeof *performer);
    if (performer == NULL) return NULL;
    performer->host = host;
    performer->ref = ref;
    const motion_claim *claim = host->get_extension(host, MOTION_CLAIM_EXTENSION);
    if (claim != NULL && claim->struct_size >= sizeof(motion_claim)) performer->claim = claim;
    return performer;
}

static void set_destroy(void *instance) { free(instance); }

static int32_t set_add_plan(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    set_performer *performer = instance;
    const char *end = json + length;
    char property[128];
    const char *member = find_member(json, length, "property");
    if (member == NULL || !parse_string(member, end, property, sizeof property)) {
        set_error(error, capacity, "property: expected a non-empty string");
        return MOTION_ERROR;
    }
    double value[MOTION_MAX_COMPONENTS];
    uint32_t count = 0;
    member = find_member(json, length, "value");
    if (member == NULL || !parse_vector(member, end, value, &count)) {
        set_error(error, capacity, "value: expected an array of 1 to 4 numbers");
        return MOTION_ERROR;
    }
    motion_property handle = performer->host->intern_property(performer->host, performer->ref, property);
    if (handle == MOTION_INVALID_PROPERTY) {
        set_error(error, capacity, "property: rejected by the host");
        return MOTION_ERROR;
    }
    /* A value set now wins over an animation of another plan type still moving the property. */
    if (performer->claim != NULL) performer->claim->claim_property(performer->host, performer->ref, handle);
    performer->host->write_property(performer->host, handle, value, NULL, count);
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
    .version = "1.0.0",
    .build_tag = "c",
    .init = NULL,
    .deinit = NULL,
    .factory_count = sizeof set_factories / sizeof set_factories[0],
    .function_count = 0,
    .factories = set_factories,
    .functions = NULL,
    .get_extension = set_get_extension,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &set_plugin; }
