/* Pieces both charts of `vsweep plot` share: colours, ticks, text, the
 * document frame and the legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"

#define FONT 11.0        /* px, legend and tick labels */
#define ROW 16.0         /* px between legend rows */
#define CHAR_W 6.2       /* px, a generous average sans-serif advance at
                            FONT, for trimming text to the legend width */
#define SWATCH 26.0      /* px, legend line length */
#define LEGEND_VARIANTS 30        /* rows listed without --colour-by */
#define LEGEND_VARIANTS_VALUED 12 /* with it (the colour bar says more) */
#define LEGEND_ACTORS 12
#define BAR_H 160.0      /* px, colour bar */
#define NO_VALUE "#9a9a9a"

/* Viridis (matplotlib), 8 anchors at 0, 1/7, ..., 1: perceptually
 * uniform and monotone in lightness, so order reads as order in print
 * and for colour-blind readers. */
static const unsigned char viridis[8][3] = {
	{0x44, 0x01, 0x54}, {0x46, 0x32, 0x7e}, {0x36, 0x5c, 0x8d},
	{0x27, 0x7f, 0x8e}, {0x1f, 0xa1, 0x87}, {0x4a, 0xc1, 0x6d},
	{0xa0, 0xda, 0x39}, {0xfd, 0xe7, 0x25},
};

/* Tableau 10: distinct hues for the first variants. */
static const char *const tab10[10] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

/* Dash patterns per actor, in units of the stroke (see plot_actor_dash) */
static const double dashes[][4] = {
	{0, 0, 0, 0}, {6, 3, 0, 0}, {2, 2, 0, 0}, {8, 3, 2, 3},
	{12, 4, 0, 0}, {4, 2, 1, 2},
};
#define N_DASHES (int)(sizeof dashes / sizeof dashes[0])

void plot_viridis(double u, char out[8])
{
	if (!(u > 0))
		u = 0;  /* also NaN */
	if (u > 1)
		u = 1;
	double p = u * 7;
	int i = (int)p;
	if (i > 6)
		i = 6;
	double f = p - i;
	int c[3];
	for (int k = 0; k < 3; k++)
		c[k] = (int)lround(viridis[i][k] +
		                   f * (viridis[i + 1][k] - viridis[i][k]));
	snprintf(out, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* HSL to "#rrggbb"; h in degrees, s and l in [0, 1]. */
static void hsl(double h, double s, double l, char out[8])
{
	double c = (1 - fabs(2 * l - 1)) * s;
	double hp = fmod(h, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1));
	double r = 0, g = 0, b = 0;
	if (hp < 1) { r = c; g = x; }
	else if (hp < 2) { r = x; g = c; }
	else if (hp < 3) { g = c; b = x; }
	else if (hp < 4) { g = x; b = c; }
	else if (hp < 5) { r = x; b = c; }
	else { r = c; b = x; }
	double m = l - c / 2;
	snprintf(out, 8, "#%02x%02x%02x", (int)lround((r + m) * 255),
	         (int)lround((g + m) * 255), (int)lround((b + m) * 255));
}

void plot_series_colour(const plot_data *d, int variant, char out[8])
{
	const plot_variant *v = &d->variants[variant];
	if (d->colour_by) {
		if (!v->has_value) {
			snprintf(out, 8, "%s", NO_VALUE);
			return;
		}
		double span = d->vmax - d->vmin;
		plot_viridis(span > 0 ? (v->value - d->vmin) / span : 0.5, out);
		return;
	}
	if (variant < 10) {
		snprintf(out, 8, "%s", tab10[variant]);
		return;
	}
	/* beyond ten: hues a golden angle apart never repeat and stay far
	 * from their neighbours in the list */
	hsl(20 + 137.508 * (variant - 10), 0.65, 0.42, out);
}

void plot_actor_dash(int actor_index, double unit, char *out, size_t size)
{
	const double *p = dashes[actor_index % N_DASHES];
	out[0] = 0;
	if (p[0] == 0)
		return;
	size_t n = 0;
	for (int k = 0; k < 4 && p[k] > 0 && n < size; k++)
		n += (size_t)snprintf(out + n, size - n, "%s%.4g", k ? "," : "",
		                      p[k] * unit);
}

int plot_actor_index(const plot_data *d, int64_t actor_id)
{
	for (int i = 0; i < d->n_actors; i++)
		if (d->actors[i].id == actor_id)
			return i;
	return 0;
}

double plot_nice_step(double span, int n, int *decimals)
{
	if (!(span > 0) || !isfinite(span))
		span = 1;
	double raw = span / (n > 0 ? n : 1);
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	if (decimals) {
		int dec = (int)-floor(log10(step) + 1e-9);
		*decimals = dec > 0 ? dec : 0;
	}
	return step;
}

int plot_ticks(double lo, double hi, double step, double slack,
               double *i0)
{
	*i0 = 0;
	if (!isfinite(lo) || !isfinite(hi) || !(step > 0) || !isfinite(step))
		return 0;
	double a = ceil(lo / step) * step;
	double b = hi + step * slack;
	if (!isfinite(a) || !isfinite(b) || a > b)
		return 0;
	double n = floor((b - a) / step) + 1;
	if (!(n >= 1) || n > PLOT_MAX_TICKS || a + step == a ||
	    b - step == b)
		return 0;
	*i0 = ceil(lo / step);
	return (int)n;
}

void plot_path(FILE *f, const double *x, const double *y, int n,
               const double a[4])
{
	fputs(" d=\"", f);
	int run = 0;  /* points in the current subpath */
	for (int k = 0; k < n; k++) {
		double px = a[0] * x[k] + a[1], py = a[2] * y[k] + a[3];
		if (!isfinite(px) || !isfinite(py)) {
			run = 0;
			continue;
		}
		fprintf(f, "%s%.3f %.3f", run == 0 ? "M" : run == 1 ? "L" :
		        run % 8 ? " " : "\n", px, py);
		run++;
	}
	fputs("\"/>\n", f);
}

/* The length of the valid UTF-8 sequence at s (1 to 4), or 0 when s does
 * not start one (a Latin-1 file name, a cut sequence, an overlong form). */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
	        (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (n == 0 || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && s[0] == 0xe0 && s[1] < 0xa0) ||
	    (n == 3 && s[0] == 0xed && s[1] >= 0xa0) ||
	    (n == 4 && s[0] == 0xf0 && s[1] < 0x90) ||
	    (n == 4 && s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

void plot_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		/* The file says it is UTF-8: a byte that is not is shown as
		 * \xNN text (paths from other systems), never written raw. */
		int n = utf8_len((const unsigned char *)s);
		if (n == 0) {
			fprintf(f, "\\x%02X", (unsigned)(unsigned char)*s);
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
			s += n - 1;
			continue;
		}
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 allows no control characters but tab */
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
	}
}

/* Text trimmed to max_chars characters (UTF-8 aware), with an ellipsis. */
static void text_trimmed(FILE *f, const char *s, int max_chars)
{
	char buf[512];
	size_t i = 0;
	int chars = 0;
	for (; s[i] && i < sizeof buf - 4; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++chars > max_chars)
			break;
		buf[i] = s[i];
	}
	if (s[i]) {
		/* drop the last character for the ellipsis */
		while (i > 0 && ((unsigned char)buf[i - 1] & 0xc0) == 0x80)
			i--;
		if (i > 0)
			i--;
		while (i > 0 && ((unsigned char)buf[i] & 0xc0) == 0x80)
			i--;
		memcpy(buf + i, "\xe2\x80\xa6", 3);
		i += 3;
	}
	buf[i] = 0;
	plot_text(f, buf);
}

void plot_begin(FILE *f, double w, double h, const char *kind,
                const plot_data *d)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
	        "standalone=\"no\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	        "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
	        "data-kind=\"%s\">\n", w, h, w, h, kind);
	fputs("<!-- vsweep plot. Trajectory paths hold world coordinates (m, "
	      "x east, y north) inside <g id=\"trajectories\" transform=\""
	      "matrix(s 0 0 -s tx ty)\">: screen = (s*x + tx, -s*y + ty). "
	      "Speed paths hold screen px inside <g id=\"series\" data-t=\"t0 "
	      "t1\" data-speed=\"v0 v1\" data-box=\"x y w h\">: t0 -> x, t1 "
	      "-> x + w, v0 -> y + h, v1 -> y. data-stride=\"K\": the path "
	      "keeps stored rows 0, K, 2K, ... and the last. -->\n", f);
	fputs("<title>vsweep plot: ", f);
	plot_text(f, d->scenario_name && *d->scenario_name ? d->scenario_name
	                                                   : d->db_path);
	fprintf(f, " (%s)</title>\n", kind);
	fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
	        w, h);
}

void plot_end(FILE *f)
{
	fputs("</svg>\n", f);
}

/* One legend row: a line swatch (colour, dash) and a label. */
static void swatch_row(FILE *f, double x, double y, const char *colour,
                       const char *dash, double width)
{
	fprintf(f, "<path d=\"M%.1f %.1fh%.1f\" stroke=\"%s\" stroke-width="
	        "\"%.1f\" fill=\"none\"", x, y - 4, SWATCH, colour, width);
	if (dash && *dash)
		fprintf(f, " stroke-dasharray=\"%s\"", dash);
	fputs("/>\n", f);
}

static void label(FILE *f, double x, double y, const char *weight)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\"%s%s%s>",
	        x, y, FONT, weight ? " font-weight=\"" : "",
	        weight ? weight : "", weight ? "\"" : "");
}

/* The colour bar: viridis bottom (min) to top (max), with both values. */
static double colour_bar(FILE *f, const plot_data *d, double x, double y,
                         double w)
{
	int max_chars = (int)((w - 10) / CHAR_W);
	if (f) {
		label(f, x, y + FONT, "bold");
		text_trimmed(f, d->colour_by, max_chars);
		fputs("</text>\n", f);
		fputs("<defs><linearGradient id=\"colour-map\" x1=\"0\" y1=\"1\" "
		      "x2=\"0\" y2=\"0\">\n", f);
		for (int i = 0; i < 8; i++)
			fprintf(f, "<stop offset=\"%.4f\" stop-color=\"#%02x%02x"
			        "%02x\"/>\n", i / 7.0, viridis[i][0],
			        viridis[i][1], viridis[i][2]);
		fputs("</linearGradient></defs>\n", f);
		double by = y + ROW + 4;
		fprintf(f, "<g id=\"colour-bar\" data-min=\"%.17g\" data-max="
		        "\"%.17g\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" "
		        "height=\"%.1f\" fill=\"url(#colour-map)\" stroke=\"#444\""
		        " stroke-width=\"0.5\"/>\n", d->vmin, d->vmax, x, by,
		        BAR_H);
		/* max at the top, min at the bottom, the middle between */
		double vals[3] = {d->vmax, (d->vmin + d->vmax) / 2, d->vmin};
		int n = d->vmax > d->vmin ? 3 : 1;
		for (int i = 0; i < n; i++) {
			double ty = n == 1 ? by + BAR_H / 2 : by + i * BAR_H / 2;
			fprintf(f, "<path d=\"M%.1f %.1fh4\" stroke=\"#444\"/>\n",
			        x + 16, ty);
			char num[64];
			snprintf(num, sizeof num, "%.6g%s", vals[i],
			         i == 0 && n == 3 ? " (max)" :
			         i == 2 ? " (min)" : "");
			label(f, x + 24, ty + 4, NULL);
			plot_text(f, num);
			fputs("</text>\n", f);
		}
		fputs("</g>\n", f);
	}
	double h = ROW + 4 + BAR_H + 12;
	if (d->n_no_value) {
		if (f) {
			swatch_row(f, x, y + h + FONT, NO_VALUE, NULL, 2.5);
			label(f, x + SWATCH + 6, y + h + FONT, NULL);
			fprintf(f, "no value (%d variant%s)</text>\n",
			        d->n_no_value, d->n_no_value == 1 ? "" : "s");
		}
		h += ROW;
	}
	return h + 6;
}

double plot_legend(FILE *f, const plot_data *d, double x, double y, double w,
                   int trajectory)
{
	double y0 = y;
	int max_chars = (int)((w - SWATCH - 8) / CHAR_W);
	if (f)
		fputs("<g id=\"legend\">\n", f);
	if (d->colour_by)
		y += colour_bar(f, d, x, y, w);

	/* variants: colour, id, params */
	int rows = d->colour_by ? LEGEND_VARIANTS_VALUED : LEGEND_VARIANTS;
	if (d->n_variants < rows)
		rows = d->n_variants;
	if (f) {
		label(f, x, y + FONT, "bold");
		fputs("variants</text>\n", f);
	}
	y += ROW + 2;
	for (int i = 0; i < rows; i++) {
		const plot_variant *v = &d->variants[i];
		if (f) {
			char colour[8], text[300];
			plot_series_colour(d, i, colour);
			snprintf(text, sizeof text, "%lld%s: %s",
			         (long long)v->id, v->failed ? " (failed)" : "",
			         v->params);
			fprintf(f, "<g class=\"legend-variant\" data-variant="
			        "\"%lld\">\n", (long long)v->id);
			swatch_row(f, x, y + FONT, colour, NULL, 2.5);
			label(f, x + SWATCH + 6, y + FONT, NULL);
			text_trimmed(f, text, max_chars);
			fputs("</text>\n</g>\n", f);
		}
		y += ROW;
	}
	if (d->n_variants > rows) {
		if (f) {
			label(f, x, y + FONT, NULL);
			fprintf(f, "\xe2\x80\xa6 and %d more</text>\n",
			        d->n_variants - rows);
		}
		y += ROW;
	}
	y += 8;

	/* actors: dash pattern, id, name */
	int na = d->n_actors < LEGEND_ACTORS ? d->n_actors : LEGEND_ACTORS;
	if (na > 1 || trajectory) {
		if (f) {
			label(f, x, y + FONT, "bold");
			fputs("actors</text>\n", f);
		}
		y += ROW + 2;
		for (int i = 0; i < na; i++) {
			if (f) {
				char dash[64], text[300];
				plot_actor_dash(i, 2.0, dash, sizeof dash);
				snprintf(text, sizeof text, "%lld %s",
				         (long long)d->actors[i].id,
				         d->actors[i].name);
				swatch_row(f, x, y + FONT, "#333333", dash, 2);
				label(f, x + SWATCH + 6, y + FONT, NULL);
				text_trimmed(f, text, max_chars);
				fputs("</text>\n", f);
			}
			y += ROW;
		}
		if (d->n_actors > na) {
			if (f) {
				label(f, x, y + FONT, NULL);
				fprintf(f, "\xe2\x80\xa6 and %d more</text>\n",
				        d->n_actors - na);
			}
			y += ROW;
		}
		y += 8;
	}
	if (trajectory) {
		if (f) {
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
			        "fill=\"white\" stroke=\"#333333\" stroke-width="
			        "\"1.5\"/>\n", x + SWATCH / 2, y + FONT - 4);
			label(f, x + SWATCH + 6, y + FONT, NULL);
			fputs("start</text>\n", f);
		}
		y += ROW;
	}
	if (trajectory && d->n_events) {
		if (f) {
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" "
			        "fill=\"none\" stroke=\"#d00000\" stroke-width="
			        "\"2\"/>\n", x + SWATCH / 2, y + FONT - 4);
			label(f, x + SWATCH + 6, y + FONT, NULL);
			fputs("collision</text>\n", f);
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
			        "fill=\"white\" stroke=\"#000000\" stroke-width="
			        "\"2\"/>\n", x + SWATCH / 2, y + ROW + FONT - 4);
			label(f, x + SWATCH + 6, y + ROW + FONT, NULL);
			fputs("lane change</text>\n", f);
		}
		y += 2 * ROW;
	}
	if (trajectory && d->lanes.n_lanes) {
		if (f) {
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			        "height=\"10\" fill=\"#efefef\" stroke=\"#9a9a9a\" "
			        "stroke-width=\"1\"/>\n", x, y + FONT - 9, SWATCH);
			label(f, x + SWATCH + 6, y + FONT, NULL);
			fprintf(f, "lane and its edges (%d lanes)</text>\n",
			        d->lanes.n_lanes);
			swatch_row(f, x, y + ROW + FONT, "#b0b0b0", "5,4", 1);
			label(f, x + SWATCH + 6, y + ROW + FONT, NULL);
			fputs("lane centre line</text>\n", f);
		}
		y += 2 * ROW;
	}
	if (f)
		fputs("</g>\n", f);
	return y - y0;
}

void plot_path_open(FILE *f, const plot_data *d, const plot_series *s,
                    double unit)
{
	const plot_variant *pv = &d->variants[s->variant];
	char colour[8], dash[96];
	plot_series_colour(d, s->variant, colour);
	plot_actor_dash(plot_actor_index(d, s->actor_id), unit, dash,
	                sizeof dash);
	fprintf(f, "<path data-variant=\"%lld\" data-actor=\"%lld\" "
	        "data-stride=\"%d\"", (long long)pv->id,
	        (long long)s->actor_id, s->stride);
	if (d->colour_by && pv->has_value)
		fprintf(f, " data-value=\"%.17g\"", pv->value);
	fprintf(f, " stroke=\"%s\"", colour);
	if (*dash)
		fprintf(f, " stroke-dasharray=\"%s\"", dash);
}
