/* Actor body geometry (geometry.h): axles and contact points. */
#include "geom/geometry.h"

#include <string.h>

int vs_geom_axles(const vs_geom_body *b, double *axle_y)
{
	int n = b->n_axles;
	if (n <= 0)
		return 0;
	const double *as = b->asset_axle_y;
	double front = b->length / 2 - b->front_overhang;
	double rear = -b->length / 2 + b->rear_overhang;
	double af = as[0], ar = as[n - 1];
	axle_y[0] = front;
	for (int k = 1; k < n; k++) {
		/* where axle k sat between the asset's first and last */
		double f = af != ar ? (af - as[k]) / (af - ar) : 0;
		axle_y[k] = front + f * (rear - front);
	}
	return n;
}

void vs_geom_axle_refs(const double *axle_y, int n, double *front_y,
                       double *rear_y)
{
	double sum = 0;
	for (int k = 1; k < n; k++)
		sum += axle_y[k];
	*front_y = axle_y[0];
	*rear_y = n > 1 ? sum / (n - 1) : axle_y[0];
}

double vs_geom_axle_centre(const double *axle_y, int n)
{
	double sum = 0;
	for (int k = 0; k < n; k++)
		sum += axle_y[k];
	return sum / n;
}

void vs_geom_point_pos(const vs_geom_body *b, vs_geom_point kind,
                       const double asset_p[3], double out[3])
{
	out[0] = out[1] = out[2] = 0;
	switch (kind) {
	case VS_GEOM_FRONT:
		out[1] = b->length / 2;
		break;
	case VS_GEOM_REAR:
		out[1] = -b->length / 2;
		break;
	case VS_GEOM_IMPORTED:
		if (!asset_p)
			break;
		memcpy(out, asset_p, 3 * sizeof *out);
		/* the origin stays mid-box, so the front bumper the point
		 * is measured from moves by half the length change */
		out[1] += (b->length - b->asset_length) / 2;
		break;
	case VS_GEOM_ORIGIN:
	default:
		break;
	}
}
