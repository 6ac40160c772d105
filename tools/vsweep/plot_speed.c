/* `vsweep plot --kind speed`: |v| = sqrt(vx² + vy² + vz²) (m/s) against
 * t (s), one line per variant x actor. */
#include <math.h>
#include <stdio.h>

#include "plot.h"

#define MARGIN_L 72.0
#define MARGIN_T 48.0
#define MARGIN_B 52.0
#define MARGIN_R 16.0
#define GAP 24.0
#define LEGEND_W 320.0
#define BOX_W 760.0   /* px */
#define BOX_H 420.0   /* px */
#define LINE_PX 1.6   /* px */

typedef struct axes {
	double t0, t1, v0, v1;  /* s, m/s: the ranges shown */
	double bx, by, bw, bh;  /* px, the plot box */
} axes;

static double px(const axes *a, double t)
{
	return a->bx + (t - a->t0) / (a->t1 - a->t0) * a->bw;
}

static double py(const axes *a, double v)
{
	return a->by + (a->v1 - v) / (a->v1 - a->v0) * a->bh;
}

/* t from 0 (step 0) to the last stored time; speed from 0 (standing is
 * the natural reference) to a nice value above the largest; a signal
 * from below its smallest (0 when all are positive) to above its
 * largest. */
static axes make_axes(const plot_data *d)
{
	axes a = {0, 0, 0, 0, MARGIN_L, MARGIN_T, BOX_W, BOX_H};
	for (int i = 0; i < d->n_series; i++) {
		const plot_series *s = &d->series[i];
		for (int k = 0; k < s->n; k++) {
			if (isfinite(s->t[k]))
				a.t1 = fmax(a.t1, s->t[k]);
			if (isfinite(s->speed[k])) {
				a.v1 = fmax(a.v1, s->speed[k]);
				a.v0 = fmin(a.v0, s->speed[k]);
			}
		}
	}
	if (!(a.t1 > 0))
		a.t1 = 1;
	if (d->signal && a.v0 < 0) {
		/* 5 % margins, on nice steps */
		double span = a.v1 - a.v0;
		double step = plot_nice_step(1.1 * span, 6, NULL);
		a.v0 = floor((a.v0 - 0.05 * span) / step) * step;
		a.v1 = ceil((a.v1 + 0.05 * span) / step) * step;
		if (a.v1 <= a.v0)
			a.v1 = a.v0 + 1;
		return a;
	}
	a.v0 = 0;
	/* 5 % headroom, so the fastest line does not run along the box */
	double top = a.v1 > 0 ? 1.05 * a.v1 : 1;
	double step = plot_nice_step(top, 6, NULL);
	a.v1 = ceil(top / step) * step;
	return a;
}

static void axis_ticks(FILE *f, const plot_data *d, const axes *a)
{
	int dt, dv;
	double st = plot_nice_step(a->t1 - a->t0, 10, &dt);
	double sv = plot_nice_step(a->v1 - a->v0, 8, &dv);
	double it, iv;
	int nt = plot_ticks(a->t0, a->t1, st, 1e-9, &it);
	int nv = plot_ticks(a->v0, a->v1, sv, 1e-9, &iv);
	fputs("<g id=\"grid\" stroke=\"#e0e0e0\" stroke-width=\"1\">\n", f);
	for (double i = it; i < it + nt; i++)
		fprintf(f, "<path d=\"M%.2f %.2fV%.2f\"/>\n", px(a, i * st), a->by,
		        a->by + a->bh);
	for (double i = iv; i < iv + nv; i++)
		fprintf(f, "<path d=\"M%.2f %.2fH%.2f\"/>\n", a->bx, py(a, i * sv),
		        a->bx + a->bw);
	fputs("</g>\n<g id=\"ticks\" font-size=\"11\" fill=\"#333\">\n", f);
	for (double i = it; i < it + nt; i++)
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
		        "%.*f</text>\n", px(a, i * st), a->by + a->bh + 15, dt,
		        i * st);
	for (double i = iv; i < iv + nv; i++)
		fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">"
		        "%.*f</text>\n", a->bx - 6, py(a, i * sv) + 4, dv, i * sv);
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" "
	        "font-size=\"12\">t (s)</text>\n", a->bx + a->bw / 2,
	        a->by + a->bh + 36);
	fprintf(f, "<text transform=\"translate(%.2f %.2f) rotate(-90)\" "
	        "text-anchor=\"middle\" font-size=\"12\">", a->bx - 52,
	        a->by + a->bh / 2);
	if (d->signal) {
		plot_text(f, d->signal);
		if (d->signal_unit && d->signal_unit[0]) {
			fputs(" (", f);
			plot_text(f, d->signal_unit);
			fputs(")", f);
		}
	} else
		fputs("speed |v| (m/s)", f);
	fputs("</text>\n", f);
	fputs("</g>\n", f);
}

static void path_data(FILE *f, const plot_series *s, const axes *a)
{
	/* px() and py() as affine maps */
	double kx = a->bw / (a->t1 - a->t0), ky = -a->bh / (a->v1 - a->v0);
	double m[4] = {kx, a->bx - kx * a->t0, ky, a->by - ky * a->v1};
	plot_path(f, s->t, s->speed, s->n, m);
}

static void series(FILE *f, const plot_data *d, const axes *a)
{
	if (d->colour_by) {
		/* a dark casing keeps the light end of viridis visible */
		fprintf(f, "<g id=\"casings\" fill=\"none\" stroke=\"#2a2a2a\" "
		        "stroke-opacity=\"0.75\" stroke-width=\"%.2f\" "
		        "stroke-linejoin=\"round\">\n", LINE_PX + 1.4);
		for (int i = 0; i < d->n_series; i++) {
			fputs("<path", f);
			path_data(f, &d->series[i], a);
		}
		fputs("</g>\n", f);
	}
	fprintf(f, "<g id=\"series\" data-t=\"%.17g %.17g\" data-speed=\"%.17g"
	        " %.17g\" data-box=\"%.17g %.17g %.17g %.17g\" fill=\"none\" "
	        "stroke-width=\"%.2f\" stroke-linejoin=\"round\">\n", a->t0,
	        a->t1, a->v0, a->v1, a->bx, a->by, a->bw, a->bh, LINE_PX);
	for (int i = 0; i < d->n_series; i++) {
		const plot_series *s = &d->series[i];
		plot_path_open(f, d, s, LINE_PX);
		path_data(f, s, a);
	}
	fputs("</g>\n", f);
}

void plot_speed(FILE *f, const plot_data *d)
{
	axes a = make_axes(d);
	double legend_h = plot_legend(NULL, d, 0, 0, LEGEND_W, 0);
	double w = MARGIN_L + BOX_W + GAP + LEGEND_W + MARGIN_R;
	double h = fmax(MARGIN_T + BOX_H + MARGIN_B, MARGIN_T + legend_h + 16);
	plot_begin(f, w, h, "speed", d);
	fputs("<text x=\"72\" y=\"22\" font-size=\"15\" font-weight=\"bold\">",
	      f);
	plot_text(f, d->scenario_name && *d->scenario_name ? d->scenario_name
	                                                   : "vsweep");
	fputs(": ", f);
	plot_text(f, d->signal ? d->signal : "speed");
	fprintf(f, " of %d variant%s</text>\n", d->n_variants,
	        d->n_variants == 1 ? "" : "s");
	fputs("<text x=\"72\" y=\"38\" font-size=\"11\" fill=\"#666\">", f);
	plot_text(f, d->db_path);
	fputs("</text>\n", f);
	fprintf(f, "<defs><clipPath id=\"plot-clip\"><rect x=\"%.2f\" y="
	        "\"%.2f\" width=\"%.2f\" height=\"%.2f\"/></clipPath></defs>\n",
	        a.bx - 2, a.by - 2, a.bw + 4, a.bh + 4);
	axis_ticks(f, d, &a);
	fputs("<g clip-path=\"url(#plot-clip)\">\n", f);
	series(f, d, &a);
	fputs("</g>\n", f);
	fprintf(f, "<rect id=\"plot-box\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
	        "height=\"%.2f\" fill=\"none\" stroke=\"#444\"/>\n", a.bx, a.by,
	        a.bw, a.bh);
	plot_legend(f, d, MARGIN_L + BOX_W + GAP, MARGIN_T, LEGEND_W, 0);
	plot_end(f);
}
