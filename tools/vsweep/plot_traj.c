/* `vsweep plot --kind trajectory`: plan view of the chosen variants'
 * trajectories on the map's lanes, north up, equal scale on both axes. */
#include <math.h>
#include <stdio.h>

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

typedef struct view {
	double x0, x1, y0, y1;   /* m, the world window shown */
	double bx, by, bw, bh;   /* px, the plot box */
	double s;                /* px per m */
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

/* The window: the trajectories, plus the lanes near them (within half
 * the trajectories' span, at least 20 m), so that the lanes the actors
 * drive on are whole but a long road does not shrink the actors to
 * dots. */
static view make_view(const plot_data *d)
{
	bbox t = {0, 0, 0, 0, 1};
	for (int i = 0; i < d->n_series; i++)
		for (int k = 0; k < d->series[i].n; k++)
			bbox_add(&t, d->series[i].x[k], d->series[i].y[k]);
	if (t.empty)
		t = (bbox){0, 0, 0, 0, 0};
	double near = fmax(20, 0.5 * fmax(t.x1 - t.x0, t.y1 - t.y0));
	bbox b = t;
	for (int i = 0; i < d->lanes.n; i++) {
		const plot_line *l = &d->lanes.lines[i];
		for (int k = 0; k < l->n; k++) {
			double x = l->xy[2 * k], y = l->xy[2 * k + 1];
			if (x >= t.x0 - near && x <= t.x1 + near &&
			    y >= t.y0 - near && y <= t.y1 + near)
				bbox_add(&b, x, y);
		}
	}
	double cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
	double w = fmax(b.x1 - b.x0, MIN_SPAN), h = fmax(b.y1 - b.y0, MIN_SPAN);
	w *= 1.06;  /* a margin, so no line runs along the box */
	h *= 1.06;
	view v;
	v.bx = MARGIN_L;
	v.by = MARGIN_T;
	v.bw = BOX_W;
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
	return v;
}

static double sx(const view *v, double x) { return v->bx + (x - v->x0) * v->s; }
static double sy(const view *v, double y) { return v->by + (v->y1 - y) * v->s; }

/* <g ... transform> mapping world metres to the box, north up. */
static void world_group(FILE *f, const view *v, const char *id)
{
	fprintf(f, "<g id=\"%s\" transform=\"matrix(%.12g 0 0 %.12g %.12g "
	        "%.12g)\"", id, v->s, -v->s, v->bx - v->s * v->x0,
	        v->by + v->s * v->y1);
}

/* Grid lines every `step` m, labelled along the bottom and left. */
static void grid(FILE *f, const view *v)
{
	int dec;
	double step = plot_nice_step(fmax(v->x1 - v->x0, v->y1 - v->y0), 10,
	                             &dec);
	fprintf(f, "<g id=\"grid\" data-step=\"%.12g\" stroke=\"#e0e0e0\" "
	        "stroke-width=\"1\">\n", step);
	for (double x = ceil(v->x0 / step) * step; x <= v->x1; x += step)
		fprintf(f, "<path d=\"M%.2f %.2fV%.2f\"/>\n", sx(v, x), v->by,
		        v->by + v->bh);
	for (double y = ceil(v->y0 / step) * step; y <= v->y1; y += step)
		fprintf(f, "<path d=\"M%.2f %.2fH%.2f\"/>\n", v->bx, sy(v, y),
		        v->bx + v->bw);
	fputs("</g>\n<g id=\"ticks\" font-size=\"11\" fill=\"#333\">\n", f);
	for (double x = ceil(v->x0 / step) * step; x <= v->x1; x += step)
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
		        "%.*f</text>\n", sx(v, x), v->by + v->bh + 15, dec,
		        fabs(x) < step / 2 ? 0.0 : x);
	for (double y = ceil(v->y0 / step) * step; y <= v->y1; y += step)
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">"
		        "%.*f</text>\n", v->bx - 6, sy(v, y) + 4, dec,
		        fabs(y) < step / 2 ? 0.0 : y);
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"12\">x (m, "
	        "east)</text>\n", v->bx, v->by + v->bh + 38);
	fprintf(f, "<text transform=\"translate(%.2f %.2f) rotate(-90)\" "
	        "text-anchor=\"middle\" font-size=\"12\">y (m, north)</text>\n",
	        v->bx - 52, v->by + v->bh / 2);
	fputs("</g>\n", f);
}

/* The largest round length (1, 2 or 5 times a power of ten) up to a
 * quarter of the box, under the box on the right: outside the data, so
 * it never hides a trajectory, and clear of the axis title on the left. */
static void scale_bar(FILE *f, const view *v)
{
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
		fprintf(f, " fill=\"none\" stroke-width=\"%.6g\">\n", 1.0 / v->s);
	for (int i = 0; i < d->lanes.n; i++) {
		const plot_line *l = &d->lanes.lines[i];
		if ((l->kind == PLOT_LANE_SURFACE) != areas || l->n < 2)
			continue;
		if (l->kind == PLOT_LANE_BOUNDARY)
			fputs("<path class=\"lane-boundary\" stroke=\"#9a9a9a\"", f);
		else if (l->kind == PLOT_LANE_CENTRE)
			fprintf(f, "<path class=\"lane-centre\" stroke=\"#b0b0b0\" "
			        "stroke-dasharray=\"%.6g,%.6g\"", 6 / v->s,
			        5 / v->s);
		else
			fputs("<path class=\"lane-area\"", f);
		fputs(" d=\"", f);
		for (int k = 0; k < l->n; k++) {
			double x = l->xy[2 * k], y = l->xy[2 * k + 1];
			if (!isfinite(x)) {
				/* a break between rings of one area */
				fputs("Z", f);
				if (k + 1 < l->n)
					fprintf(f, "M%.3f %.3f", l->xy[2 * k + 2],
					        l->xy[2 * k + 3]);
				k++;
				continue;
			}
			fprintf(f, "%s%.3f %.3f", k == 0 ? "M" : k == 1 ? "L" : " ",
			        x, y);
		}
		fputs(l->kind == PLOT_LANE_SURFACE ? "Z\"/>\n" : "\"/>\n", f);
	}
	fputs("</g>\n", f);
}

static const double identity[4] = {1, 0, 1, 0};

static void path_data(FILE *f, const plot_series *s)
{
	plot_path(f, s->x, s->y, s->n, identity);
}

/* One path per variant x actor, world metres with 3 decimals: stored
 * positions survive to within 0.5 mm. */
static void trajectories(FILE *f, const plot_data *d, const view *v)
{
	double lw = LINE_PX / v->s;  /* m: strokes are in world units here */
	if (d->colour_by) {
		/* The light end of viridis fades on a light ground: a dark
		 * casing under every line keeps it visible. */
		world_group(f, v, "casings");
		fprintf(f, " fill=\"none\" stroke=\"#2a2a2a\" stroke-opacity="
		        "\"0.75\" stroke-width=\"%.6g\" stroke-linejoin="
		        "\"round\" stroke-linecap=\"round\">\n",
		        (LINE_PX + 1.4) / v->s);
		for (int i = 0; i < d->n_series; i++) {
			fputs("<path", f);
			path_data(f, &d->series[i]);
		}
		fputs("</g>\n", f);
	}
	world_group(f, v, "trajectories");
	fprintf(f, " fill=\"none\" stroke-width=\"%.6g\" stroke-linejoin="
	        "\"round\" stroke-linecap=\"round\">\n", lw);
	for (int i = 0; i < d->n_series; i++) {
		const plot_series *s = &d->series[i];
		plot_path_open(f, d, s, lw);
		path_data(f, s);
	}
	fputs("</g>\n", f);
	/* start markers: where each actor begins, in its colour */
	world_group(f, v, "starts");
	fprintf(f, " fill=\"white\" stroke-width=\"%.6g\">\n", 1.5 / v->s);
	for (int i = 0; i < d->n_series; i++) {
		const plot_series *s = &d->series[i];
		char colour[8];
		if (s->n == 0)
			continue;
		plot_series_colour(d, s->variant, colour);
		fprintf(f, "<circle cx=\"%.3f\" cy=\"%.3f\" r=\"%.6g\" stroke="
		        "\"%s\"/>\n", s->x[0], s->y[0], 3.5 / v->s, colour);
	}
	fputs("</g>\n", f);
}

void plot_trajectory(FILE *f, const plot_data *d)
{
	view v = make_view(d);
	double legend_h = plot_legend(NULL, d, 0, 0, LEGEND_W, 1);
	double w = MARGIN_L + BOX_W + GAP + LEGEND_W + MARGIN_R;
	double h = fmax(MARGIN_T + v.bh + MARGIN_B, MARGIN_T + legend_h + 16);
	plot_begin(f, w, h, "trajectory", d);
	fputs("<text x=\"72\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
	      f);
	plot_text(f, d->scenario_name && *d->scenario_name ? d->scenario_name
	                                                   : "vsweep");
	fprintf(f, ": trajectories of %d variant%s</text>\n", d->n_variants,
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
	grid(f, &v);
	fputs("<g clip-path=\"url(#plot-clip)\">\n", f);
	lanes(f, d, &v, 0);
	trajectories(f, d, &v);
	fputs("</g>\n", f);
	scale_bar(f, &v);
	fprintf(f, "<rect id=\"plot-box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	        "height=\"%.2f\" fill=\"none\" stroke=\"#444\"/>\n", v.bx, v.by,
	        v.bw, v.bh);
	plot_legend(f, d, MARGIN_L + BOX_W + GAP, MARGIN_T, LEGEND_W, 1);
	plot_end(f);
}
