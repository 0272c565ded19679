/*
 * motion/ext/plan.h — host extension "motion.plan/1": typed access to the plan being added
 *
 * One extension of the motiond plugin ABI (see motion_plugin.h, which includes every extension header).
 * Extensions are negotiated by id and revision through `get_extension`; a side without one answers NULL.
 */
#ifndef MOTION_EXT_PLAN_H
#define MOTION_EXT_PLAN_H

#include "../../motion_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Host extension "motion.plan/1" (ABI 1.2): read the plan that `add_plan` or `add_named_plan` is being
 * handed as typed values, so a C plugin never scans JSON. The host has already parsed the plan and
 * checked it against the factory's `plan_schema`, so a plugin with a schema only reads what it declared.
 * Get it with `host->get_extension(host, MOTION_PLAN_EXTENSION)` (in `create`'s caller or `init`, once).
 *
 *     const motion_plan_reader *plan = host->get_extension(host, MOTION_PLAN_EXTENSION);
 *     const motion_plan_node *root = plan->root(host);
 *     double stiffness = plan->number(host, plan->member(host, root, "stiffness"), 120.0);
 *     double to[MOTION_MAX_COMPONENTS];
 *     uint32_t count = plan->vector(host, plan->member(host, root, "to"), to, MOTION_MAX_COMPONENTS);
 *
 * Nodes are borrowed: valid until the `add_plan` / `add_named_plan` call that is running returns. Every
 * function accepts NULL for a node (a member that is absent) and then answers the fallback, 0 or NULL,
 * so look-ups chain without checks.
 */
#define MOTION_PLAN_EXTENSION "motion.plan/1"

/** One JSON value inside the plan. Opaque. */
typedef struct motion_plan_node motion_plan_node;

/** What a node holds (`motion_plan_reader.kind`). */
#define MOTION_PLAN_ABSENT 0u
#define MOTION_PLAN_NULL 1u
#define MOTION_PLAN_BOOLEAN 2u
#define MOTION_PLAN_NUMBER 3u
#define MOTION_PLAN_STRING 4u
#define MOTION_PLAN_ARRAY 5u
#define MOTION_PLAN_OBJECT 6u

typedef struct motion_plan_reader {
    uint32_t struct_size;
    uint32_t reserved;
    /** [control] The plan being added (a JSON object), or NULL outside `add_plan` / `add_named_plan`. */
    const motion_plan_node *(*root)(const motion_host *host);
    /** [control] Member `key` (borrowed, NUL-terminated) of an object; NULL if absent or not an object. */
    const motion_plan_node *(*member)(const motion_host *host, const motion_plan_node *node, const char *key);
    /** [control] MOTION_PLAN_* for the node; MOTION_PLAN_ABSENT for NULL. */
    uint32_t (*kind)(const motion_host *host, const motion_plan_node *node);
    /** [control] The number, or `fallback` if the node is not a number. */
    double (*number)(const motion_host *host, const motion_plan_node *node, double fallback);
    /** [control] 1 for true, 0 for false, `fallback` if the node is not a boolean. */
    int32_t (*boolean)(const motion_host *host, const motion_plan_node *node, int32_t fallback);
    /**
     * [control] The string's UTF-8 bytes, NUL-terminated (its length in `*length` when `length` is not
     * NULL), or NULL if the node is not a string. Borrowed like the node.
     */
    const char *(*string)(const motion_host *host, const motion_plan_node *node, size_t *length);
    /** [control] Number of elements of an array, or of members of an object; 0 otherwise. */
    uint32_t (*count)(const motion_host *host, const motion_plan_node *node);
    /** [control] Element `index` of an array; NULL if out of range or not an array. */
    const motion_plan_node *(*element)(const motion_host *host, const motion_plan_node *node, uint32_t index);
    /**
     * [control] A vector: if the node is an array of numbers, copies its first `capacity` numbers into
     * `out` and returns how many it holds (which may exceed `capacity`); otherwise returns 0.
     */
    uint32_t (*vector)(const motion_host *host, const motion_plan_node *node, double *out, uint32_t capacity);
} motion_plan_reader;

#ifdef __cplusplus
}
#endif

#endif /* MOTION_EXT_PLAN_H */
