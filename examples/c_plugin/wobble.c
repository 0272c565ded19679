/* wobble.c: cc -std=c11 -O2 -shared -fPIC -I <dir of motion_plugin.h> -o libwobble.so wobble.c -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "motion_plugin.h"             /* ABI 1.2, and every motion/ext/ header */

#define TAU 6.283185307179586    /* M_PI is not part of strict C11 */

/* The plans Wobble accepts. The host checks each plan against it before add_plan runs and refuses, with
 * plan.invalid naming the field, a string amplitude, one out of range, or a misspelt key ("amplitud"). */
static const char wobble_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"amplitude\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1000}}}";

static const motion_plan_reader *plan;   /* "motion.plan/1": the plan being added, as typed values */
static const motion_claim *claim;        /* "motion.claim/1", or NULL on a host without it */

typedef struct {
    const motion_host *host;     /* valid until the process exits */
    motion_performer_ref ref;    /* pass it back to host services */
    motion_property x;           /* interned once, when the first plan arrives */
    double amplitude, time;
    motion_token token;          /* 0 while at rest */
} wobble;

/* [load] Once, before any performer: look up the host extensions this plugin uses. */
static int32_t wobble_init(const motion_host *host) {
    plan = host->get_extension(host, MOTION_PLAN_EXTENSION);
    claim = host->get_extension(host, MOTION_CLAIM_EXTENSION);
    if (claim && claim->struct_size < sizeof *claim) claim = NULL;
    return plan && plan->struct_size >= sizeof *plan ? MOTION_OK : MOTION_ERROR;   /* every 1.2 host has it */
}

static void *wobble_create(const motion_factory *factory, const motion_host *host,
                           motion_performer_ref ref, const char *target) {
    (void)factory; (void)target;              /* target is borrowed: copy it if you keep it */
    wobble *w = calloc(1, sizeof *w);
    if (w) { w->host = host; w->ref = ref; w->x = MOTION_INVALID_PROPERTY; w->amplitude = 10; }
    return w;                                  /* NULL refuses: the client gets plan.invalid */
}

static void wobble_destroy(void *instance) { free(instance); }

/* [control] The host has checked the plan against wobble_schema: read it through motion.plan/1 (`json` is
 * the same plan as text). Refuse what no schema can say with MOTION_ERROR and a message naming the field. */
static int32_t wobble_add_plan(void *instance, const char *json, size_t length, char *error, size_t capacity) {
    (void)json; (void)length; (void)error; (void)capacity;
    wobble *w = instance;
    const motion_host *host = w->host;
    const motion_plan_node *root = plan->root(host);
    /* a number from 0 to 1000 if present; absent (NULL node): the fallback, the amplitude it had */
    w->amplitude = plan->number(host, plan->member(host, root, "amplitude"), w->amplitude);
    if (w->x == MOTION_INVALID_PROPERTY) w->x = host->intern_property(host, w->ref, "x");
    if (w->token == 0) w->token = host->token_generate(host, w->ref);  /* now advanced every tick */
    /* x is ours now: an animation of another plan type on it lets go (optional, see "claim and yield") */
    if (claim) claim->claim_property(host, w->ref, w->x);
    return MOTION_OK;
}

/* [control] A newer plan of another type claimed x: stop, and end the animation as any other. */
static void wobble_yield(const motion_factory *factory, void *instance, motion_property property) {
    (void)factory;
    wobble *w = instance;
    if (property != w->x || w->token == 0) return;
    w->host->trace(w->host, w->ref, "animation.ended", "{\"property\":\"x\",\"reason\":\"interrupted\"}");
    w->host->token_terminate(w->host, w->ref, w->token);
    w->token = 0;
}

static const motion_yield yield = {sizeof(motion_yield), 0, wobble_yield};

static const void *wobble_get_extension(const char *id) {
    return strcmp(id, MOTION_YIELD_EXTENSION) == 0 ? &yield : NULL;
}

/* [frame] No allocation, no blocking. Also called once by the probe on a fresh instance: return then. */
static void wobble_advance(void *instance, double dt) {
    wobble *w = instance;
    if (w->token == 0) return;
    w->time += dt;
    double value = w->amplitude * sin(TAU * w->time);
    double velocity = w->amplitude * TAU * cos(TAU * w->time);
    w->host->write_property(w->host, w->x, &value, &velocity, 1);
}

static const motion_factory factories[] = {{
    .struct_size = sizeof(motion_factory),     /* MOTION_FACTORY_SIZE_1_2 with this header */
    .flags = MOTION_FACTORY_CONTINUOUS,        /* it takes tokens and wants advance() */
    .plan_type = "Wobble",
    .create = wobble_create,
    .destroy = wobble_destroy,
    .add_plan = wobble_add_plan,
    .advance = wobble_advance,
    .plan_schema = wobble_schema,              /* ABI 1.2 */
}};

static const motion_plugin plugin = {
    .magic = MOTION_PLUGIN_MAGIC,
    .struct_size = sizeof(motion_plugin),
    .abi_major = MOTION_ABI_MAJOR,
    .abi_minor = MOTION_ABI_MINOR,
    .id = "org.example.wobble",
    .version = "1.0.0",
    .build_tag = "c",
    .init = wobble_init,
    .factory_count = 1,
    .factories = factories,
    .get_extension = wobble_get_extension,
};

__attribute__((visibility("default"))) const motion_plugin *motion_plugin_entry(void) { return &plugin; }
