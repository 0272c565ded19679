/*
 * motion_plugin.h — the motiond plugin ABI, version 1.2.
 *
 * This header is the whole contract between motiond and a plugin. A plugin is a shared library that
 * exports one C function, `motion_plugin_entry`, returning a pointer to a `motion_plugin` descriptor.
 * A plugin may be written in C alone (see Plugins/SetPlugin) or in Swift with MotionPluginKit.
 *
 * Threads. motiond calls into a plugin from one thread only, its engine thread, never concurrently.
 * (Mapping the image, which runs its constructors if it has any, may happen on another thread; from
 * `motion_plugin_entry` on, every call is on the engine thread.)
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
 * Each extension has a header of its own under motion/ext/ (as CLAP does); this header includes them all.
 *
 * History. 1.0: the descriptor, factories, host services. 1.1: extensions motion.batch/1 and
 * motion.properties/1 (no struct grew). 1.2: `motion_factory.plan_schema` (plans validated by the host)
 * and the host extension motion.plan/1 (typed access to the validated plan). Since, negotiated by id
 * without a version change: the host extension motion.gesture/1 (pointer gestures, docs/vocabulary.md#interactions), and the
 * pair motion.unread/1 (host) and motion.kept/1 (plugin): values no one reads are written on demand.
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
#define MOTION_ABI_MINOR 2u

/*
 * The sizes the structs had when each minor version was published (LP64). They never change: a host
 * accepts any descriptor at least as large as its minor version's size and reads a member that a later
 * minor version appended only when `struct_size` covers it. Arrays of factories are walked with the
 * factory's own `struct_size` as the stride, so a plugin built against an older header is read correctly.
 */
#define MOTION_PLUGIN_SIZE_1_0 88u   /* motion_plugin, ABI 1.0 and 1.1 */
#define MOTION_FACTORY_SIZE_1_0 72u  /* motion_factory, ABI 1.0 and 1.1 */
#define MOTION_FACTORY_SIZE_1_2 80u  /* motion_factory, ABI 1.2: + plan_schema */
#define MOTION_HOST_SIZE_1_0 88u     /* motion_host, ABI 1.0 to 1.2 */

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
 *
 * motiond creates the performers of dry runs (`plan.sample`, timeline replays, and a scratch performer
 * that tries a named plan's replacement before the old plan is removed: created, handed the plan,
 * destroyed) with a second pointer to the same services: every call works through either. State a
 * plugin shares between performers (a batch's columns, say) is best kept per pointer a performer was
 * created with, so that a dry run's performers, which the clock never advances, stay out of the live
 * ones' batches.
 */
typedef struct motion_host {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    /** Opaque to plugins. */
    void *host_data;

    /**
     * [control] Interns `name` (borrowed, UTF-8, NUL-terminated) as a property of the performer's target
     * and returns its handle, or MOTION_INVALID_PROPERTY if `name` is empty or longer than 256 bytes,
     * if `performer` is unknown, or if a new property would pass the target's 1,024 properties
     * or its owner's `properties` quota (refuse the plan then: the client is told why).
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

    /**
     * [load, control] Looks up an optional host capability by id and revision, e.g. "motion.curves/1"
     * (each id is in its header under motion/ext/); NULL if this host does not offer it.
     */
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
     * the offending field, e.g. "to: expected 1 to 4 numbers". `error` is never NULL; motiond passes 1 KiB.
     * A performer that takes its first token here is advanced from the next tick.
     */
    int32_t (*add_plan)(void *instance, const char *plan_json, size_t length, char *error,
                        size_t error_capacity);

    /**
     * [control] Like add_plan, under a name unique per target. The host removes an existing plan of the
     * same name first (remove_named_plan), then calls this. May be NULL: the host calls add_plan instead.
     * Before it removes the old plan, motiond hands the new one to a scratch performer of a dry run (on a
     * copy of the value of the property it names): a plan refused there leaves the old one in place.
     */
    int32_t (*add_named_plan)(void *instance, const char *name, const char *plan_json, size_t length,
                              char *error, size_t error_capacity);

    /** [control] Removes the plan added under `name` (borrowed). May be NULL. */
    void (*remove_named_plan)(void *instance, const char *name);

    /**
     * [frame] Advances the performer by `dt` seconds of animation time: the tick's interval times the
     * global speed of `settings.set` (1 unless changed; at speed 0 plans complete when added, and dt is
     * the plain interval). Called once per tick while the performer holds at least one is-active token
     * (a performer that takes its first token during a frame is advanced from the next tick); NULL for
     * performers that are not continuous. `dt` is not always a frame: a dry run (`plan.sample`) advances
     * by the times asked, and after a restart the journal's replay advances each target from one change
     * to the next and then to now in one call each, so `dt` can be the whole downtime. Compute the state
     * at `dt` exactly (a closed form, a phase), as the shipped plugins do, not in fixed steps. The probe (motiond checks each
     * new plugin file in a child process first) also calls it once on a fresh instance that has no plan
     * and no token: it must then return at once. Every client's frames wait for it: a call into the
     * plugin (this one, a batch, add_plan, …) that takes longer than a frame interval is reported by
     * motiond (a warning and a `plugin.slow` trace event naming the plugin, function and milliseconds).
     */
    void (*advance)(void *instance, double dt);

    /* ---- ABI 1.2 (struct_size >= MOTION_FACTORY_SIZE_1_2) ---- */

    /**
     * [load] The plans this factory accepts, as JSON Schema text (UTF-8, NUL-terminated, owned by the
     * plugin, valid for the process lifetime), e.g.
     *   {"type":"object","properties":{"property":{"type":"string"},"value":{"type":"array",
     *    "items":{"type":"number"},"minItems":1,"maxItems":4}},"required":["property","value"]}
     * The host checks every plan against it before `add_plan` sees the plan: an unknown key, a missing
     * required key, a wrong type or a number out of range is refused with `plan.invalid` naming the
     * field (and the closest known key for a misspelt one). Objects with `properties` are closed unless
     * they say "additionalProperties": true; the plan's own "type" key is always allowed. The subset:
     * type, properties, required, additionalProperties, enum, minimum, maximum, exclusiveMinimum,
     * exclusiveMaximum, items, minItems, maxItems, anyOf (title, description, default, examples are
     * ignored); any other keyword makes the host reject the plugin with the reason. NULL: the host checks
     * only "type" and the plugin validates everything else itself. `plugins.list` shows the schema.
     */
    const char *plan_schema;
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
     * or MOTION_ERROR (the plugin is then not used). May be NULL. To say why it failed, `host->log` the
     * reason first: the last line it logged during init is the rejection's reason in `plugins.list`.
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
 * The one function a plugin exports. Must be cheap and side-effect free: no host is known yet. Returns
 * the plugin's descriptor (owned by the plugin, valid for the process lifetime), never NULL.
 */
const motion_plugin *motion_plugin_entry(void);

typedef const motion_plugin *(*motion_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#include "motion/ext/curves.h"
#include "motion/ext/migrate.h"
#include "motion/ext/batch.h"
#include "motion/ext/properties.h"
#include "motion/ext/claim.h"
#include "motion/ext/yield.h"
#include "motion/ext/plan.h"
#include "motion/ext/gesture.h"
#include "motion/ext/unread.h"
#include "motion/ext/kept.h"

#endif /* MOTION_PLUGIN_H */
