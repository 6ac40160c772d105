/* An actor of a scenario as the simulation sees it (actor.h). */
#include "sim/actor.h"

#include <math.h>
#include <string.h>

vs_geom_body vs_sim_body(const vs_scenario *scn, int i)
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_asset *as = &scn->assets[a->asset];
	return (vs_geom_body){
		.length = a->length,
		.front_overhang = a->front_overhang,
		.rear_overhang = a->rear_overhang,
		.asset_length = as->length,
		.n_axles = as->n_axles,
		.asset_axle_y = as->axle_y,
	};
}

int vs_sim_axles(const vs_scenario *scn, int i, double *axle_y)
{
	vs_geom_body b = vs_sim_body(scn, i);
	return vs_geom_axles(&b, axle_y);
}

void vs_sim_point_pos(const vs_scenario *scn, int i,
                      const vs_attach_point *pt, double out[3])
{
	const vs_asset *as = &scn->assets[scn->actors[i].asset];
	vs_geom_body b = vs_sim_body(scn, i);
	vs_geom_point kind = VS_GEOM_ORIGIN;
	const double *p = NULL;
	switch (pt->kind) {
	case VS_POINT_FRONT: kind = VS_GEOM_FRONT; break;
	case VS_POINT_REAR: kind = VS_GEOM_REAR; break;
	case VS_POINT_IMPORTED:
		kind = VS_GEOM_IMPORTED;
		if (pt->index >= 0 && pt->index < as->n_points)
			p = as->points[pt->index].p;
		break;
	case VS_POINT_ORIGIN:
	default:
		break;
	}
	vs_geom_point_pos(&b, kind, p, out);
}

void vs_sim_actor_info(const vs_scenario *scn, int i, vs_actor_info *info)
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_asset *as = &scn->assets[a->asset];
	memset(info, 0, sizeof *info);
	info->struct_size = sizeof *info;
	info->id = a->id;
	info->name = a->name;
	info->length = a->length;
	info->width = a->width;
	info->height = a->height;
	info->front_overhang = a->front_overhang;
	info->rear_overhang = a->rear_overhang;
	info->track = as->track;
	info->wheel_radius = as->wheel_radius;
	double axle_y[VS_MAX_AXLES];
	int n_axles = vs_sim_axles(scn, i, axle_y);
	info->n_axles = (uint32_t)n_axles;
	if (n_axles > 0) {
		vs_geom_axle_refs(axle_y, n_axles, &info->front_axle_y,
		                  &info->rear_axle_y);
		info->wheelbase = info->front_axle_y - info->rear_axle_y;
	}
	const vs_plugin_use *vm = &a->vehicle_model;
	int ratio = vm->loaded ? vs_plugin_use_param(vm, "steering_ratio") : -1;
	info->steering_ratio = ratio >= 0 ? vm->params[ratio] : 15.0;
	info->speed = a->speed;
	info->n_speed = (size_t)a->n_speed;
	info->waypoints = a->waypoints;
	info->n_waypoints = (size_t)a->n_waypoints;
	info->yaw = a->n_yaw ? a->yaw : NULL;
	info->n_yaw = (size_t)a->n_yaw;
	info->step = scn->step;
	vs_state *s = &info->start;
	s->x = a->start_pos[0];
	s->y = a->start_pos[1];
	s->z = a->start_pos[2];
	s->yaw = a->start_yaw;
	s->speed = a->n_speed > 0 ? a->speed[0] : 0.0;
	/* Heading from +X is yaw + pi/2: forward = (-sin yaw, cos yaw). */
	s->vx = -sin(s->yaw) * s->speed;
	s->vy = cos(s->yaw) * s->speed;
}
