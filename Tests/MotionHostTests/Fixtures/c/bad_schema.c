/* A plugin whose plan schema uses a keyword the host does not support (a typo of "minimum"). */
#include <stddef.h>
#include "motion_plugin.h"
static void *create(const motion_factory *f, const motion_host *h, motion_performer_ref r, const char *t) { (void)f; (void)h; (void)r; (void)t; return NULL; }
static void destroy(void *i) { (void)i; }
static int32_t add_plan(void *i, const char *j, size_t l, char *e, size_t c) { (void)i; (void)j; (void)l; (void)e; (void)c; return MOTION_OK; }
static const motion_factory factories[] = {{.struct_size = sizeof(motion_factory), .plan_type = "Odd", .create = create, .destroy = destroy, .add_plan = add_plan,
    .plan_schema = "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\",\"minimun\":0}}}"}};
static const motion_plugin plugin = {.magic = MOTION_PLUGIN_MAGIC, .struct_size = sizeof(motion_plugin), .abi_major = MOTION_ABI_MAJOR, .abi_minor = MOTION_ABI_MINOR, .id = "test.bad-schema", .version = "1", .factory_count = 1, .factories = factories};
const motion_plugin *motion_plugin_entry(void) { return &plugin; }
