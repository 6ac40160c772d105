/* The worst variants of `vsweep report`: the N variants with the worst
 * value of the --by KPI (largest, or smallest for min_* and time on lane),
 * each with its parameters, KPIs, trajectories (plan view, events marked
 * where they happened) and speed over time, from actor_state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "plot.h"
#include "report.h"

#define W 420.0          /* px, one chart */
#define H 280.0
#define M 44.0           /* px, margin for the ticks */
#define MAX_POINTS 600   /* per actor path */
#define FREE_ASPECT 6.0  /* data aspect beyond which axes stop being 1:1 */

typedef struct track {
	int64_t actor;
	int n, cap;
	double *t, *x, *y, *v;   /* s, m, m, m/s */
} track;

static void track_push(track *k, double t, double x, double y, double v)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 256;
		k->t = vs_xrealloc(k->t, (size_t)k->cap * sizeof *k->t);
		k->x = vs_xrealloc(k->x, (size_t)k->cap * sizeof *k->x);
		k->y = vs_xrealloc(k->y, (size_t)k->cap * sizeof *k->y);
		k->v = vs_xrealloc(k->v, (size_t)k->cap * sizeof *k->v);
	}
	k->t[k->n] = t;
	k->x[k->n] = x;
	k->y[k->n] = y;
	k->v[k->n] = v;
	k->n++;
}

/* The worst `want` variant indices by KPI k, worst first; ties by id. */
static int pick_worst(const report_data *d, int k, int want, int64_t *out)
{
	const report_kpi *q = &d->kpis[k];
	int n = 0;
	for (int64_t i = 0; i < d->n; i++) {
		double v = q->v[i];
		if (!isfinite(v))
			continue;
		double key = q->lower_is_worse ? -v : v;
		int at = n;
		while (at > 0) {
			double w = q->v[out[at - 1]];
			if ((q->lower_is_worse ? -w : w) >= key)
				break;
			at--;
		}
		if (at >= want)
			continue;
		if (n < want)
			n++;
		memmove(&out[at + 1], &out[at], (size_t)(n - 1 - at) *
		        sizeof *out);
		out[at] = i;
	}
	return n;
}

static int load_tracks(const report_data *d, int64_t id, track **out)
{
	sqlite3_stmt *st = NULL;
	int n = 0;
	*out = NULL;
	if (sqlite3_prepare_v2(d->db, "SELECT actor_id, t, x, y, vx, vy, vz "
	                       "FROM actor_state WHERE variant_id = ? ORDER "
	                       "BY actor_id, step", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0);
		if (!n || (*out)[n - 1].actor != a) {
			*out = vs_xrealloc(*out, (size_t)(n + 1) * sizeof **out);
			memset(&(*out)[n], 0, sizeof **out);
			(*out)[n++].actor = a;
		}
		double vx = sqlite3_column_double(st, 4);
		double vy = sqlite3_column_double(st, 5);
		double vz = sqlite3_column_double(st, 6);
		track_push(&(*out)[n - 1], sqlite3_column_double(st, 1),
		           sqlite3_column_double(st, 2),
		           sqlite3_column_double(st, 3),
		           sqrt(vx * vx + vy * vy + vz * vz));
	}
	sqlite3_finalize(st);
	return n;
}

static void tracks_free(track *t, int n)
{
	for (int i = 0; i < n; i++) {
		free(t[i].t);
		free(t[i].x);
		free(t[i].y);
		free(t[i].v);
	}
	free(t);
}

typedef struct frame {
	double x0, x1, y0, y1;   /* data window */
	double sx, sy;           /* px per unit */
	int to_scale;            /* 1:1 */
} frame;

static double fx(const frame *f, double x) { return M + (x - f->x0) * f->sx; }
static double fy(const frame *f, double y) { return H - M - (y - f->y0) * f->sy; }

/* The plan view's window: equal scale unless the data are so long and
 * thin (a lane change on a long road) that 1:1 would hide them. */
static frame plan_frame(const track *t, int n)
{
	frame r = {INFINITY, -INFINITY, INFINITY, -INFINITY, 1, 1, 1};
	for (int i = 0; i < n; i++)
		for (int k = 0; k < t[i].n; k++) {
			if (!isfinite(t[i].x[k]) || !isfinite(t[i].y[k]))
				continue;
			r.x0 = fmin(r.x0, t[i].x[k]);
			r.x1 = fmax(r.x1, t[i].x[k]);
			r.y0 = fmin(r.y0, t[i].y[k]);
			r.y1 = fmax(r.y1, t[i].y[k]);
		}
	if (!(r.x0 <= r.x1))
		r = (frame){0, 1, 0, 1, 1, 1, 1};
	double w = fmax(r.x1 - r.x0, 1), h = fmax(r.y1 - r.y0, 1);
	double cx = (r.x0 + r.x1) / 2, cy = (r.y0 + r.y1) / 2;
	double bw = W - 2 * M, bh = H - 2 * M;
	w *= 1.08;
	h *= 1.08;
	r.to_scale = fmax(w / h, h / w) / fmax(bw / bh, bh / bw) < FREE_ASPECT;
	if (r.to_scale) {
		double s = fmin(bw / w, bh / h);
		w = bw / s;
		h = bh / s;
	}
	r.x0 = cx - w / 2;
	r.x1 = cx + w / 2;
	r.y0 = cy - h / 2;
	r.y1 = cy + h / 2;
	r.sx = bw / w;
	r.sy = bh / h;
	return r;
}

static void frame_ticks(FILE *f, const frame *r, const char *xl,
                        const char *yl)
{
	int dx, dy;
	double stx = plot_nice_step(r->x1 - r->x0, 5, &dx);
	double sty = plot_nice_step(r->y1 - r->y0, 5, &dy);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	        "fill=\"#fafafa\" stroke=\"#444\"/>\n", M, M, W - 2 * M,
	        H - 2 * M);
	double ix, iy;
	int nx = plot_ticks(r->x0, r->x1, stx, 0, &ix);
	int ny = plot_ticks(r->y0, r->y1, sty, 0, &iy);
	for (int k = 0; k < nx; k++) {
		double v = (ix + k) * stx;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		        "%.*f</text>\n", fx(r, v), H - M + 14, dx,
		        fabs(v) < stx / 2 ? 0.0 : v);
	}
	for (int k = 0; k < ny; k++) {
		double v = (iy + k) * sty;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
		        "%.*f</text>\n", M - 4, fy(r, v) + 4, dy,
		        fabs(v) < sty / 2 ? 0.0 : v);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s"
	        "</text>\n<text transform=\"translate(12 %.1f) rotate(-90)\" "
	        "text-anchor=\"middle\">%s</text>\n", W / 2, H - 8, xl, H / 2,
	        yl);
}

static void series_path(FILE *f, const frame *r, const double *x,
                        const double *y, int n, const char *colour,
                        const char *cls, int64_t actor)
{
	int stride = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
	fprintf(f, "<path class=\"%s\" data-actor=\"%lld\" fill=\"none\" "
	        "stroke=\"%s\" stroke-width=\"1.6\" d=\"", cls,
	        (long long)actor, colour);
	int pen = 0;
	for (int k = 0; k < n; k += stride) {
		int i = k + stride >= n ? n - 1 : k;  /* the last one too */
		if (!isfinite(x[i]) || !isfinite(y[i])) {
			pen = 0;
			continue;
		}
		fprintf(f, "%s%.1f %.1f", pen ? "L" : "M", fx(r, x[i]),
		        fy(r, y[i]));
		pen = 1;
	}
	fputs("\"/>\n", f);
}

static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                                      "#d62728", "#9467bd", "#8c564b"};

/* Events of the variant drawn where the actor was at the event's time. */
static void event_marks(FILE *f, const report_data *d, int64_t id,
                        const frame *r, const track *t, int n)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->db, "SELECT t, actor_id, kind FROM event "
	                       "WHERE variant_id = ? ORDER BY t LIMIT 200",
	                       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_bind_int64(st, 1, id);
	fputs("<g class=\"events\">\n", f);
	while (sqlite3_step(st) == SQLITE_ROW) {
		double te = sqlite3_column_double(st, 0);
		int64_t a = sqlite3_column_int64(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		for (int i = 0; i < n; i++) {
			if (t[i].actor != a || !t[i].n)
				continue;
			int k = 0;  /* the stored row nearest te */
			while (k + 1 < t[i].n && t[i].t[k + 1] <= te + 1e-9)
				k++;
			double x = fx(r, t[i].x[k]), y = fy(r, t[i].y[k]);
			int coll = kind && !strcmp(kind, "collision");
			char shape[96];
			if (coll)  /* a cross */
				snprintf(shape, sizeof shape, "M%.1f %.1fl10 10m0 "
				         "-10l-10 10", x - 5, y - 5);
			else       /* a triangle */
				snprintf(shape, sizeof shape, "M%.1f %.1fl5 9h-10z",
				         x, y - 6);
			fputs("<path class=\"event-mark\" data-kind=\"", f);
			report_text(f, kind);
			fprintf(f, "\" d=\"%s\" stroke=\"%s\" stroke-width=\"2\" "
			        "fill=\"none\" data-tip=\"", shape,
			        coll ? "#d00" : "#000");
			report_text(f, kind);
			fprintf(f, ", actor %lld, t = %.3g s\"/>\n", (long long)a,
			        te);
		}
	}
	fputs("</g>\n", f);
	sqlite3_finalize(st);
}

static void plan_chart(FILE *f, const report_data *d, int64_t id,
                       const track *t, int n)
{
	frame r = plan_frame(t, n);
	fprintf(f, "<svg class=\"traj\" data-variant=\"%lld\" width=\"%.0f\" "
	        "height=\"%.0f\">\n", (long long)id, W, H);
	frame_ticks(f, &r, "x (m, east)", "y (m, north)");
	fprintf(f, "<text x=\"%.1f\" y=\"16\" text-anchor=\"end\" class="
	        "\"note\">%s</text>\n", W - M, r.to_scale ? "1:1" :
	        "axes not to scale");
	for (int i = 0; i < n; i++)
		series_path(f, &r, t[i].x, t[i].y, t[i].n,
		            colours[i % 6], "traj-path", t[i].actor);
	event_marks(f, d, id, &r, t, n);
	fputs("</svg>\n", f);
}

static void speed_chart(FILE *f, int64_t id, const track *t, int n)
{
	frame r = {0, 1e-9, 0, 1e-9, 1, 1, 0};
	for (int i = 0; i < n; i++)
		for (int k = 0; k < t[i].n; k++) {
			if (isfinite(t[i].t[k]))
				r.x1 = fmax(r.x1, t[i].t[k]);
			if (isfinite(t[i].v[k]))
				r.y1 = fmax(r.y1, t[i].v[k]);
		}
	r.y1 = r.y1 > 1e-6 ? r.y1 * 1.08 : 1;
	r.x1 = r.x1 > 1e-6 ? r.x1 : 1;
	r.sx = (W - 2 * M) / r.x1;
	r.sy = (H - 2 * M) / r.y1;
	fprintf(f, "<svg class=\"speed\" data-variant=\"%lld\" width=\"%.0f\" "
	        "height=\"%.0f\">\n", (long long)id, W, H);
	frame_ticks(f, &r, "t (s)", "speed |v| (m/s)");
	for (int i = 0; i < n; i++)
		series_path(f, &r, t[i].t, t[i].v, t[i].n, colours[i % 6],
		            "speed-path", t[i].actor);
	fputs("</svg>\n", f);
}

static void params_text(FILE *f, const report_data *d, int64_t id)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->db, "SELECT params, error FROM variant_info "
	                       "WHERE variant_id = ?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			fputs("<code>", f);
			report_text(f, (const char *)sqlite3_column_text(st, 0));
			fputs("</code>", f);
			if (sqlite3_column_type(st, 1) == SQLITE_TEXT) {
				fputs(" <span class=\"bad\">", f);
				report_text(f, (const char *)
				            sqlite3_column_text(st, 1));
				fputs("</span>", f);
			}
		}
	}
	sqlite3_finalize(st);
}

void report_worst(FILE *f, const report_data *d)
{
	const report_kpi *by = &d->kpis[d->by];
	fprintf(f, "<section id=\"worst\"><h2>The %d worst variants by ",
	        d->worst);
	report_text(f, by->name);
	fprintf(f, " (%s first)</h2>\n", by->lower_is_worse ? "smallest" :
	        "largest");
	if (!d->worst) {
		fputs("</section>\n", f);
		return;
	}
	int64_t *pick = vs_xcalloc((size_t)d->worst, sizeof *pick);
	int n = pick_worst(d, d->by, d->worst, pick);
	if (!n) {
		fputs("<p>No variant has a value of ", f);
		report_text(f, by->name);
		fputs(".</p>\n", f);
	}
	fputs("<table id=\"worst-table\"><thead><tr><th>rank</th><th>variant"
	      "</th>", f);
	for (int k = 0; k < d->n_kpis; k++) {
		fputs("<th>", f);
		report_text(f, d->kpis[k].name);
		fputs("</th>", f);
	}
	fputs("<th>params</th></tr></thead><tbody>\n", f);
	for (int r = 0; r < n; r++) {
		int64_t i = pick[r];
		fprintf(f, "<tr class=\"worst\" data-variant=\"%lld\"><td>%d</td>"
		        "<td><a href=\"#variant-%lld\">%lld</a>%s</td>",
		        (long long)d->id[i], r + 1, (long long)d->id[i],
		        (long long)d->id[i], d->failed[i] ? " (failed)" : "");
		for (int k = 0; k < d->n_kpis; k++) {
			fprintf(f, "<td class=\"num\"%s>", k == d->by ?
			        " style=\"font-weight:bold\"" : "");
			report_num(f, d->kpis[k].v[i]);
			fputs("</td>", f);
		}
		fputs("<td>", f);
		params_text(f, d, d->id[i]);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	for (int r = 0; r < n; r++) {
		int64_t id = d->id[pick[r]];
		track *t;
		int nt = load_tracks(d, id, &t);
		fprintf(f, "<div class=\"worst-variant\" id=\"variant-%lld\">"
		        "<h3>#%d: variant %lld</h3>\n", (long long)id, r + 1,
		        (long long)id);
		if (!nt) {
			fputs("<p class=\"note\">No stored states (a summary-only "
			      "run, or the variant failed at once).</p>\n", f);
		} else {
			fputs("<div class=\"charts\">", f);
			plan_chart(f, d, id, t, nt);
			speed_chart(f, id, t, nt);
			fputs("</div>\n<p class=\"note\">Actors:", f);
			for (int i = 0; i < nt; i++)
				fprintf(f, " <span style=\"color:%s\">&#9632; "
				        "%lld</span>", colours[i % 6],
				        (long long)t[i].actor);
			fputs("; &#10005; collision, &#9651; other events.</p>\n",
			      f);
		}
		fputs("</div>\n", f);
		tracks_free(t, nt);
	}
	free(pick);
	fputs("</section>\n", f);
}
