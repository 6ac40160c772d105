/* `vsweep plot`: trajectories on the map, or speed over time, from a
 * results file, as a plain SVG 1.1 file (no runtime dependency).
 *
 * plot.c reads the results file and writes the file, plot_traj.c and
 * plot_speed.c draw the two kinds of chart, plot_lanes.c turns the stored
 * scenario's map into lane geometry, plot_svg.c holds the pieces both
 * charts share (colours, ticks, legend, text).
 *
 * How a reader maps the SVG back to the data (the e2e test does this):
 *
 *  - trajectory: every trajectory is a <path data-variant="V"
 *    data-actor="A" data-stride="K" d="M x y L x y ..."> whose coordinates
 *    are world metres (x east, y north) printed with 3 decimals, inside
 *    <g id="trajectories" transform="matrix(s 0 0 -s tx ty)">: screen =
 *    (s·x + tx, -s·y + ty), so north is up and both axes share the scale
 *    s (px/m). The lanes sit in <g id="lanes"> with the same transform.
 *    With --aspect free (and always for --kind lateral) there is no
 *    transform: the paths hold screen px, and the group carries
 *    data-x="x0 x1" data-y="y0 y1" data-box="bx by bw bh": x0 maps to bx,
 *    x1 to bx + bw, y1 to by and y0 to by + bh.
 *  - lateral: as trajectory with free aspect, x = s (m) along the centre
 *    line of the lane vs_map_locate finds for the stored position (the
 *    query that fills map_location), counted in the road reference
 *    line's direction, and y = the offset (m, left +) from the reference
 *    line; lane edges are horizontal lines. Round a ring s wraps to 0 and
 *    the line breaks there.
 *  - events: collisions and lane changes of the plotted variants and
 *    actors, as <circle class="event-mark" data-kind data-variant
 *    data-actor data-t data-x data-y cx cy> in <g id="events"> (screen
 *    px); data-x and data-y are the actor's stored position at the
 *    event's step (the last stored step at or before it).
 *  - signal (--kind signal --signal NAME): as speed, the signal's value
 *    (actor_signal.value) in place of the speed, data-speed="v0 v1" its
 *    range (which may be negative).
 *  - speed: every series is a <path data-variant data-actor data-stride>
 *    in screen pixels (3 decimals) inside <g id="series" data-t="t0 t1"
 *    data-speed="v0 v1" data-box="x y w h">: t0 maps to x, t1 to x + w,
 *    speed v0 to y + h and v1 to y. (A transform would scale the stroke
 *    differently along the two axes.)
 *  - decimation: a series of n stored rows (step order) longer than
 *    PLOT_MAX_POINTS keeps rows 0, K, 2K, ... and always the last row;
 *    K is data-stride (1: every stored row). A kept row with a
 *    non-finite value (stored as NULL) is left out and the line breaks
 *    there with a new "M".
 */
#ifndef VS_PLOT_H
#define VS_PLOT_H

#include <stdint.h>
#include <stdio.h>

#define PLOT_MAX_VARIANTS 20    /* plotted without --variant */
#define PLOT_MAX_EVENTS 2000    /* markers drawn */
#define PLOT_MAX_POINTS 2000    /* per path, before decimation */

struct vs_scenario;

/* One actor of one variant: its stored rows, decimated, in step order. */
typedef struct plot_series {
	int variant;        /* index into plot_data.variants */
	int64_t actor_id;
	int stride;         /* kept every stride-th stored row (and the last) */
	int n, cap;         /* points kept, room for them */
	double *t;          /* s */
	double *x, *y;      /* m, world */
	double *speed;      /* m/s, |(vx, vy, vz)| */
} plot_series;

typedef struct plot_variant {
	int64_t id;
	int failed;         /* status 'failed' */
	char *params;       /* abbreviated "actor1.speed=8; ..." for legends */
	int has_value;      /* --colour-by: the parameter is a number here */
	double value;       /* its value */
} plot_variant;

/* An actor as the legend names it (from the first plotted variant). */
typedef struct plot_actor {
	int64_t id;
	char *name;
} plot_actor;

/* A polyline of the map, world metres, rows of x y. */
typedef struct plot_line {
	int kind;           /* PLOT_LANE_* */
	int n;
	double *xy;
} plot_line;

enum {
	PLOT_LANE_SURFACE,  /* closed outline of a lane's area (one or two
	                       rings: an annulus has two) */
	PLOT_LANE_BOUNDARY, /* a lane's left or right edge */
	PLOT_LANE_CENTRE    /* its centre line, drawn dashed */
};

typedef struct plot_lanes {
	int n;
	plot_line *lines;
	int n_lanes;        /* lanes drawn */
} plot_lanes;

/* An event marker: where the actor was when it happened. */
typedef struct plot_event {
	int variant;        /* index into plot_data.variants */
	int64_t actor_id;
	double t;           /* s */
	char kind[24];      /* collision | lane_change */
	double x, y;        /* m, as the chart's axes (world, or s/offset) */
} plot_event;

typedef struct plot_data {
	const char *db_path;
	char *scenario_name;     /* from the stored scenario, or NULL */
	int n_variants;
	plot_variant *variants;
	int n_actors;
	plot_actor *actors;
	int n_series;
	plot_series *series;
	const char *colour_by;   /* PARAM, or NULL */
	double vmin, vmax;       /* over the variants that have a value */
	int n_no_value;          /* plotted variants without a value */
	plot_lanes lanes;
	int free;                /* --aspect free (or --kind lateral) */
	int lateral;             /* --kind lateral: x, y are s, offset */
	int has_xlim, has_ylim;  /* --xlim, --ylim */
	double xlim[2], ylim[2]; /* m */
	int has_around;          /* --around ACTOR */
	int64_t around;
	int n_events;
	plot_event *events;
	const char *signal;      /* --kind signal: its name; the series'
	                            speed holds its value */
	char *signal_unit;       /* its unit, owned; NULL or '': none
	                            declared, or not known (a file
	                            without units) */
} plot_data;

/* `vsweep plot results.db [--variant I...] [--colour-by PARAM]
 * [--kind trajectory|speed|lateral] [--aspect free|equal] [--xlim A,B]
 * [--ylim A,B] [--around ACTOR] [--actor ID] -o FILE.svg|FILE.png`.
 * Returns an exit status. */
int cli_plot(int argc, char **argv);

/* The charts: write the whole SVG document to f. */
void plot_trajectory(FILE *f, const plot_data *d);
void plot_speed(FILE *f, const plot_data *d);

/* The lanes of the scenario's map as polylines (lane area outlines,
 * boundaries, centre lines). Leaves out empty when the scenario has no
 * map. Returns 0. */
int plot_map_lanes(const struct vs_scenario *scn, plot_lanes *out);
void plot_lanes_finish(plot_lanes *l);

/* Lanes of the map (0 without a scenario or map). */
int plot_map_lane_count(const struct vs_scenario *scn);

/* --kind lateral: the position (x, y, z) (m) moving with (vx, vy) (m/s)
 * and yaw (rad) as out[0] = s (m) along its lane's centre line, in the
 * reference line's direction, and out[1] = offset (m, left +) from the
 * reference line, on the lane vs_map_locate finds (the query behind
 * map_location). NaN without a lane. The lane edges as horizontal lines in the same coordinates. */
void plot_lateral(const struct vs_scenario *scn, double x, double y,
                  double z, double vx, double vy, double yaw, double out[2]);
int plot_lateral_lanes(const struct vs_scenario *scn, plot_lanes *out);

/* Collisions and lane changes of the plotted variants and series' actors
 * at their stored positions (plot_events.c); scn converts them for
 * --kind lateral (NULL: world). Returns 0 or an exit status. */
struct sqlite3;
int plot_load_events(struct sqlite3 *db, const char *path, plot_data *d,
                     const struct vs_scenario *scn);

/* --kind signal: the series of signal `name` of the plotted variants
 * (actors: the --actor list, n_actors 0 for all), with values in the
 * series' speed (plot_signal.c). Returns 0 or an exit status. */
int plot_load_signal(struct sqlite3 *db, const char *path, plot_data *d,
                     const char *name, const int64_t *actors, int n_actors);

/* A series' room for `rows` stored rows, decimated to PLOT_MAX_POINTS,
 * and appending stored row number `row` (kept every stride-th). */
void plot_series_alloc(plot_series *s, int64_t rows);
void plot_series_push(plot_series *s, int64_t row, double t, double x,
                      double y, double value);

/* Renders the SVG document svg[0..len) to a PNG file through
 * rsvg-convert. Returns 0 or an exit status (3, with a message). */
int plot_write_png(const char *svg, size_t len, const char *out);

/* Draws the chart (speed: plot_speed, else plot_trajectory) in memory,
 * then writes it to out, as PNG when out ends in .png: a failure is one
 * I/O error (exit 3), never half a chart. Returns an exit status. */
int plot_write_chart(const char *out, int speed, const plot_data *d);

/* True (with a message) when out is the results file db itself or
 * another SQLite file: a plot (or a report) never replaces results. */
int plot_clobbers_results(const char *db, const char *out);

/* ---- shared drawing helpers (plot_svg.c) ---- */

/* The stroke colour of a series, as "#rrggbb" into out[8]: by the colour
 * parameter when there is one, else distinct per variant. */
void plot_series_colour(const plot_data *d, int variant, char out[8]);

/* Viridis at u in [0, 1] (clamped; NaN as 0), as "#rrggbb". */
void plot_viridis(double u, char out[8]);

/* Dash pattern of the actor with this index (in screen px, scaled by
 * unit px per user unit), or "" for solid. */
void plot_actor_dash(int actor_index, double unit, char *out, size_t size);

/* Opens the <path> of one series: its data attributes (variant, actor,
 * stride, swept value), colour and the actor's dash pattern for lines of
 * width unit; the caller writes the d attribute and closes it. */
void plot_path_open(FILE *f, const plot_data *d, const plot_series *s,
                    double unit);

/* Index of an actor in d->actors, or 0 if unknown. */
int plot_actor_index(const plot_data *d, int64_t actor_id);

/* Nice tick step (1, 2 or 5 times a power of ten) for about n ticks over
 * span; decimals needed to print its multiples. */
double plot_nice_step(double span, int n, int *decimals);

/* The multiples of step in [lo, hi] (hi widened by slack * step):
 * (*i0 + k) * step for k = 0 .. the returned count - 1, at most
 * PLOT_MAX_TICKS; 0 when the
 * axis cannot be ticked — a bound not finite, or a step below the
 * precision of the values (positions of 1e17 m), where adding the step
 * would never move on. */
#define PLOT_MAX_TICKS 200
int plot_ticks(double lo, double hi, double step, double slack,
               double *i0);

/* Path data ` d="..."/>` through (X, Y) = (a[0] x + a[1], a[2] y + a[3]),
 * 3 decimals: "M" at the first point, then "L" and implicit line-tos. A
 * point with a non-finite coordinate is left out and the line breaks
 * there (a new "M"). */
void plot_path(FILE *f, const double *x, const double *y, int n,
               const double a[4]);

/* Text with XML's special characters escaped. */
void plot_text(FILE *f, const char *s);

/* The document's start and end, with the mapping comment. */
void plot_begin(FILE *f, double w, double h, const char *kind,
                const plot_data *d);
void plot_end(FILE *f);

/* The legend in a column at (x, y), w px wide: the colour bar (with
 * --colour-by), variants with their params, actors with their dash
 * patterns, and for trajectories the start marker and lanes. Writes
 * nothing when f is NULL. Returns its height in px. */
double plot_legend(FILE *f, const plot_data *d, double x, double y, double w,
                   int trajectory);

#endif
