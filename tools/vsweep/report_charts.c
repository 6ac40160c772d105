/* The KPI section of `vsweep report`: each KPI of variant_summary against
 * each swept parameter. A full grid of two parameters is a heat map (one
 * cell per grid point, the mean of the variants in it; past GRID_CELLS
 * along an axis, a block of neighbouring points); otherwise one scatter
 * per parameter (one circle per variant), with a line through the points
 * when a single parameter is swept. Failed variants are red rings.
 *
 * Each circle is some 100 bytes of SVG with its tooltip, so the circles
 * of the page share REPORT_PAGE_MARKS: past it, every scatter draws the
 * same deterministic sample of the variants (chosen by a hash of the
 * variant's ID, so the same whatever -j or sharding stored them), and the
 * page says so.
 *
 * A failed variant's KPIs cover the steps before its failure (a crashed
 * one's are NULL, docs/results.md): a collision it had is a collision of
 * the sweep. So every chart and the table use every KPI value, whatever
 * the variant's status, and say which of them are failed variants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "plot.h"
#include "report.h"

#define W 380.0       /* px, one chart */
#define H 250.0
#define ML 60.0       /* px, margins: tick labels and axis titles */
#define MR 14.0
#define MT 14.0
#define MB 46.0
#define BAR_W 14.0    /* px, heat map colour bar */
#define BAR_GAP 76.0  /* px right of the box for the bar and its labels */
#define NO_VALUE "#cccccc"
#define GRID_LEVELS 100000 /* distinct values of a heat-map axis */
#define GRID_CELLS 60      /* cells along a heat-map axis, at most */
#define TITLE_CHARS 26     /* of a parameter's name in an axis title */

typedef struct range {
	double lo, hi;
} range;

/* Range of the finite values of v, widened when flat or empty. */
static range range_of(const double *v, int64_t n)
{
	range r = {INFINITY, -INFINITY};
	for (int64_t i = 0; i < n; i++) {
		if (isfinite(v[i])) {
			r.lo = fmin(r.lo, v[i]);
			r.hi = fmax(r.hi, v[i]);
		}
	}
	if (!(r.lo <= r.hi))
		r = (range){0, 1};
	if (r.hi - r.lo < 1e-12 * fmax(1, fabs(r.hi))) {
		double half = r.hi != 0 ? 0.05 * fabs(r.hi) : 0.5;
		r.lo -= half;
		r.hi += half;
	}
	return r;
}

static double map_lin(double v, range r, double a, double b)
{
	return a + (v - r.lo) / (r.hi - r.lo) * (b - a);
}

/* A parameter's name, as element text or inside a quoted attribute. */
static void param_name(FILE *f, const report_param *p)
{
	report_text(f, p->name);
}

/* An axis title: the name, shortened from the left to fit the chart
 * ("...behaviour.steering_wheel_deg"), and the unit. */
static void param_title(FILE *f, const report_param *p)
{
	const char *shown = p->name;
	size_t n = strlen(shown);
	if (n > TITLE_CHARS) {
		shown += n - TITLE_CHARS;
		const char *dot = strchr(shown, '.');
		if (dot)
			shown = dot + 1;
		while (((unsigned char)*shown & 0xc0) == 0x80)
			shown++;  /* not inside a UTF-8 character */
		fputs("\xe2\x80\xa6", f);  /* an ellipsis */
	}
	report_text(f, shown);
	if (*p->unit) {
		fputs(" (", f);
		report_text(f, p->unit);
		fputs(")", f);
	}
}

/* A chart's heading: the KPI and its unit. */
static void kpi_heading(FILE *f, const report_kpi *k)
{
	fputs("<div class=\"chart-box\"><h3>", f);
	report_text(f, k->name);
	if (*k->unit) {
		fputs(" (", f);
		report_text(f, k->unit);
		fputs(")", f);
	}
	fputs("</h3>\n", f);
}

static void axis_title(FILE *f, const char *what, const char *unit, int y)
{
	if (y)
		fprintf(f, "<text transform=\"translate(14 %.1f) rotate(-90)\" "
		        "text-anchor=\"middle\">", MT + (H - MT - MB) / 2);
	else
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		        ML + (W - ML - MR) / 2, H - 8);
	report_text(f, what);
	if (*unit) {
		fputs(" (", f);
		report_text(f, unit);
		fputs(")", f);
	}
	fputs("</text>\n", f);
}

/* Ticks of a numeric axis over r, between pixels a and b. */
static void ticks(FILE *f, range r, double a, double b, int y, double x0,
                  double y0)
{
	int dec;
	double step = plot_nice_step(r.hi - r.lo, y ? 5 : 6, &dec);
	double i0;
	int n = plot_ticks(r.lo, r.hi, step, 1e-9, &i0);
	for (int k = 0; k < n; k++) {
		double v = (i0 + k) * step;
		double p = map_lin(v, r, a, b);
		double shown = fabs(v) < step / 2 ? 0.0 : v;
		if (y)
			fprintf(f, "<path d=\"M%.1f %.1fh-4\" stroke=\"#444\"/>"
			        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
			        "%.*f</text>\n", x0, p, x0 - 6, p + 4, dec, shown);
		else
			fprintf(f, "<path d=\"M%.1f %.1fv4\" stroke=\"#444\"/>"
			        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			        "%.*f</text>\n", p, y0, p, y0 + 16, dec, shown);
	}
}

/* Labels of a categorical axis: its levels (shortened) when few. */
static void level_ticks(FILE *f, const report_param *p, range r, double a,
                        double b, double y0)
{
	int every = p->n_levels > 8 ? (p->n_levels + 7) / 8 : 1;
	for (int l = 0; l < p->n_levels; l += every) {
		double x = map_lin(l, r, a, b);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		        "data-tip=\"", x, y0 + 16);
		report_text(f, p->levels[l]);
		fprintf(f, "\">#%d</text>\n", l);
	}
}

typedef struct xy {
	double x, y;
} xy;

static int cmp_x(const void *a, const void *b)
{
	double u = ((const xy *)a)->x, v = ((const xy *)b)->x;
	return (u > v) - (u < v);
}

/* Knuth's multiplicative hash of the variant's ID: a bijection of 32-bit
 * IDs, so every variant has its own value, and a sample of the smallest
 * ones does not alias with a grid's strides. */
static uint64_t id_hash(int64_t id)
{
	return ((uint64_t)id * UINT64_C(2654435761)) & UINT64_C(0xffffffff);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t u = *(const uint64_t *)a, v = *(const uint64_t *)b;
	return (u > v) - (u < v);
}

/* The sample of `want` variants of n: those whose hash is below the
 * value returned (every one when n <= want). */
static uint64_t sample_below(const report_data *d, int64_t want)
{
	if (d->n <= want)
		return UINT64_MAX;
	uint64_t *h = vs_xcalloc((size_t)d->n, sizeof *h);
	for (int64_t i = 0; i < d->n; i++)
		h[i] = id_hash(d->id[i]);
	qsort(h, (size_t)d->n, sizeof *h, cmp_u64);
	uint64_t below = h[want];
	free(h);
	return below;
}

static int sampled(const report_data *d, int64_t i, uint64_t below)
{
	return id_hash(d->id[i]) < below;
}

static void scatter(FILE *f, const report_data *d, const report_kpi *k,
                    const report_param *p, uint64_t below)
{
	double bx0 = ML, bx1 = W - MR, by0 = MT, by1 = H - MB;
	range rx = range_of(p->v, d->n), ry = range_of(k->v, d->n);
	if (p->categorical)
		rx = (range){-0.5, p->n_levels - 0.5};
	kpi_heading(f, k);
	fprintf(f, "<svg class=\"chart scatter\" width=\"%.0f\" height="
	        "\"%.0f\" data-kpi=\"", W, H);
	report_text(f, k->name);
	fputs("\" data-param=\"", f);
	param_name(f, p);
	fputs("\">\n", f);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
	        " fill=\"#fafafa\" stroke=\"#444\"/>\n", bx0, by0, bx1 - bx0,
	        by1 - by0);
	if (p->categorical)
		level_ticks(f, p, rx, bx0 + 6, bx1 - 6, by1);
	else
		ticks(f, rx, bx0 + 6, bx1 - 6, 0, bx0, by1);
	ticks(f, ry, by1 - 6, by0 + 6, 1, bx0, by1);
	axis_title(f, k->name, k->unit, 1);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
	        ML + (W - ML - MR) / 2, H - 8);
	param_title(f, p);
	fputs("</text>\n", f);
	/* The line of a one-parameter sweep, through the variants with a
	 * value in order of the parameter. */
	if (d->n_params == 1 && !p->categorical) {
		xy *pts = vs_xcalloc((size_t)d->n + 1, sizeof *pts);
		int64_t m = 0;
		for (int64_t i = 0; i < d->n; i++)
			if (sampled(d, i, below) && isfinite(p->v[i]) &&
			    isfinite(k->v[i]))
				pts[m++] = (xy){p->v[i], k->v[i]};
		qsort(pts, (size_t)m, sizeof *pts, cmp_x);
		fputs("<path class=\"line\" fill=\"none\" stroke=\"#1f77b4\" "
		      "stroke-opacity=\".6\" d=\"", f);
		for (int64_t i = 0; i < m; i++)
			fprintf(f, "%s%.1f %.1f", i ? "L" : "M",
			        map_lin(pts[i].x, rx, bx0 + 6, bx1 - 6),
			        map_lin(pts[i].y, ry, by1 - 6, by0 + 6));
		fputs("\"/>\n", f);
		free(pts);
	}
	fputs("<g class=\"marks\" fill=\"#1f77b4\">\n", f);
	for (int64_t i = 0; i < d->n; i++) {
		if (!sampled(d, i, below) || !isfinite(p->v[i]))
			continue;
		int has = isfinite(k->v[i]);
		if (!has && !d->failed[i])
			continue;
		double cx = map_lin(p->v[i], rx, bx0 + 6, bx1 - 6);
		double cy = has ? map_lin(k->v[i], ry, by1 - 6, by0 + 6) : by1;
		fprintf(f, "<circle class=\"mark%s\" cx=\"%.1f\" cy=\"%.1f\" "
		        "r=\"%s\" data-v=\"%lld\" data-tip=\"variant %lld%s: ",
		        d->failed[i] ? " failed" : "", cx, cy,
		        d->n > 500 ? "2" : "3.5", (long long)d->id[i],
		        (long long)d->id[i], d->failed[i] ? " (failed)" : "");
		report_num(f, p->v[i]);
		fputs(", ", f);
		report_num(f, k->v[i]);
		fputs("\"/>\n", f);
	}
	fputs("</g></svg></div>\n", f);
}

/* A full grid of two parameters: sorted distinct values of each, and
 * every combination present. */
typedef struct grid {
	int na, nb;
	double *a, *b;     /* levels, ascending */
	int ba, bb;        /* cells along each axis: a cell holds one level
	                      or, past GRID_CELLS, a run of neighbours */
	int *cell;         /* per variant: its cell, bin_a * bb + bin_b, or
	                      -1 */
	int64_t most;      /* variants in the fullest cell */
} grid;

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;
	return (u > v) - (u < v);
}

/* Sorted distinct finite values of v; -1 past GRID_LEVELS. */
static int levels(const double *v, int64_t n, double **out)
{
	double *s = vs_xcalloc((size_t)n + 1, sizeof *s);
	int64_t m = 0;
	for (int64_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[m++] = v[i];
	qsort(s, (size_t)m, sizeof *s, cmp_double);
	int64_t u = 0;
	for (int64_t i = 0; i < m; i++)
		if (!u || s[i] != s[u - 1])
			s[u++] = s[i];
	*out = s;
	return u > GRID_LEVELS || u < 2 ? -1 : (int)u;
}

/* Cells of a long axis: level i of n falls in bin i * bins / n; a bin's
 * first level is the smallest i mapping to it. */
static int bin_of(int i, int n, int bins)
{
	return (int)((int64_t)i * bins / n);
}

static int first_level(int bin, int n, int bins)
{
	return (int)(((int64_t)bin * n + bins - 1) / bins);
}

static int level_index(const double *lv, int n, double x)
{
	const double *p = bsearch(&x, lv, (size_t)n, sizeof *lv, cmp_double);
	return p ? (int)(p - lv) : -1;
}

static int make_grid(const report_data *d, grid *g)
{
	memset(g, 0, sizeof *g);
	if (d->n_params != 2)
		return -1;
	const report_param *pa = &d->params[0], *pb = &d->params[1];
	g->na = levels(pa->v, d->n, &g->a);
	g->nb = levels(pb->v, d->n, &g->b);
	if (g->na < 0 || g->nb < 0)
		return -1;
	g->ba = g->na < GRID_CELLS ? g->na : GRID_CELLS;
	g->bb = g->nb < GRID_CELLS ? g->nb : GRID_CELLS;
	g->cell = vs_xcalloc((size_t)d->n + 1, sizeof *g->cell);
	unsigned char *seen = vs_xcalloc((size_t)g->na * (size_t)g->nb, 1);
	int64_t filled = 0;
	for (int64_t i = 0; i < d->n; i++) {
		int ia = level_index(g->a, g->na, pa->v[i]);
		int ib = level_index(g->b, g->nb, pb->v[i]);
		if (ia < 0 || ib < 0) {
			g->cell[i] = -1;
			continue;
		}
		if (!seen[(int64_t)ia * g->nb + ib]++)
			filled++;
		g->cell[i] = bin_of(ia, g->na, g->ba) * g->bb +
		             bin_of(ib, g->nb, g->bb);
	}
	free(seen);
	int64_t *in = vs_xcalloc((size_t)g->ba * (size_t)g->bb, sizeof *in);
	for (int64_t i = 0; i < d->n; i++)
		if (g->cell[i] >= 0 && ++in[g->cell[i]] > g->most)
			g->most = in[g->cell[i]];
	free(in);
	return filled == (int64_t)g->na * g->nb ? 0 : -1;
}

static void grid_finish(grid *g)
{
	free(g->a);
	free(g->b);
	free(g->cell);
}

static void heatmap(FILE *f, const report_data *d, const report_kpi *k,
                    const grid *g)
{
	const report_param *pa = &d->params[0], *pb = &d->params[1];
	int nc = g->ba * g->bb;
	double *sum = vs_xcalloc((size_t)nc, sizeof *sum);
	int *cnt = vs_xcalloc((size_t)nc, sizeof *cnt);
	int *bad = vs_xcalloc((size_t)nc, sizeof *bad);  /* failed */
	int *all = vs_xcalloc((size_t)nc, sizeof *all);  /* variants */
	for (int64_t i = 0; i < d->n; i++) {
		int c = g->cell[i];
		if (c < 0)
			continue;
		bad[c] += d->failed[i];
		all[c]++;
		if (isfinite(k->v[i])) {
			sum[c] += k->v[i];
			cnt[c]++;
		}
	}
	range r = {INFINITY, -INFINITY};
	for (int c = 0; c < nc; c++) {
		if (cnt[c]) {
			sum[c] /= cnt[c];
			r.lo = fmin(r.lo, sum[c]);
			r.hi = fmax(r.hi, sum[c]);
		}
	}
	if (!(r.lo <= r.hi))
		r = (range){0, 1};
	/* equal up to rounding: one colour, not a pattern of the noise */
	int flat = r.hi - r.lo <= 1e-9 * fmax(1, fmax(fabs(r.lo), fabs(r.hi)));
	double w = W + BAR_GAP;
	double bx0 = ML, bx1 = W - MR, by0 = MT, by1 = H - MB;
	double cw = (bx1 - bx0) / g->ba, ch = (by1 - by0) / g->bb;
	kpi_heading(f, k);
	fprintf(f, "<svg class=\"chart heatmap\" width=\"%.0f\" height="
	        "\"%.0f\" data-cells=\"%d\" data-kpi=\"", w, H, nc);
	report_text(f, k->name);
	fputs("\" data-param=\"", f);
	param_name(f, pa);
	fputc(',', f);
	param_name(f, pb);
	fputs("\">\n<g class=\"cells\">\n", f);
	for (int ia = 0; ia < g->ba; ia++) {
		for (int ib = 0; ib < g->bb; ib++) {
			int c = ia * g->bb + ib;
			char col[8];
			if (cnt[c])
				plot_viridis(flat ? 0.5 : (sum[c] - r.lo) /
				             (r.hi - r.lo), col);
			else
				snprintf(col, sizeof col, "%s", NO_VALUE);
			fprintf(f, "<rect class=\"cell%s\" x=\"%.2f\" y=\"%.2f\" "
			        "width=\"%.2f\" height=\"%.2f\" fill=\"%s\"",
			        bad[c] ? " failed" : "", bx0 + ia * cw,
			        by1 - (ib + 1) * ch, cw, ch, col);
			/* the red outline as strong as the share that failed,
			 * so a binned cell with one failure in 100 stays
			 * readable */
			if (bad[c])
				fprintf(f, " stroke-opacity=\"%.2f\"",
				        fmax(0.15, (double)bad[c] / all[c]));
			fputs(" data-tip=\"", f);
			report_num(f, g->a[first_level(ia, g->na, g->ba)]);
			fputs(", ", f);
			report_num(f, g->b[first_level(ib, g->nb, g->bb)]);
			fputs(": ", f);
			report_num(f, cnt[c] ? sum[c] : NAN);
			if (bad[c])
				fprintf(f, " (%d of %d failed)", bad[c], all[c]);
			fputs("\"/>\n", f);
		}
	}
	fputs("</g>\n", f);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\""
	        " fill=\"none\" stroke=\"#444\"/>\n", bx0, by0, bx1 - bx0,
	        by1 - by0);
	range ra = {-0.5, g->ba - 0.5}, rb = {-0.5, g->bb - 0.5};
	int ea = g->ba > 8 ? (g->ba + 7) / 8 : 1, eb = g->bb > 6 ?
	         (g->bb + 5) / 6 : 1;
	for (int ia = 0; ia < g->ba; ia += ea) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		        map_lin(ia, ra, bx0, bx1), by1 + 16);
		int la = first_level(ia, g->na, g->ba);
		if (pa->categorical)
			fprintf(f, "#%.0f", g->a[la]);
		else
			report_num(f, g->a[la]);
		fputs("</text>\n", f);
	}
	for (int ib = 0; ib < g->bb; ib += eb) {
		int lb = first_level(ib, g->nb, g->bb);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		        bx0 - 6, map_lin(ib, rb, by1, by0) + 4);
		if (pb->categorical)
			fprintf(f, "#%.0f", g->b[lb]);
		else
			report_num(f, g->b[lb]);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
	        ML + (W - ML - MR) / 2, H - 8);
	param_title(f, pa);
	fputs("</text>\n", f);
	fprintf(f, "<text transform=\"translate(14 %.1f) rotate(-90)\" "
	        "text-anchor=\"middle\">", MT + (H - MT - MB) / 2);
	param_title(f, pb);
	fputs("</text>\n", f);
	/* the colour scale: viridis bottom (min) to top (max), in KPI units */
	double x = W + 4;
	/* the gradient is named by the KPI's index: its name may hold
	 * anything */
	int ki = (int)(k - d->kpis);
	fprintf(f, "<defs><linearGradient id=\"vir-%d\" x1=\"0\" y1=\"1\" "
	        "x2=\"0\" y2=\"0\">", ki);
	for (int s = 0; s <= 7; s++) {
		char col[8];
		plot_viridis(s / 7.0, col);
		fprintf(f, "<stop offset=\"%.4f\" stop-color=\"%s\"/>", s / 7.0,
		        col);
	}
	fprintf(f, "</linearGradient></defs>\n<g class=\"colour-scale\"><rect "
	        "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill="
	        "\"url(#vir-%d)\" stroke=\"#444\"/>\n", x, by0, BAR_W,
	        by1 - by0, ki);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + BAR_W + 3, by0 + 8);
	report_num(f, r.hi);
	fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\">", x + BAR_W + 3, by1);
	report_num(f, r.lo);
	fprintf(f, "</text><text x=\"%.1f\" y=\"%.1f\">", x, by1 + 16);
	report_text(f, k->unit);
	fputs("</text></g>\n</svg></div>\n", f);
	free(sum);
	free(cnt);
	free(bad);
	free(all);
}

/* Min, mean and max of each KPI over the variants with a value, and how
 * many of those failed. */
static void kpi_table(FILE *f, const report_data *d)
{
	fputs("<table id=\"kpi-table\"><thead><tr><th>KPI</th><th>unit</th>"
	      "<th>min</th><th>mean</th><th>max</th><th>variants with a "
	      "value</th><th>of them failed</th></tr></thead><tbody>\n", f);
	for (int k = 0; k < d->n_kpis; k++) {
		const report_kpi *q = &d->kpis[k];
		double lo = INFINITY, hi = -INFINITY, sum = 0;
		int64_t m = 0, bad = 0;
		for (int64_t i = 0; i < d->n; i++) {
			if (!isfinite(q->v[i]))
				continue;
			bad += d->failed[i];
			lo = fmin(lo, q->v[i]);
			hi = fmax(hi, q->v[i]);
			sum += q->v[i];
			m++;
		}
		fputs("<tr><td>", f);
		report_text(f, q->name);
		fputs("</td><td>", f);
		report_text(f, q->unit);
		fputs("</td><td class=\"num\">", f);
		report_num(f, m ? lo : NAN);
		fputs("</td><td class=\"num\">", f);
		report_num(f, m ? sum / (double)m : NAN);
		fputs("</td><td class=\"num\">", f);
		report_num(f, m ? hi : NAN);
		fprintf(f, "</td><td class=\"num\">%lld</td><td class=\"num"
		        "%s\">%lld</td></tr>\n", (long long)m, bad ? " bad" : "",
		        (long long)bad);
	}
	fputs("</tbody></table>\n", f);
}

/* What a heat-map cell is: one grid point, or past GRID_CELLS along an
 * axis a block of neighbouring ones; and, when a cell holds more than one
 * variant, that its colour and the colour scale's ends are means, which
 * lie within the KPI table's min and max. */
static void grid_note(FILE *f, const grid *g)
{
	int binned = g->ba < g->na || g->bb < g->nb;
	fprintf(f, "<p class=\"note\">A full grid of %d &times; %d", g->na,
	        g->nb);
	if (binned)
		fprintf(f, ", drawn as %d &times; %d cells: <b id=\"binned\">too "
		        "many points to draw one by one, so each cell covers a "
		        "block of up to %d &times; %d neighbouring grid points"
		        "</b> (its tip names the first),", g->ba, g->bb,
		        (g->na + g->ba - 1) / g->ba, (g->nb + g->bb - 1) / g->bb);
	else
		fputs(": one heat-map cell per grid point,", f);
	fputs(" coloured by the mean over its variants with a value, failed "
	      "ones included (red outline); grey: no value.", f);
	if (g->most > 1)
		fprintf(f, " <b id=\"cell-means\">Cells hold up to %lld "
		        "variants: the colours and the colour scale&#39;s ends "
		        "are cell means, not single variants&#39; values, so the "
		        "scale can end inside the KPI table&#39;s min and "
		        "max.</b>", (long long)g->most);
	fputs("</p>\n", f);
}

void report_kpi_charts(FILE *f, const report_data *d)
{
	fputs("<section id=\"kpis\"><h2>KPIs against the swept parameters"
	      "</h2>\n", f);
	kpi_table(f, d);
	if (!d->n_params) {
		fputs("<p>No parameter varies between the variants: nothing "
		      "to chart against.</p></section>\n", f);
		return;
	}
	fputs("<p class=\"note\">Swept parameters:", f);
	for (int p = 0; p < d->n_params; p++) {
		fputs(p ? ", " : " ", f);
		param_name(f, &d->params[p]);
		if (d->params[p].categorical)
			fprintf(f, " (%d distinct values, numbered #0..)",
			        d->params[p].n_levels);
	}
	if (d->n_params_dropped)
		fprintf(f, "; %d more not charted", d->n_params_dropped);
	fputs(".", f);
	grid g;
	int is_grid = make_grid(d, &g) == 0;
	if (!is_grid)
		fprintf(f, " Red rings: failed variants, at the value of the "
		        "steps before the failure (on the bottom edge when they "
		        "have none); %s them too.",
		        d->n_params == 1 && !d->params[0].categorical ?
		        "the table and the lines count" : "the table counts");
	/* the scatters' share of the page's circles: one sample for all */
	int64_t charts = 0;
	for (int k = 0; k < d->n_kpis; k++)
		charts += d->kpis[k].any ? d->n_params : 0;
	int64_t want = charts ? REPORT_PAGE_MARKS / charts : REPORT_MAX_MARKS;
	if (want > REPORT_MAX_MARKS)
		want = REPORT_MAX_MARKS;
	if (want < 1)
		want = 1;
	uint64_t below = is_grid ? 0 : sample_below(d, want);
	if (!is_grid && charts && d->n > want)
		fprintf(f, " <b id=\"sampled\">Each scatter shows the same "
		        "deterministic sample of %lld of the %lld variants</b> "
		        "(a page draws at most %d marks, shared by its %lld "
		        "scatters); the tables and the worst list use all of "
		        "them.", (long long)want, (long long)d->n,
		        REPORT_PAGE_MARKS, (long long)charts);
	fputs("</p>\n", f);
	if (is_grid)
		grid_note(f, &g);
	/* Side by side, wrapping: KPI after KPI. */
	fputs("<div class=\"charts\">\n", f);
	for (int k = 0; k < d->n_kpis; k++) {
		const report_kpi *q = &d->kpis[k];
		if (!q->any)
			continue;
		if (is_grid)
			heatmap(f, d, q, &g);
		else
			for (int p = 0; p < d->n_params; p++)
				scatter(f, d, q, &d->params[p], below);
	}
	fputs("</div>\n", f);
	grid_finish(&g);
	fputs("</section>\n", f);
}
