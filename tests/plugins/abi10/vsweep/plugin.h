/* FROZEN: the plugin SDK header as ABI 1.0 shipped it, kept unchanged so
 * that tests build a 1.0 plugin and check that this host still runs it. */
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
#define VS_ABI_MINOR 0
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
	double roll, pitch, yaw; /* rad, R = Rz(yaw) Ry(pitch) Rx(roll) */
	double vx, vy, vz;       /* m/s, velocity of the origin, world frame */
	double wx, wy, wz;       /* rad/s, angular velocity, world frame */
	double speed;            /* m/s, signed, along the actor's +Y */
	double steer;            /* rad, bicycle road-wheel angle, + = left */
} vs_state;

/* What a behaviour asks of its vehicle model for one step. */
typedef struct vs_control {
	double speed;          /* m/s, target longitudinal speed */
	double steering_wheel; /* rad, at the steering wheel, + = left; the
	                          vehicle model divides by its steering_ratio */
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
} vs_host;

/* One plugin parameter. Values outside [min, max] are input errors. */
typedef struct vs_param {
	const char *name;
	double default_value;
	double min, max;
	const char *unit; /* "kg", "m", "N/rad", "deg", "" */
	const char *doc;
} vs_param;

typedef struct vs_create_args {
	uint32_t struct_size;
	const vs_actor_info *actor;
	const double *params; /* one per descriptor param, in its order */
	void *host_ctx;       /* pass to every host service */
	const vs_host *host;  /* the same table the entry received */
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
	 * (velocities, steer) as the step-0 state, a behaviour only reads it. */
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
} vs_plugin;

typedef const vs_plugin *(*vs_entry_fn)(const vs_host *host);

/* The one export of every plugin. The host calls it once, after dlopen. */
VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *host);

#ifdef __cplusplus
}
#endif

#endif /* VSWEEP_PLUGIN_H */
