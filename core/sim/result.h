/* What one simulated variant produced, handed from a worker to the writer. */
#ifndef VS_RESULT_H
#define VS_RESULT_H

#include <stdint.h>

#include <vsweep/plugin.h>

typedef enum vs_variant_status {
	VS_VARIANT_DONE = 1,
	VS_VARIANT_FAILED = 2
} vs_variant_status;

/* One actor's row of actor_info. Strings point into the variant's
 * scenario or the plugin descriptors; valid while the result is. */
typedef struct vs_actor_row {
	int64_t actor_id;
	const char *name;
	const char *kind;        /* "vehicle" | "object" */
	int64_t parent_id;       /* 0: the world actor */
	const char *attach_type; /* NULL | "trailer" | "fixed" */
	double length, width, height; /* m */
	int wheel_count;
	const char *vehicle_model;
	const char *behaviour;   /* NULL: none */
} vs_actor_row;

/* What the wheel poses of one actor at one step derive from (wheels.h):
 * the rest is geometry, stored once per actor in vs_wheel_row. */
typedef struct vs_wheel_acc {
	double dist;   /* m, integral of the origin's forward speed */
	double turn;   /* rad, yaw change since step 0, unwrapped */
	double roll_l; /* m, rolled by the left steered wheel */
	double roll_r; /* m, rolled by the right steered wheel */
} vs_wheel_acc;

/* MapLocation of one actor at one step (core/map's vs_map_locate). */
typedef struct vs_map_row {
	int lane;        /* lane index, -1: none (no map, or not recorded) */
	int on_lane;     /* IsOnLane */
	double position; /* normalised s in [0, 1] */
	double angle;    /* rad, lane tangent to travel direction */
} vs_map_row;

/* One actor at one recorded step. */
typedef struct vs_state_row {
	int64_t actor_id;
	int64_t step;
	vs_state s;
	vs_wheel_acc w;
	vs_map_row m;
} vs_state_row;

/* One wheel's fixed geometry, actor frame. */
typedef struct vs_wheel_row {
	int64_t actor_id;
	int wheel;        /* 0.., front axle first, left to right */
	double x, y;      /* m, wheel centre (z is the radius) */
	double radius;    /* m */
	int steered;      /* 1: an Ackermann-steered front wheel */
	double wheelbase; /* m, for the Ackermann angle */
} vs_wheel_row;

/* Something that happened at one step (table event). */
typedef struct vs_event_row {
	int64_t step;
	int64_t actor_id;
	const char *kind;        /* "collision" | "lane_change" | "off_road" |
	                            "back_on_road" | "near_miss" (static
	                            strings) */
	int64_t other_id;        /* the other actor of a collision or near
	                            miss, else 0 */
	char detail[112];        /* e.g. lane change: "{from} -> {to}" */
} vs_event_row;

/* Two actors at one recorded step (table pair_row, view actor_pair):
 * stored once, actor_id < other_id. */
typedef struct vs_pair_row {
	int64_t step;
	int64_t actor_id, other_id;
	double distance; /* m, plan distance of the footprints, 0 touching */
	double gap;      /* m, plan distance of the origins */
	double closing;  /* m/s, -d(gap)/dt; NaN when the origins meet */
} vs_pair_row;

/* What variant_summary shows of one variant; NaN where not defined. Each
 * KPI names the actor it is of (0: none); ties go to the lowest ID. */
typedef struct vs_summary {
	double max_lat_acc;      /* m/s^2, max |V r| over actors and steps */
	double max_yaw_rate;     /* rad/s, max |wz| */
	double min_distance;     /* m, closest footprints of two actors */
	double on_lane_pct;      /* %, actor-steps on a lane (map only) */
	int64_t collisions, lane_changes;
	int64_t max_lat_acc_actor, max_yaw_rate_actor;
	int64_t min_distance_actor, min_distance_other; /* lower ID first */
	/* Safety KPIs (sim/safety.h), each with the actor it is of (0:
	 * none): the follower for TTC and headway to its lead in the same
	 * lane. */
	double min_ttc;          /* s, time to collision, closing only */
	double min_thw;          /* s, time headway, gap / own speed */
	double max_decel;        /* m/s^2, largest -dv/dt */
	double max_jerk;         /* m/s^3, largest |d^2v/dt^2| */
	int64_t min_ttc_actor, min_thw_actor, max_decel_actor, max_jerk_actor;
	/* actors x steps simulated (step 0 included), stored or not: what a
	 * run's actor-steps/s counts when it stores no rows */
	int64_t actor_steps;
} vs_summary;

/* One plugin output of one actor at one recorded step (actor_signal). */
typedef struct vs_signal_row {
	int64_t actor_id;
	int64_t step;
	int name;     /* index into vs_result.signal_names */
	double value; /* the output's unit; NaN: no value */
} vs_signal_row;

/* Plugin messages kept per variant; the rest are only counted. */
#define VS_LOG_ROWS_KEPT 1000

/* Bytes of a plugin's message (or, contained, of a line it printed) a
 * log row keeps whole, counted as the plugin gave them; a longer one is
 * cut on a character boundary within them and marked (vs_log_text). A
 * diagnostic with a path and values fits; a runaway one costs no more. */
#define VS_LOG_MESSAGE_MAX 4096
/* Bytes a stored message can hold at most: VS_LOG_MESSAGE_MAX, each byte
 * escaped to at most 4 (error.h's \xNN), and the mark. */
#define VS_LOG_TEXT_MAX (4 * VS_LOG_MESSAGE_MAX + 64)

/* One message a plugin logged (view log). */
typedef struct vs_log_row {
	int64_t actor_id;
	double t;             /* s, simulated time of the call */
	int level;            /* a vs_log_level */
	const char *plugin;   /* the plugin's name (its descriptor's) */
	char *message;        /* owned (up to 1000 rows a variant: not inline) */
} vs_log_row;

typedef struct vs_result {
	uint64_t variant;        /* variant index */
	vs_variant_status status;
	char error[1024];        /* the reason when failed */
	char *params_json;       /* owned */
	const char *label;       /* the variant's sweep label, or NULL;
	                            borrowed from the sweep */
	double wall_seconds;     /* s */
	int n_actors;
	vs_actor_row *actors;    /* owned array */
	int n_wheels;
	vs_wheel_row *wheels;    /* owned array, actor by actor */
	/* With a vs_row_sink (sim.h), the rows, signals and pairs not yet
	 * handed to it; the rest of the result is whole. */
	int64_t n_rows, cap_rows;
	vs_state_row *rows;      /* owned array, step-major, scenario order */
	int64_t n_events, cap_events;
	vs_event_row *events;    /* owned array, in step order */
	vs_summary summary;
	void *owner;             /* the variant scenario the strings live in */
	/* Plugin outputs recorded (--record signals) and plugin messages. */
	int n_signal_names;
	char **signal_names;     /* owned, "plugin.output" */
	char **signal_units;     /* owned, per name: the unit its plugin
	                            declares for it, "" none */
	int64_t n_signals, cap_signals;
	vs_signal_row *signals;  /* owned array, step-major */
	int64_t n_logs;          /* logged; at most VS_LOG_ROWS_KEPT kept */
	vs_log_row *logs;        /* owned array, in time order, the first
	                            min(n_logs, VS_LOG_ROWS_KEPT) rows'
	                            messages owned (or NULL) */
	int64_t n_pairs, cap_pairs;
	vs_pair_row *pairs;      /* owned array, step-major (--record pairs) */
	/* Rows handed to a vs_row_sink while it ran are not to be stored
	 * (its process crashed: the variant stores its failure, no rows). */
	int rows_void;
	/* The summary is unknown: the steps it would be computed over were
	 * lost with a crashed (or killed) process, or never simulated. The
	 * store writes no summary row: variant_summary's KPIs and counts
	 * are NULL, not the zeros of a cleared result. */
	int summary_void;
} vs_result;

/* Frees what the result owns and zeroes it; accepts NULL. */
void vs_result_finish(vs_result *r);

#endif
