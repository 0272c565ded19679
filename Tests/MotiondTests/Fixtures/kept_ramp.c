/* A third-party plugin written from motion_plugin.h alone that keeps values no one reads: plan type
 * "KeptRamp" moves `property` at 10 units per second from 0, forever. Advanced in batches
 * ("motion.batch/1"); while the host says no one reads ("motion.unread/1"), a batch writes only the
 * properties in `read_properties` and keeps the others, which `write_kept` ("motion.kept/1") writes when
 * the host asks. Built with -DKEPT_FORGETS, `write_kept` writes nothing: `motiond --validate` must fail it. */
#include <stdlib.h>
#include <string.h>
#include "motion_plugin.h"

#define RATE 10.0

typedef struct ramp {
    const motion_host *host;
    motion_performer_ref ref;
    motion_property property;
    double value;
    int active, kept;
    struct ramp *previous, *next;
} ramp;

/* Every live performer, for write_kept (the host calls a plugin from its engine thread only). */
static ramp *performers;

static const char schema[] =
    "{\"type\":\"object\",\"properties\":{\"property\":{\"type\":\"string\"}},\"required\":[\"property\"]}";

static void *ramp_create(const motion_factory *factory, const motion_host *host, motion_performer_ref ref,
                         const char *target) {
    (void)factory; (void)target;
    ramp *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->host = host;
    r->ref = ref;
    r->property = MOTION_INVALID_PROPERTY;
    r->next = performers;
    if (performers) performers->previous = r;
    performers = r;
    return r;
}

static void ramp_destroy(void *instance) {
    ramp *r = instance;
    /* The host asked for what it kept before destroy (kept.h): nothing to write here. */
    if (r->previous) r->previous->next = r->next; else performers = r->next;
    if (r->next) r->next->previous = r->previous;
    free(r);
}

static int32_t ramp_add(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json; (void)length; (void)error; (void)capacity;
    ramp *r = instance;
    const motion_plan_reader *plan = r->host->get_extension(r->host, MOTION_PLAN_EXTENSION);
    if (!plan || plan->struct_size < sizeof *plan) return MOTION_ERROR;
    const char *name = plan->string(r->host, plan->member(r->host, plan->root(r->host), "property"), NULL);
    if (!name) return MOTION_ERROR;
    r->property = r->host->intern_property(r->host, r->ref, name);
    if (r->property == MOTION_INVALID_PROPERTY) return MOTION_ERROR;
    if (!r->active) {
        r->host->token_generate(r->host, r->ref);
        r->active = 1;
    }
    return MOTION_OK;
}

static void ramp_write(ramp *r) {
    const double velocity = RATE;
    r->host->write_property(r->host, r->property, &r->value, &velocity, 1);
    r->kept = 0;
}

static void ramp_advance(void *instance, double dt) {
    ramp *r = instance;
    if (!r->active) return;
    r->value += RATE * dt;
    ramp_write(r);
}

static void ramp_advance_batch(const motion_factory *factory, void *const *instances, size_t count, double dt) {
    (void)factory;
    if (count == 0) return;
    const motion_host *host = ((ramp *)instances[0])->host;
    const motion_unread *unread = host->get_extension(host, MOTION_UNREAD_EXTENSION);
    int keep = unread && unread->struct_size >= sizeof *unread && unread->writes_unread(host);
    size_t flagged = 0;
    const uint8_t *read = keep ? unread->read_properties(host, &flagged) : NULL;
    for (size_t i = 0; i < count; i++) {
        ramp *r = instances[i];
        if (!r->active) continue;
        r->value += RATE * dt;
        if (keep && !(read && r->property < flagged && read[r->property])) {
            r->kept = 1;
        } else {
            ramp_write(r);
        }
    }
}

static void ramp_write_kept(const motion_factory *factory, const motion_host *host) {
    (void)factory;
#ifdef KEPT_FORGETS
    (void)host;
#else
    for (ramp *r = performers; r; r = r->next) {
        if (r->host == host && r->kept) ramp_write(r);
    }
#endif
}

static const motion_batch batch = {.struct_size = sizeof(motion_batch), .advance_batch = ramp_advance_batch};
static const motion_kept kept = {.struct_size = sizeof(motion_kept), .write_kept = ramp_write_kept};

static const void *ramp_extension(const char *id) {
    if (strcmp(id, MOTION_BATCH_EXTENSION) == 0) return &batch;
    if (strcmp(id, MOTION_KEPT_EXTENSION) == 0) return &kept;
    return NULL;
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory), .flags = MOTION_FACTORY_CONTINUOUS, .plan_type = "KeptRamp",
    .create = ramp_create, .destroy = ramp_destroy, .add_plan = ramp_add, .advance = ramp_advance,
    .plan_schema = schema,
}};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR, .id = "test.kept-ramp", .version = "1.0.0", .build_tag = "c",
    .factory_count = 1, .factories = factories, .get_extension = ramp_extension,
};

const motion_plugin *motion_plugin_entry(void) { return &plugin; }
