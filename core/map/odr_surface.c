/* The road surface of an OpenDRIVE road across its lanes: the elevation
 * at the reference line, turned about it by the superelevation, except
 * over lanes with level="true", which stay level at the height of their
 * inner neighbour's outer edge (the lanes outside one go on from its
 * outer edge at the road's bank); and each lane raised by its <height>
 * records, inner (m) at its inner edge and outer (m) at its outer edge,
 * linear across, each from its sOffset to the next record (ASAM
 * OpenDRIVE 1.6, lanes: level and height). */
#include <math.h>

#include "map/odr.h"

/* Does any lane of the section change the plain banked plane? */
static int plain(const odr_section *q)
{
	for (int k = 0; k < q->n_lanes; k++)
		if (q->lanes[k].level || q->lanes[k].n_height)
			return 0;
	return 1;
}

/* The height record of lane l holding rel (m from the section's start),
 * or NULL before the first. */
static const odr_height *height_at(const odr_lane *l, double rel)
{
	const odr_height *h = NULL;
	for (int i = 0; i < l->n_height && l->height[i].s0 <= rel; i++)
		h = &l->height[i];
	return h;
}

double odr_surface(const odr_road *r, int sec, double s, double t,
                   double *dzds, double *dzdt)
{
	double de, dsup;
	double e = odr_poly_at(r->elev, r->n_elev, s, &de);
	double sup = odr_poly_at(r->super, r->n_super, s, &dsup);
	double c = cos(sup), bank = tan(sup);
	const odr_section *q = &r->sec[sec];
	if (plain(q)) {
		*dzds = de + t * dsup / (c * c);
		*dzdt = bank;
		return e + t * bank;
	}
	/* z = e + bank · te, te being t less the level lanes' share of
	 * the way out from the reference line; dte its change with s at
	 * constant t (m/m) */
	double dti, ti = odr_boundary(r, sec, -1, s, &dti);
	int left = t > ti, from = left ? 0 : q->n_left;
	int to = left ? q->n_left : q->n_lanes;
	double te = t, dte = 0, lift = 0, dlift = 0, dlt = 0;
	int level = 0;
	for (int k = from; k < to; k++) {
		const odr_lane *l = &q->lanes[k];
		double dto, tout = odr_boundary(r, sec, k, s, &dto);
		int holds = k == to - 1 || (left ? t <= tout : t >= tout);
		if (holds && l->level) {
			/* at its inner edge's height all across */
			te -= t - ti;
			dte += dti;
			level = 1;
		} else if (l->level) {
			te -= tout - ti;
			dte -= dto - dti;
		}
		if (holds) {
			const odr_height *h = height_at(l, s - q->s);
			double w = tout - ti;
			if (h && fabs(w) > 1e-9) {
				/* f: 0 at the inner edge, 1 at the outer */
				double f = (t - ti) / w, rise = h->outer - h->inner;
				double df = (-dti * w - (t - ti) * (dto - dti)) /
				            (w * w);
				lift = h->inner + rise * f;
				dlift = rise * df;
				dlt = rise / w;
			} else if (h) {
				lift = h->inner;
			}
			break;
		}
		ti = tout;
		dti = dto;
	}
	*dzds = de + te * dsup / (c * c) + bank * dte + dlift;
	*dzdt = (level ? 0 : bank) + dlt;
	return e + te * bank + lift;
}
