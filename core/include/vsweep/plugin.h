/* vsweep plugin SDK — the one header a vehicle-model or behaviour plugin needs.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * VS_ENTRY_SYMBOL ("vsweep_plugin_entry"), returning a const descriptor.
 * The host passes its services in as a const table at that call; the plugin
 * never links against host symbols, so it builds against this header alone:
 *
 *     cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags vsweep) \
 *        -o my_model.so my_model.c -lm
 *
 * Conventions (docs/conventions.md, RoadRunner's): world frame X east,
 * Y north, Z up, metres; actor frame X right, Y forward, Z up, origin at
 * the centre of the bounding-box footprint; yaw 0 faces +Y, so the
 * heading from +X is yaw + pi/2.
 *
 * Versioning: the host refuses a plugin whose abi_major differs from its own
 * or whose abi_minor is newer. Structs that carry a struct_size field grow
 * only at the end, within a major version; a reader uses a field added in a
 * later minor only when struct_size says it is there.
 *
 * Ownership: whoever allocates frees. An instance made by create() is the
 * plugin's until destroy(). Pointers the host passes in (actor info, params,
 * routes) stay valid until destroy(); pointers returned by host services stay
 * valid until the plugin's call returns.
 *
 * Threads: the host may run many instances at once on different threads.
 * Instances must be independent; plugin globals are read-only after entry.
 */
#ifndef VSWEEP_PLUGIN_H
#define VSWEEP_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VS_ABI_MAJOR 1
#define VS_ABI_MINOR 1
#define VS_ENTRY_SYMBOL "vsweep_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define VS_EXPORT __attribute__((visibility("default")))
#define VS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define VS_EXPORT
#define VS_PRINTF(fmt, args)
#endif

/* What a plugin call reports, with FMI's meanings. */
typedef enum vs_status {
	VS_OK = 0,      /* all well */
	VS_WARNING = 1, /* all well, but something was logged worth reading */
	VS_DISCARD = 2, /* this step's result is unusable: the variant fails */
	VS_ERROR = 3,   /* this instance cannot go on: the variant fails */
	VS_FATAL = 4    /* the plugin itself is broken: the variant fails */
} vs_status;

typedef enum vs_kind {
	VS_KIND_VEHICLE_MODEL = 1, /* control in -> state out */
	VS_KIND_BEHAVIOUR = 2      /* previous-step world in -> control out */
} vs_kind;

typedef enum vs_log_level {
	VS_LOG_DEBUG = 0,
	VS_LOG_INFO = 1,
	VS_LOG_WARNING = 2,
	VS_LOG_ERROR = 3 /* the message becomes the failed variant's reason */
} vs_log_level;

/* The state of one actor at one step; what the host stores. */
typedef struct vs_state {
	double x, y, z;          /* m, actor origin, world frame */
	double roll, pitch, yaw; /* rad, R = Rz(yaw) Rx(pitch) Ry(roll):
	                            pitch about the actor's X (right)
	                            axis, nose up +; roll about its Y
	                            (forward) axis (results version 2) */
	double vx, vy, vz;       /* m/s, velocity of the origin, world frame */
	double wx, wy, wz;       /* rad/s, angular velocity, world frame */
	double speed;            /* m/s, signed, along the actor's +Y */
	double steer;            /* rad, bicycle road-wheel angle, + = left */
} vs_state;

/* What a behaviour asks of its vehicle model for one step.
 *
 * vs_control has no struct_size, so ABI 1.1's accel follows one rule: the
 * host sets accel = NaN before every behaviour_step and, after it, keeps
 * the value only when the behaviour's descriptor says abi_minor >= 1 (a
 * 1.0 behaviour writes speed and steering_wheel alone). A vehicle model of
 * minor >= 1 given a finite accel integrates its speed with it (limited to
 * >= 0, within its acceleration limits) and ignores speed; given NaN it
 * tracks speed as in 1.0. A 1.0 model never reads accel. */
typedef struct vs_control {
	double speed;          /* m/s, target longitudinal speed */
	double steering_wheel; /* rad, at the steering wheel, + = left; the
	                          vehicle model divides by its steering_ratio */
	/* ---- ABI 1.1 (see above) */
	double accel;          /* m/s^2, longitudinal acceleration; NaN: none,
	                          track speed instead */
	/* ---- ABI 1.1, character actors (an asset of kind: character has no
	 * axles and no vehicle model): the host moves a character as a
	 * point mass by what its behaviour writes here, and reads these
	 * only for a character, from a behaviour whose descriptor's drives
	 * has VS_DRIVES_CHARACTER. The host sets all five to NaN before
	 * every behaviour_step; speed, steering_wheel and accel are then
	 * not read. */
	double x, y;           /* m, world: where the origin is at the end
	                          of the step; NaN: moved by (vx, vy) * dt */
	double vx, vy;         /* m/s, world: the origin's velocity at the
	                          end of the step (required, finite) */
	double yaw;            /* rad, RoadRunner yaw (0 faces +Y) at the end
	                          of the step; NaN: facing along (vx, vy),
	                          or as before while (vx, vy) is 0 */
} vs_control;

/* One actor as the scenario (and its variant) defines it. */
typedef struct vs_actor_info {
	uint32_t struct_size;
	int64_t id;                  /* > 0, unique in the scenario */
	const char *name;
	double length, width, height; /* m, bounding box */
	double front_overhang;        /* m, front bumper to front axle */
	double rear_overhang;         /* m, rearmost axle to rear bumper */
	double wheelbase;             /* m, front axle to rear axle group centre */
	double front_axle_y;          /* m, actor frame */
	double rear_axle_y;           /* m, actor frame, rear axle group centre */
	double track;                 /* m, between left and right wheel centres */
	double wheel_radius;          /* m */
	uint32_t n_axles;             /* 0 for a non-vehicle */
	double steering_ratio;        /* steering wheel : road wheel, of its model */
	const double *speed;          /* m/s, the route's speeds */
	size_t n_speed;
	const double *waypoints;      /* m, world, n_waypoints rows of x y z */
	size_t n_waypoints;
	const double *yaw;            /* rad per waypoint (RoadRunner yaw), or NULL */
	size_t n_yaw;
	double step;                  /* s, the fixed simulation step */
	vs_state start;               /* the step-0 state */
} vs_actor_info;

/* ABI 1.1: where an actor was at the previous step, on the scenario's
 * map (docs/conventions.md, "Map location"). */
typedef struct vs_lane_location {
	char lane[40];     /* the lane's UUID "{...}"; "" when no map */
	int is_on_lane;    /* 1: between the lane's boundaries */
	double s;          /* m along the lane's centre line, travel order */
	double position;   /* s normalised by the lane's length, [0, 1] */
	double length;     /* m, the lane's length */
	double lateral;    /* m from the lane's centre line, + = left of its
	                      travel direction */
	double width;      /* m, the lane's width at s */
	double angle;      /* rad, lane tangent to travel direction, CCW > 0 */
} vs_lane_location;

/* ABI 1.1: a lane's centre line at some s. */
typedef struct vs_lane_point {
	double x, y, z;   /* m, world */
	double heading;   /* rad from +X, the lane's travel direction */
	double width;     /* m */
	double length;    /* m, the whole lane's */
} vs_lane_point;

/* ABI 1.1: which lane vs_host.lane_link gives. */
typedef enum vs_lane_relation {
	VS_LANE_LEFT = 1,     /* neighbour on the left, same direction */
	VS_LANE_RIGHT = 2,    /* neighbour on the right, same direction */
	VS_LANE_SUCCESSOR = 3 /* where the lane leads at its end */
} vs_lane_relation;

/* ABI 1.1: any actor as a behaviour may ask about it. */
typedef struct vs_actor_attr {
	int64_t id;
	const char *name;
	const char *kind;             /* "vehicle", "character" (an asset of
	                                 kind: character) or "object" (no
	                                 axles, not a character) */
	double length, width, height; /* m, bounding box */
	int64_t parent_id;            /* 0: not attached */
	const int64_t *children;      /* the actors attached to it */
	size_t n_children;
} vs_actor_attr;

/* Services the host offers. host_ctx identifies the calling instance. */
typedef struct vs_host {
	uint32_t abi_major, abi_minor, struct_size;
	/* Logs a message tagged with the variant and actor. VS_LOG_ERROR
	 * messages become the variant's failure reason. */
	void (*log)(void *host_ctx, vs_log_level level, const char *fmt, ...)
		VS_PRINTF(3, 4);
	/* The IDs of every actor, in scenario order; returns the count. */
	size_t (*actor_ids)(void *host_ctx, const int64_t **ids);
	/* Every actor's state at the previous step (step k-1 while step k is
	 * computed); NULL for an unknown ID. */
	const vs_state *(*previous_state)(void *host_ctx, int64_t actor_id);

	/* ---- ABI 1.1: use only when struct_size covers them. Every answer
	 * is about the previous step (or the map, which does not change), so
	 * results do not depend on the order actors are stepped in. */
	/* An actor's MapLocation at step k-1 into *out. Returns 0, or -1 for
	 * an unknown ID or when the scenario has no map. */
	int (*map_location)(void *host_ctx, int64_t actor_id,
	                    vs_lane_location *out);
	/* Lane (UUID)'s centre line at s (m along it, clamped to the lane).
	 * Returns 0, or -1 for an unknown lane. */
	int (*lane_point)(void *host_ctx, const char *lane, double s,
	                  vs_lane_point *out);
	/* The UUID of lane's neighbour or successor (vs_lane_relation), or
	 * NULL when there is none; valid as long as the instance. */
	const char *(*lane_link)(void *host_ctx, const char *lane,
	                         int relation);
	/* An actor's attributes, or NULL for an unknown ID; valid as long as
	 * the instance. */
	const vs_actor_attr *(*actor_attr)(void *host_ctx, int64_t actor_id);

	/* ---- ABI 1.1, a broad phase for searches among actors (a lead
	 * search), so that one costs what the traffic near the actor costs,
	 * not what the whole scenario holds. Use only when struct_size
	 * covers them; like the services above they answer about step k-1. */
	/* The actors whose MapLocation is lane (UUID) with is_on_lane 1 (an
	 * actor off the road, located in its nearest lane, is not listed:
	 * actors_near finds it), in order of their s
	 * (m along the lane, as map_location gives it; equal s in scenario
	 * order): their IDs into *ids, their s into *s, both valid until the
	 * plugin's call returns. Returns the count; 0 for an unknown lane. */
	size_t (*lane_actors)(void *host_ctx, const char *lane,
	                      const int64_t **ids, const double **s);
	/* The actors whose origin lies within radius (m) of (x, y) in plan,
	 * in scenario order; *ids valid until the next actors_near call or
	 * until the plugin's call returns. Returns the count. */
	size_t (*actors_near)(void *host_ctx, double x, double y,
	                      double radius, const int64_t **ids);
	/* The largest distance (m, in plan) from an actor's origin to a
	 * corner of its footprint (width x length about the origin) or of
	 * the footprint of an actor attached to it, directly or further down
	 * (a tractor's trailers); infinite when a position is not finite. A
	 * search that has its best answer at distance d may stop once what
	 * is left is farther than d plus this. */
	double (*actor_reach)(void *host_ctx);
} vs_host;

/* One plugin parameter. Values outside [min, max] are input errors. */
typedef struct vs_param {
	const char *name;
	double default_value;
	double min, max;
	const char *unit; /* "kg", "m", "N/rad", "deg", "" */
	const char *doc;
} vs_param;

/* ABI 1.1: one value a plugin reports each step besides its state (a
 * model's sideslip, a tyre force); stored as the signal "PLUGIN.NAME". */
typedef struct vs_output {
	const char *name; /* [A-Za-z_][A-Za-z0-9_]*, unique in the plugin */
	const char *unit; /* "rad", "N", "" */
	const char *doc;
} vs_output;

typedef struct vs_create_args {
	uint32_t struct_size;
	const vs_actor_info *actor;
	const double *params; /* one per descriptor param, in its order */
	void *host_ctx;       /* pass to every host service */
	const vs_host *host;  /* the same table the entry received */
	/* ABI 1.1 (present when struct_size covers it): one double per
	 * descriptor output, owned by the host, valid until destroy(). The
	 * plugin writes this step's values in reset() and in each step; the
	 * host reads them after the call (NaN: no value this step). The
	 * host zeroes it before create(). */
	double *outputs;
	/* ABI 1.1: the descriptor create() was called through, so that one
	 * create function can serve several descriptors (the host's FMU
	 * adapter does). */
	const struct vs_plugin *plugin;
} vs_create_args;

typedef struct vs_plugin {
	uint32_t abi_major;   /* VS_ABI_MAJOR the plugin was built with */
	uint32_t abi_minor;   /* VS_ABI_MINOR the plugin was built with */
	uint32_t struct_size; /* sizeof(vs_plugin) the plugin was built with */
	uint32_t kind;        /* a vs_kind; fixed width whatever the compiler */
	const char *name;     /* what scenarios name it by: [a-z0-9_]+ */
	const char *version;
	const char *doc;      /* one line */
	const vs_param *params;
	size_t n_params;
	/* Makes an instance for one actor of one variant. On failure logs why,
	 * returns VS_ERROR and leaves *instance NULL. */
	vs_status (*create)(const vs_create_args *args, void **instance);
	/* Returns the instance to the actor's start. On entry *state is the
	 * host's start state (args->actor->start); a vehicle model completes it
	 * (velocities, steer) as the step-0 state, a behaviour only reads it
	 * (except a behaviour driving a character, which nothing else moves:
	 * it completes the state as a vehicle model does). */
	vs_status (*reset)(void *instance, vs_state *state);
	/* Vehicle models: advance one step from t - dt to t under control;
	 * *state holds the model's previous output and receives step k. */
	vs_status (*vehicle_step)(void *instance, double t, double dt,
	                          const vs_control *control, vs_state *state);
	/* Behaviours: from the previous-step world (self is this actor's state
	 * at step k-1), the control for step k. */
	vs_status (*behaviour_step)(void *instance, double t, double dt,
	                            const vs_state *self, vs_control *control);
	/* Frees the instance; accepts NULL. */
	void (*destroy)(void *instance);

	/* ---- ABI 1.1: read by the host only when struct_size covers them */
	/* What the plugin writes into vs_create_args.outputs each step. */
	const vs_output *outputs;
	size_t n_outputs;
	/* Behaviours: 1 when the behaviour follows the actor's route
	 * (waypoints, their speeds and yaws), 0 when it ignores it. A sweep
	 * that changes the route of an actor whose behaviour does not follow
	 * one is refused (its change would have no effect). */
	uint32_t follows_route;
	/* Behaviours: which actors it can drive, VS_DRIVES_* bits. 0, or a
	 * descriptor too small to hold the field: vehicles only. A scenario
	 * naming a behaviour for an actor it cannot drive is an input
	 * error. */
	uint32_t drives;
	/* What the plugin cannot work without, VS_NEEDS_* bits. 0, or a
	 * descriptor too small to hold the field: nothing. A scenario
	 * naming the plugin for an actor without what it needs is an input
	 * error, found before any variant runs (vsweep check too). */
	uint32_t needs;
} vs_plugin;

/* vs_plugin.drives bits. */
#define VS_DRIVES_VEHICLE 1u   /* writes speed, steering_wheel, accel */
#define VS_DRIVES_CHARACTER 2u /* writes x, y, vx, vy, yaw of vs_control */

/* vs_plugin.needs bits. */
#define VS_NEEDS_MAP 1u /* a map with lanes: map_location, lane_point and
                           lane_link answer nothing without one */

typedef const vs_plugin *(*vs_entry_fn)(const vs_host *host);

/* The one export of every plugin. The host calls it once, after dlopen. */
VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *host);

#ifdef __cplusplus
}
#endif

#endif /* VSWEEP_PLUGIN_H */
