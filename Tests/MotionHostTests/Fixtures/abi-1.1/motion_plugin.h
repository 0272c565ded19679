/*
 * motion_plugin.h — the motiond plugin ABI, version 1.1.
 *
 * This header is the whole contract between motiond and a plugin. A plugin is a shared library that
 * exports one C function, `motion_plugin_entry`, returning a pointer to a `motion_plugin` descriptor.
 * A plugin may be written in C alone (see Plugins/SetPlugin) or in Swift with MotionPluginKit.
 *
 * Threads. motiond calls into a plugin from one thread only, its engine thread, never concurrently.
 * Each function below is tagged with the phase it is called in:
 *   [load]    once, while the plugin is being loaded, before any performer exists;
 *   [control] while the engine applies a client request (plan.add, plan.remove, runtime.destroy, ...);
 *   [frame]   during a frame tick: no blocking, no I/O, no allocation in steady state.
 * Host services are tagged with the phases they may be called in. Plugins start no threads of their own
 * and call host services only from inside a call the host made into them.
 *
 * Ownership. Strings and buffers passed by the host are borrowed for the duration of the call only;
 * copy what you keep. Strings in the descriptor (ids, plan types, signatures) are owned by the plugin and
 * must stay valid until the process exits (motiond never unloads a plugin image).
 *
 * Evolution. Structs start with their size; members are only ever appended. A reader checks
 * `struct_size` before touching a member that a newer minor version added. A plugin built against minor
 * version N loads into any host whose minor version is >= N and whose major version is equal.
 * Optional capabilities are extensions found by id and revision through `get_extension` (host and
 * plugin each have one); adding one changes no version, since either side without it answers NULL.
 */
#ifndef MOTION_PLUGIN_H
#define MOTION_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** 'MOTN' read as a little-endian uint32: the first four bytes of every descriptor. */
#define MOTION_PLUGIN_MAGIC 0x4E544F4Du
#define MOTION_ABI_MAJOR 1u
#define MOTION_ABI_MINOR 1u

/** Name of the one exported entry function. */
#define MOTION_PLUGIN_ENTRY_SYMBOL "motion_plugin_entry"

/** Return codes of plugin and host functions that can fail. */
#define MOTION_OK 0
#define MOTION_ERROR 1

/** Log levels for `motion_host.log`, numbered like syslog priorities. */
#define MOTION_LOG_ERROR 3
#define MOTION_LOG_WARNING 4
#define MOTION_LOG_INFO 6
#define MOTION_LOG_DEBUG 7

/** Factory flag: performers advance with time and receive `advance` while they hold an is-active token. */
#define MOTION_FACTORY_CONTINUOUS 1u

/** Largest vector a property holds. */
#define MOTION_MAX_COMPONENTS 4u

/** An interned (runtime, target, property name). Valid while the performer that interned it lives. */
typedef uint32_t motion_property;
#define MOTION_INVALID_PROPERTY 0xFFFFFFFFu

/** An is-active token. 0 is never a valid token. */
typedef uint64_t motion_token;

/** The host's name for one performer, handed to `create`; the plugin passes it back to host services. */
typedef uint64_t motion_performer_ref;

/**
 * Services the host hands to the plugin. The pointer passed to `init` and `create` stays valid until
 * the process exits. Every member is non-NULL in a host of this ABI version.
 */
typedef struct motion_host {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    /** Opaque to plugins. */
    void *host_data;

    /**
     * [control] Interns `name` (borrowed, UTF-8, NUL-terminated) as a property of the performer's target
     * and returns its handle, or MOTION_INVALID_PROPERTY if `name` is empty or `performer` is unknown.
     * Do this when a plan is added, never per frame.
     */
    motion_property (*intern_property)(const struct motion_host *host, motion_performer_ref performer,
                                       const char *name);

    /**
     * [control, frame] Copies the property's current value and velocity into the caller's arrays of
     * `capacity` doubles (either may be NULL). Returns the property's component count, 0 if it has never
     * been written.
     */
    uint32_t (*read_property)(const struct motion_host *host, motion_property property, double *value,
                              double *velocity, uint32_t capacity);

    /**
     * [control, frame] Sets the property to `count` (1...MOTION_MAX_COMPONENTS) components from `value`;
     * `velocity` may be NULL (zero velocity). Both arrays are borrowed for the call. The next frame
     * carries the change. Out-of-range counts are ignored.
     */
    void (*write_property)(const struct motion_host *host, motion_property property, const double *value,
                           const double *velocity, uint32_t count);

    /**
     * [control] Adds a plan (UTF-8 JSON object with a "type", `length` bytes, borrowed) to the
     * performer's own target, synchronously: the plan is performed before this returns. On failure
     * returns MOTION_ERROR and writes a NUL-terminated message into `error` (capacity bytes, may be NULL).
     */
    int32_t (*emit_plan)(const struct motion_host *host, motion_performer_ref performer,
                         const char *plan_json, size_t length, char *error, size_t error_capacity);

    /**
     * [control, frame] Takes an is-active token: the runtime is active while any token is held, and a
     * continuous performer is advanced while it holds one. Returns 0 if `performer` is unknown.
     */
    motion_token (*token_generate)(const struct motion_host *host, motion_performer_ref performer);

    /**
     * [control, frame] Releases a token. Releasing one twice, or one the performer does not hold, is
     * reported in the trace as `plugin.error` and otherwise ignored.
     */
    void (*token_terminate)(const struct motion_host *host, motion_performer_ref performer,
                            motion_token token);

    /**
     * [control, frame] Publishes a trace event of `kind` (e.g. "animation.ended") on the performer's
     * runtime and target. `fields_json` is NULL or a JSON object whose members are added to the event
     * (e.g. {"property":"position","reason":"finished"}). Both strings are borrowed.
     */
    void (*trace)(const struct motion_host *host, motion_performer_ref performer, const char *kind,
                  const char *fields_json);

    /**
     * [load, control, frame] Writes a line to the daemon log. `performer` may be 0 when there is none.
     * Keep this off the frame path except for errors.
     */
    void (*log)(const struct motion_host *host, motion_performer_ref performer, int32_t level,
                const char *message);

    /** [load, control] Looks up an optional host capability such as "motion.clock/1"; NULL if absent. */
    const void *(*get_extension)(const struct motion_host *host, const char *id);
} motion_host;

/**
 * One plan type and the performer that carries it out. The host creates at most one performer per
 * (runtime, target, factory).
 */
typedef struct motion_factory {
    uint32_t struct_size;
    /** MOTION_FACTORY_* flags. */
    uint32_t flags;
    /** The plan type name clients put in "type", e.g. "Spring". Owned by the plugin. */
    const char *plan_type;
    /** The plugin's own data for this factory, handed back through `create`'s `factory`. May be NULL. */
    void *factory_data;

    /**
     * [control] Creates a performer for the target named `target` (borrowed). `factory` is this struct.
     * `host` and `performer` stay valid until `destroy`; keep them to call host services. Must not call
     * host services itself. Returns the plugin's instance pointer, or NULL on failure.
     */
    void *(*create)(const struct motion_factory *factory, const motion_host *host,
                    motion_performer_ref performer, const char *target);

    /**
     * [control] Destroys the instance. Tokens it still holds are released by the host afterwards;
     * no further calls reach the instance.
     */
    void (*destroy)(void *instance);

    /**
     * [control] Hands the performer a plan: `plan_json` is a UTF-8 JSON object of `length` bytes, followed
     * by a NUL that `length` does not count, borrowed for the call. Object keys arrive sorted.
     * Returns MOTION_OK, or MOTION_ERROR with a NUL-terminated message in `error` (capacity bytes) when the
     * plan is invalid; an invalid plan must leave the performer as it was. The message should start with
     * the offending field, e.g. "to: expected 1 to 4 numbers".
     */
    int32_t (*add_plan)(void *instance, const char *plan_json, size_t length, char *error,
                        size_t error_capacity);

    /**
     * [control] Like add_plan, under a name unique per target. The host removes an existing plan of the
     * same name first (remove_named_plan), then calls this. May be NULL: the host calls add_plan instead.
     */
    int32_t (*add_named_plan)(void *instance, const char *name, const char *plan_json, size_t length,
                              char *error, size_t error_capacity);

    /** [control] Removes the plan added under `name` (borrowed). May be NULL. */
    void (*remove_named_plan)(void *instance, const char *name);

    /**
     * [frame] Advances the performer by `dt` seconds. Called once per tick while the performer holds
     * at least one is-active token (a performer that takes its first token during a frame is advanced
     * from the next tick); NULL for performers that are not continuous. The probe (motiond checks each
     * new plugin file in a child process first) also calls it once on a fresh instance that has no plan
     * and no token: it must then return at once.
     */
    void (*advance)(void *instance, double dt);
} motion_factory;

/**
 * A timing curve written as a plain C function `double f(double t, ...)`, called through libffi.
 * `signature` lists the argument types after the return type, e.g. "d(d)" or "d(dd)" ('d' = double).
 */
typedef struct motion_function {
    const char *name;
    const char *signature;
    void (*function)(void);
} motion_function;

/** The descriptor `motion_plugin_entry` returns. Owned by the plugin, valid for the process lifetime. */
typedef struct motion_plugin {
    /** MOTION_PLUGIN_MAGIC. Checked before anything else is read. */
    uint32_t magic;
    /** sizeof(motion_plugin) as the plugin was compiled. */
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    uint32_t reserved;
    /** Stable identity, reverse-DNS, e.g. "org.motiond.spring". */
    const char *id;
    /** The plugin's own version, e.g. "1.0.0". */
    const char *version;
    /** "c" for a pure C plugin, "swift-<toolchain version>" for a Swift one. */
    const char *build_tag;

    /**
     * [load] Called once after the descriptor was checked, before any factory is used. Returns MOTION_OK
     * or MOTION_ERROR (the plugin is then not used). May be NULL.
     */
    int32_t (*init)(const motion_host *host);
    /** [load] Reserved for orderly shutdown; motiond never unloads a plugin image. May be NULL. */
    void (*deinit)(void);

    uint32_t factory_count;
    uint32_t function_count;
    /** `factory_count` factories. */
    const motion_factory *factories;
    /** `function_count` timing functions (may be NULL when the count is 0). */
    const motion_function *functions;

    /** [load, control] Optional capabilities by id and revision, e.g. "motion.migrate/1". May be NULL. */
    const void *(*get_extension)(const char *id);
} motion_plugin;

/**
 * Host extension "motion.curves/1": timing functions that plugins export (`motion_plugin.functions`),
 * called by the host through libffi. Get it with `host->get_extension(host, MOTION_CURVES_EXTENSION)`.
 * A curve is bound to its arguments once, when a plan is added; evaluating it is then one call per sample.
 */
#define MOTION_CURVES_EXTENSION "motion.curves/1"

typedef uint64_t motion_curve;

typedef struct motion_curves {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Binds the function `name` (borrowed) to `arguments` (the values after t, borrowed) and
     * returns a curve, or 0 with a NUL-terminated message in `error` when there is no such function or
     * the arguments do not match its signature.
     */
    motion_curve (*bind)(const motion_host *host, const char *name, const double *arguments,
                         uint32_t argument_count, char *error, size_t error_capacity);
    /** [control, frame] f(t, arguments...). Returns t unchanged for an unknown curve. */
    double (*evaluate)(const motion_host *host, motion_curve curve, double t);
    /** [control, frame] The curve is no longer used. */
    void (*release)(const motion_host *host, motion_curve curve);
} motion_curves;

/** The entry function every plugin exports. Must be cheap and side-effect free: no host is known yet. */
/**
 * Plugin extension "motion.migrate/1": hot swap with state. When a new build of a plugin replaces a
 * running one, the host moves each running performer to the new build at a tick boundary: it exports the
 * old instance's state as JSON, creates an instance with the new build's factory for the same plan type,
 * target and performer ref, and imports the state into it. Both builds must offer the extension;
 * without it, running performers finish on the old build and new plans go to the new one.
 * Return it from `motion_plugin.get_extension(MOTION_MIGRATE_EXTENSION)`.
 */
#define MOTION_MIGRATE_EXTENSION "motion.migrate/1"

typedef struct motion_migrate {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Writes the instance's state (UTF-8 JSON, no NUL needed) into `buffer` of `capacity` bytes
     * and returns its length. If the length exceeds `capacity`, the host calls again with a buffer at
     * least that large. Returns 0 if the instance cannot be exported (the swap is then abandoned).
     * `instance` was made by `factory`, a factory of this plugin image.
     */
    size_t (*export_state)(const motion_factory *factory, void *instance, char *buffer, size_t capacity);
    /**
     * [control] Restores state that an earlier build's `export_state` wrote (`length` bytes, borrowed,
     * followed by a NUL) into `instance`, freshly created by `factory` (of this image) and given no plan
     * yet. It continues where the old instance was: it takes tokens (token_generate) for what is still
     * running and writes no jump. Returns MOTION_OK, or MOTION_ERROR with a NUL-terminated message in
     * `error` (capacity bytes); the host then destroys the instance and keeps the old build running.
     */
    int32_t (*import_state)(const motion_factory *factory, void *instance, const char *json, size_t length,
                            char *error, size_t error_capacity);
} motion_migrate;

/**
 * Plugin extension "motion.batch/1" (ABI 1.1): advance many performers in one call. Without it the host
 * calls `motion_factory.advance` once per performer per tick; with it, once per factory per tick, so a
 * plugin can keep its performers' state in contiguous arrays and step them in one loop.
 * Return it from `motion_plugin.get_extension(MOTION_BATCH_EXTENSION)`.
 */
#define MOTION_BATCH_EXTENSION "motion.batch/1"

typedef struct motion_batch {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [frame] Advances `count` instances by `dt` seconds: the same as calling `factory->advance` on each of
     * them in turn. Every instance was made by `factory` (a continuous factory of this image), holds at
     * least one token, and appears once. `instances` is borrowed for the call. Host services may be used
     * as from `advance`; a token taken during the call is advanced from the next tick.
     */
    void (*advance_batch)(const motion_factory *factory, void *const *instances, size_t count, double dt);
} motion_batch;

/**
 * Host extension "motion.properties/1" (ABI 1.1): many property writes in one call. Get it with
 * `host->get_extension(host, MOTION_PROPERTIES_EXTENSION)`; a host without it returns NULL, and the plugin
 * calls `write_property` for each instead.
 */
#define MOTION_PROPERTIES_EXTENSION "motion.properties/1"

typedef struct motion_properties {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control, frame] The same as `n` calls of `write_property`: property `properties[i]` gets `counts[i]`
     * components from `values + i * MOTION_MAX_COMPONENTS` and `velocities + i * MOTION_MAX_COMPONENTS`
     * (`velocities` may be NULL: zero velocity). All arrays are borrowed for the call.
     */
    void (*write_properties)(const motion_host *host, const motion_property *properties, const uint8_t *counts,
                             const double *values, const double *velocities, size_t n);
} motion_properties;

/**
 * Host extension "motion.claim/1": one animation per property. Two performers of one target (say a
 * Spring and then a Tween on "opacity") must not both drive a property: the newer plan wins. A performer
 * that starts animating a property claims it; the performer that animated it before is told to let go
 * through its plugin's "motion.yield/1" extension, if it has one. Negotiated by id: a host without it
 * returns NULL, and the plugin simply does not claim.
 */
#define MOTION_CLAIM_EXTENSION "motion.claim/1"

typedef struct motion_claim {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] `performer` starts animating `property` (a handle of its own target). If another
     * performer of the target claimed it before and is still alive, the host first calls that
     * performer's `yield_property` (so its "interrupted" trace comes before the claimant's own events).
     * Claiming a property the performer already holds does nothing; a claim made during a frame is
     * ignored.
     */
    void (*claim_property)(const motion_host *host, motion_performer_ref performer, motion_property property);
} motion_claim;

/**
 * Plugin extension "motion.yield/1": the other half of "motion.claim/1". Return it from
 * `motion_plugin.get_extension(MOTION_YIELD_EXTENSION)`.
 */
#define MOTION_YIELD_EXTENSION "motion.yield/1"

typedef struct motion_yield {
    uint32_t struct_size;
    uint32_t reserved;
    /**
     * [control] Another performer of the same target claimed `property`: stop animating it now and
     * write nothing more to it; end that animation as any other (an "animation.ended" trace with reason
     * "interrupted", its token released). `instance` was made by `factory`, a factory of this image.
     * Called from inside the claimant's `add_plan` (possibly a performer of another plugin).
     */
    void (*yield_property)(const motion_factory *factory, void *instance, motion_property property);
} motion_yield;

typedef const motion_plugin *(*motion_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* MOTION_PLUGIN_H */
