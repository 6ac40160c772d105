/* `vsweep plot --kind trajectory`: plan view of the chosen variants'
 * trajectories on the map's lanes, north up, equal scale on both axes
 * (or, with --aspect free, each axis scaled to the data), with event
 * markers. `--kind lateral` draws the same way in road coordinates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"

#define MARGIN_L 72.0   /* px: y tick labels and the axis title */
#define MARGIN_T 48.0   /* px: the title */
#define MARGIN_B 52.0   /* px: x tick labels and the axis title */
#define MARGIN_R 16.0
#define GAP 24.0        /* px between the chart and the legend */
#define LEGEND_W 320.0
#define BOX_W 760.0     /* px, the plot area's width */
#define BOX_H_MIN 300.0 /* px: a flat scene still gets room */
#define BOX_H_MAX 900.0
#define LINE_PX 2.0     /* px, trajectory stroke */
#define MIN_SPAN 10.0   /* m: a standing actor still gets a readable view */
#define BOX_H_FREE 420.0 /* px, the box with --aspect free */
#define FLAT_SPAN 1.0   /* m: free aspect still shows a straight line flat */
#define EQUAL_HINT 8.0  /* data aspect past which equal scale hides detail */

typedef struct view {
	double x0, x1, y0, y1;   /* m, the world window shown */
	double bx, by, bw, bh;   /* px, the plot box */
	double s;                /* px per m (equal aspect) */
	int free;                /* --aspect free: no transform; the paths
	                            hold screen px, sx and sy apart */
	double kx, ky;           /* px per m along x and y */
	double m[4];             /* what the paths hold: (m0 x + m1, m2 y +
	                            m3); identity under a transform */
	double unit;             /* stroke px in path units */
} view;

typedef struct bbox {
	double x0, y0, x1, y1;
	int empty;
} bbox;

static void bbox_add(bbox *b, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return;
	if (b->empty) {
		b->x0 = b->x1 = x;
		b->y0 = b->y1 = y;
		b->empty = 0;
		return;
	}
	b->x0 = fmin(b->x0, x);
	b->x1 = fmax(b->x1, x);
	b->y0 = fmin(b->y0, y);
	b->y1 = fmax(b->y1, y);
}

/* The window: the trajectories (of the --around actor only, when
 * given), plus the lanes near them (within half the trajectories' span,
 * at least 20 m), so that the lanes the actors drive on are whole but a
 * long road does not shrink the actors to dots; --xlim and --ylim
 * replace either side. */
static view make_view(const plot_data *d)
{
	bbox t = {0, 0, 0, 0, 1};
	for (int i = 0; i < d->n_series; i++)
		for (int k = 0; k < d->series[i].n; k++)
			if (!d->has_around || d->series[i].actor_id == d->around)
				bbox_add(&t, d->series[i].x[k], d->series[i].y[k]);
	if (t.empty)
		t = (bbox){0, 0, 0, 0, 0};
	double near = fmax(20, 0.5 * fmax(t.x1 - t.x0, t.y1 - t.y0));
	bbox b = t;
	for (int i = 0; i < d->lanes.n && !d->has_around; i++) {
		const plot_line *l = &d->lanes.lines[i];
		for (int k = 0; k < l->n; k++) {
			double x = l->xy[2 * k], y = l->xy[2 * k + 1];
			if (x >= t.x0 - near && x <= t.x1 + near &&
			    y >= t.y0 - near && y <= t.y1 + near)
				bbox_add(&b, x, y);
		}
	}
	double cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
	double w = fmax(b.x1 - b.x0, MIN_SPAN), h = fmax(b.y1 - b.y0,
	                                                 d->free ? FLAT_SPAN
	                                                         : MIN_SPAN);
	w *= 1.06;  /* a margin, so no line runs along the box */
	h *= 1.06;
	if (d->has_xlim) {
		cx = (d->xlim[0] + d->xlim[1]) / 2;
		w = d->xlim[1] - d->xlim[0];
	}
	if (d->has_ylim) {
		cy = (d->ylim[0] + d->ylim[1]) / 2;
		h = d->ylim[1] - d->ylim[0];
	}
	view v;
	memset(&v, 0, sizeof v);
	v.bx = MARGIN_L;
	v.by = MARGIN_T;
	v.bw = BOX_W;
	if (d->free) {
		v.free = 1;
		v.bh = BOX_H_FREE;
		v.x0 = cx - w / 2;
		v.x1 = cx + w / 2;
		v.y0 = cy - h / 2;
		v.y1 = cy + h / 2;
		v.kx = v.bw / w;
		v.ky = v.bh / h;
		v.s = fmin(v.kx, v.ky);
		v.m[0] = v.kx;
		v.m[1] = v.bx - v.kx * v.x0;
		v.m[2] = -v.ky;
		v.m[3] = v.by + v.ky * v.y1;
		v.unit = 1;
		return v;
	}
	v.s = BOX_W / w;
	v.bh = h * v.s;
	if (v.bh > BOX_H_MAX) {
		v.bh = BOX_H_MAX;
		v.s = BOX_H_MAX / h;
	} else if (v.bh < BOX_H_MIN) {
		v.bh = BOX_H_MIN;
	}
	/* equal scale: widen whichever side the box has room for */
	w = v.bw / v.s;
	h = v.bh / v.s;
	v.x0 = cx - w / 2;
	v.x1 = cx + w / 2;
	v.y0 = cy - h / 2;
	v.y1 = cy + h / 2;
	v.kx = v.ky = v.s;
	v.m[0] = v.m[2] = 1;
	v.unit = 1 / v.s;
	return v;
}

static double sx(const view *v, double x) { return v->bx + (x - v->x0) * v->kx; }
static double sy(const view *v, double y) { return v->by + (v->y1 - y) * v->ky; }

/* <g ... transform> mapping world metres to the box, north up; with free
 * aspect the paths are in px already and the group says how to read
 * them back. */
static void world_group(FILE *f, const view *v, const char *id)
{
	if (v->free) {
		fprintf(f, "<g id=\"%s\" data-x=\"%.17g %.17g\" data-y=\"%.17g "
		        "%.17g\" data-box=\"%.17g %.17g %.17g %.17g\"", id, v->x0,
		        v->x1, v->y0, v->y1, v->bx, v->by, v->bw, v->bh);
		return;
	}
	fprintf(f, "<g id=\"%s\" transform=\"matrix(%.12g 0 0 %.12g %.12g "
	        "%.12g)\"", id, v->s, -v->s, v->bx - v->s * v->x0,
	        v->by + v->s * v->y1);
}

/* Grid lines every `step` m, labelled along the bottom and left. */
static void grid(FILE *f, const plot_data *d, const view *v)
{
	int dec, decy;
	double step = plot_nice_step(fmax(v->x1 - v->x0, v->y1 - v->y0), 10,
	                             &dec), stepy = step;
	decy = dec;
	if (v->free) {  /* each axis its own ticks */
		step = plot_nice_step(v->x1 - v->x0, 10, &dec);
		stepy = plot_nice_step(v->y1 - v->y0, 8, &decy);
	}
	double ix, iy; /* grid line k is at (ix + k) * step */
	int nx = plot_ticks(v->x0, v->x1, step, 0, &ix);
	int ny = plot_ticks(v->y0, v->y1, stepy, 0, &iy);
	fprintf(f, "<g id=\"grid\" data-step=\"%.12g\" stroke=\"#e0e0e0\" "
	        "stroke-width=\"1\">\n", step);
	for (int k = 0; k < nx; k++)
		fprintf(f, "<path d=\"M%.2f %.2fV%.2f\"/>\n",
		        sx(v, (ix + k) * step), v->by,
		        v->by + v->bh);
	for (int k = 0; k < ny; k++)
		fprintf(f, "<path d=\"M%.2f %.2fH%.2f\"/>\n", v->bx,
		        sy(v, (iy + k) * stepy),
		        v->bx + v->bw);
	fputs("</g>\n<g id=\"ticks\" font-size=\"11\" fill=\"#333\">\n", f);
	for (int k = 0; k < nx; k++) {
		double x = (ix + k) * step;
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
		        "%.*f</text>\n", sx(v, x), v->by + v->bh + 15, dec,
		        fabs(x) < step / 2 ? 0.0 : x);
	}
	for (int k = 0; k < ny; k++) {
		double y = (iy + k) * stepy;
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">"
		        "%.*f</text>\n", v->bx - 6, sy(v, y) + 4, decy,
		        fabs(y) < stepy / 2 ? 0.0 : y);
	}
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\">%s</text>\n",
	        v->bx, v->by + v->bh + 38, d->lateral ? "s along the lane "
	        "(m)" : "x (m, east)");
	fprintf(f, "<text transform=\"translate(%.2f %.2f) rotate(-90)\" "
	        "text-anchor=\"middle\" font-size=\"12\">%s</text>\n",
	        v->bx - 52, v->by + v->bh / 2, d->lateral ? "lateral offset "
	        "from the reference line (m, left +)" : "y (m, north)");
	fputs("</g>\n", f);
}

/* The largest round length (1, 2 or 5 times a power of ten) up to a
 * quarter of the box, under the box on the right: outside the data, so
 * it never hides a trajectory, and clear of the axis title on the left. */
static void scale_bar(FILE *f, const view *v)
{
	if (v->free) {
		fprintf(f, "<text id=\"not-to-scale\" x=\"%.2f\" y=\"%.2f\" "
		        "font-size=\"11\" text-anchor=\"end\">axes not to scale"
		        " (--aspect free)</text>\n", v->bx + v->bw,
		        v->by + v->bh + 38);
		return;
	}
	double quarter = (v->x1 - v->x0) / 4;
	double len = plot_nice_step(quarter, 1, NULL);  /* >= quarter */
	if (len > quarter * (1 + 1e-9)) {
		double mag = pow(10, floor(log10(len) + 1e-9));
		double m = len / mag;  /* 1, 2 or 5: one size down */
		len = m > 3 ? 2 * mag : m > 1.5 ? mag : 0.5 * mag;
	}
	double px = len * v->s, x = v->bx + v->bw - px, y = v->by + v->bh + 30;
	fprintf(f, "<g id=\"scale-bar\" data-length=\"%.12g\" data-px="
	        "\"%.6f\">\n<path d=\"M%.2f %.2fv6h%.3fv-6\" fill=\"none\" "
	        "stroke=\"#111\" stroke-width=\"1.5\"/>\n<text x=\"%.2f\" "
	        "y=\"%.2f\" font-size=\"11\" text-anchor=\"end\">scale "
	        "%.12g m</text>\n</g>\n", len, px, x, y, px, x - 6, y + 8, len);
}

/* Lane areas (under the grid) or lane lines (over it). */
static void lanes(FILE *f, const plot_data *d, const view *v, int areas)
{
	if (!d->lanes.n)
		return;
	world_group(f, v, areas ? "lane-areas" : "lanes");
	if (areas)
		fputs(" fill=\"#efefef\" fill-rule=\"evenodd\" stroke=\"none\">\n",
		      f);
	else
		fprintf(f, " fill=\"none\" stroke-width=\"%.6g\">\n", v->unit);
	for (int i = 0; i < d->lanes.n; i++) {
		const plot_line *l = &d->lanes.lines[i];
		if ((l->kind == PLOT_LANE_SURFACE) != areas || l->n < 2)
			continue;
		if (l->kind == PLOT_LANE_BOUNDARY)
			fputs("<path class=\"lane-boundary\" stroke=\"#9a9a9a\"", f);
		else if (l->kind == PLOT_LANE_CENTRE)
			fprintf(f, "<path class=\"lane-centre\" stroke=\"#b0b0b0\" "
			        "stroke-dasharray=\"%.6g,%.6g\"", 6 * v->unit,
			        5 * v->unit);
		else
			fputs("<path class=\"lane-area\"", f);
		fputs(" d=\"", f);
		for (int k = 0; k < l->n; k++) {
			double x = l->xy[2 * k], y = l->xy[2 * k + 1];
			if (!isfinite(x)) {
				/* a break between rings of one area */
				fputs("Z", f);
				if (k + 1 < l->n)
					fprintf(f, "M%.3f %.3f", v->m[0] *
					        l->xy[2 * k + 2] + v->m[1], v->m[2] *
					        l->xy[2 * k + 3] + v->m[3]);
				k++;
				continue;
			}
			fprintf(f, "%s%.3f %.3f", k == 0 ? "M" : k == 1 ? "L" : " ",
			        v->m[0] * x + v->m[1], v->m[2] * y + v->m[3]);
		}
		fputs(l->kind == PLOT_LANE_SURFACE ? "Z\"/>\n" : "\"/>\n", f);
	}
	fputs("</g>\n", f);
}

static void path_data(FILE *f, const plot_series *s, const view *v)
{
	plot_path(f, s->x, s->y, s->n, v->m);
}

/* One path per variant x actor, world metres with 3 decimals: stored
 * positions survive to within 0.5 mm. */
static void trajectories(FILE *f, const plot_data *d, const view *v)
{
	double lw = LINE_PX * v->unit;  /* strokes are in path units */
	if (d->colour_by) {
		/* The light end of viridis fades on a light ground: a dark
		 * casing under every line keeps it visible. */
		world_group(f, v, "casings");
		fprintf(f, " fill=\"none\" stroke=\"#2a2a2a\" stroke-opacity="
		        "\"0.75\" stroke-width=\"%.6g\" stroke-linejoin="
		        "\"round\" stroke-linecap=\"round\">\n",
		        (LINE_PX + 1.4) * v->unit);
		for (int i = 0; i < d->n_series; i++) {
			fputs("<path", f);
			path_data(f, &d->series[i], v);
		}
		fputs("</g>\n", f);
	}
	world_group(f, v, "trajectories");
	fprintf(f, " fill=\"none\" stroke-width=\"%.6g\" stroke-linejoin="
	        "\"round\" stroke-linecap=\"round\">\n", lw);
	for (int i = 0; i < d->n_series; i++) {
		const plot_series *s = &d->series[i];
		plot_path_open(f, d, s, lw);
		path_data(f, s, v);
	}
	fputs("</g>\n", f);
	/* start markers: where each actor begins, in its colour */
	world_group(f, v, "starts");
	fprintf(f, " fill=\"white\" stroke-width=\"%.6g\">\n", 1.5 * v->unit);
	for (int i = 0; i < d->n_series; i++) {
		const plot_series *s = &d->series[i];
		char colour[8];
		if (s->n == 0)
			continue;
		plot_series_colour(d, s->variant, colour);
		fprintf(f, "<circle cx=\"%.3f\" cy=\"%.3f\" r=\"%.6g\" stroke="
		        "\"%s\"/>\n", v->m[0] * s->x[0] + v->m[1],
		        v->m[2] * s->y[0] + v->m[3], 3.5 * v->unit, colour);
	}
	fputs("</g>\n", f);
}

/* Events where they happened, in screen px (a marker keeps its shape
 * whatever the aspect): <circle class="event-mark" data-kind
 * data-variant data-actor data-t data-x data-y> with the stored
 * position (world m, or s and offset for --kind lateral). */
static void event_marks(FILE *f, const plot_data *d, const view *v)
{
	if (!d->n_events)
		return;
	fputs("<g id=\"events\" stroke-width=\"2\">\n", f);
	for (int i = 0; i < d->n_events; i++) {
		const plot_event *e = &d->events[i];
		int coll = !strcmp(e->kind, "collision");
		fprintf(f, "<circle class=\"event-mark\" data-kind=\"%s\" "
		        "data-variant=\"%lld\" data-actor=\"%lld\" data-t="
		        "\"%.17g\" data-x=\"%.17g\" data-y=\"%.17g\" cx=\"%.3f\" "
		        "cy=\"%.3f\" r=\"%s\" fill=\"%s\" stroke=\"%s\"><title>",
		        e->kind, (long long)d->variants[e->variant].id,
		        (long long)e->actor_id, e->t, e->x, e->y, sx(v, e->x),
		        sy(v, e->y), coll ? "6" : "4.5", coll ? "none" : "white",
		        coll ? "#d00000" : "#000000");
		plot_text(f, e->kind);
		fprintf(f, ", variant %lld, actor %lld, t = %.3f s</title>"
		        "</circle>\n", (long long)d->variants[e->variant].id,
		        (long long)e->actor_id, e->t);
	}
	fputs("</g>\n", f);
}

/* On equal axes a lane change on a long road is a few pixels: say how to
 * see it. */
static void aspect_hint(const plot_data *d, const view *v)
{
	bbox t = {0, 0, 0, 0, 1};
	for (int i = 0; i < d->n_series; i++)
		for (int k = 0; k < d->series[i].n; k++)
			bbox_add(&t, d->series[i].x[k], d->series[i].y[k]);
	double small = fmin(t.x1 - t.x0, t.y1 - t.y0) * v->s;  /* px */
	if (!v->free && !t.empty && small > 0 && small < 20 &&
	    fmax(t.x1 - t.x0, t.y1 - t.y0) > EQUAL_HINT * 20 / v->s)
		fprintf(stderr, "vsweep: plot: the trajectories span only %.0f "
		        "px across on equal axes; --aspect free scales each "
		        "axis to the data\n", small);
}

void plot_trajectory(FILE *f, const plot_data *d)
{
	view v = make_view(d);
	aspect_hint(d, &v);
	double legend_h = plot_legend(NULL, d, 0, 0, LEGEND_W, 1);
	double w = MARGIN_L + BOX_W + GAP + LEGEND_W + MARGIN_R;
	double h = fmax(MARGIN_T + v.bh + MARGIN_B, MARGIN_T + legend_h + 16);
	plot_begin(f, w, h, d->lateral ? "lateral" : "trajectory", d);
	fputs("<text x=\"72\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
	      f);
	plot_text(f, d->scenario_name && *d->scenario_name ? d->scenario_name
	                                                   : "vsweep");
	fprintf(f, ": %s of %d variant%s</text>\n", d->lateral ?
	        "lateral offset over s" : "trajectories", d->n_variants,
	        d->n_variants == 1 ? "" : "s");
	fputs("<text x=\"72\" y=\"38\" font-size=\"11\" fill=\"#666\">", f);
	plot_text(f, d->db_path);
	fputs("</text>\n", f);
	fprintf(f, "<defs><clipPath id=\"plot-clip\"><rect x=\"%.2f\" y="
	        "\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath></defs>\n",
	        v.bx, v.by, v.bw, v.bh);
	fputs("<g clip-path=\"url(#plot-clip)\">\n", f);
	lanes(f, d, &v, 1);
	fputs("</g>\n", f);
	grid(f, d, &v);
	fputs("<g clip-path=\"url(#plot-clip)\">\n", f);
	lanes(f, d, &v, 0);
	trajectories(f, d, &v);
	event_marks(f, d, &v);
	fputs("</g>\n", f);
	scale_bar(f, &v);
	fprintf(f, "<rect id=\"plot-box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	        "height=\"%.2f\" fill=\"none\" stroke=\"#444\"/>\n", v.bx, v.by,
	        v.bw, v.bh);
	plot_legend(f, d, MARGIN_L + BOX_W + GAP, MARGIN_T, LEGEND_W, 1);
	plot_end(f);
}
