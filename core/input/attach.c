/* Attachments in scenario files: the attach: block, and the rules that need
 * every actor. See attach.h for the shape and the contact points.
 *
 * Like the rest of input/, every rule reports "FILE:LINE:COL: message" at
 * the node that breaks it. The checks across actors run after the YAML
 * tree is gone, so the marks they need are kept in vs_attach. */
#include "input/attach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "geom/geometry.h"
#include "input/keys.h"
#include "input/scenario.h"
#include "yaml/yamltree.h"

#define DEG (VS_PI / 180.0)
/* The scenario's point kinds are geom's, value for value. */
_Static_assert(VS_POINT_FRONT == (int)VS_GEOM_FRONT &&
                       VS_POINT_ORIGIN == (int)VS_GEOM_ORIGIN &&
                       VS_POINT_REAR == (int)VS_GEOM_REAR &&
                       VS_POINT_IMPORTED == (int)VS_GEOM_IMPORTED,
               "attach point kinds match geom's");

/* What an attached actor cannot have: its parent moves it. */
static const char *const moved_keys[] = {
	"vehicle_model", "behaviour", "speed", "waypoints", "yaw", NULL};

static const char point_forms[] =
	"give Front, Origin or Rear (computed from the bounding box) or an "
	"imported point of the asset named 'hitch' or beginning with 'attach'";

const char *vs_attach_type_name(vs_attach_type t)
{
	switch (t) {
	case VS_ATTACH_TRAILER: return "trailer";
	case VS_ATTACH_FIXED: return "fixed";
	default: return NULL;
	}
}

static int imported_name(const char *s)
{
	return strcmp(s, "hitch") == 0 || strncmp(s, "attach", 6) == 0;
}

static int copy_name(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                     const char *s, char *dst, vs_error *err)
{
	if (strlen(s) >= VS_ATTACH_NAME_MAX) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: at most %d characters, got %zu", what,
		            VS_ATTACH_NAME_MAX - 1, strlen(s));
		return -1;
	}
	strcpy(dst, s);
	return 0;
}

/* child_point / parent_point: the form only; whether an imported name
 * exists on the asset is vs_attach_check's (the parent may come later). */
static int parse_point(const vs_ydoc *doc, const vs_ynode *n, const char *what,
                       vs_attach_point *pt, vs_error *err)
{
	static const char *const computed[] = {"Front", "Origin", "Rear"};
	const char *s;
	if (vs_y_string(doc, n, what, &s, err))
		return -1;
	pt->mark = n->mark;
	pt->index = -1;
	for (int k = 0; k < 3; k++) {
		if (strcmp(s, computed[k]) == 0) {
			pt->kind = (vs_point_kind)(VS_POINT_FRONT + k);
			strcpy(pt->name, s);
			return 0;
		}
	}
	if (!imported_name(s)) {
		vs_error_at(err, doc->path, n->mark,
		            "%s: '%s' is not a contact point; %s", what, s,
		            point_forms);
		return -1;
	}
	pt->kind = VS_POINT_IMPORTED;
	return copy_name(doc, n, what, s, pt->name, err);
}

/* heading / slope: degrees in [-180, 180] as RoadRunner has them. */
static int parse_angle(const vs_ydoc *doc, const vs_ynode *m, const char *key,
                       double *out, vs_error *err)
{
	const vs_ynode *n = vs_ymap_get(m, key);
	double deg = 0;
	if (!n)
		return 0;
	if (vs_y_number(doc, n, key, VS_Y_ANY, &deg, err))
		return -1;
	if (!(deg >= -180 && deg <= 180)) {
		vs_error_at(err, doc->path, n->mark,
		            "%s must be in [-180, 180] degrees, got %s", key,
		            n->str);
		return -1;
	}
	*out = deg * DEG;
	return 0;
}

int vs_attach_parse(const vs_ydoc *doc, const vs_ynode *actor_map,
                    const vs_ynode *m, const vs_scenario *scn,
                    vs_actor_spec *a, vs_error *err)
{
	vs_attach *at = &a->attach;
	const vs_ynode *n;
	const char *s;
	memset(at, 0, sizeof *at);
	if (vs_y_map(doc, m, "attach", err) ||
	    vs_y_check_keys(doc, m, "attach", vs_keys_attach, err))
		return -1;
	at->present = 1;
	at->mark = m->mark;
	at->parent = -1;
	for (int k = 0; moved_keys[k]; k++) {
		if ((n = vs_ymap_get(actor_map, moved_keys[k]))) {
			vs_error_at(err, doc->path, n->mark,
			            "actor %lld: %s: attached actors are moved by "
			            "their parent; remove it", (long long)a->id,
			            moved_keys[k]);
			return -1;
		}
	}
	if ((n = vs_ymap_get(m, "name")) &&
	    (vs_y_string(doc, n, "name", &s, err) ||
	     copy_name(doc, n, "name", s, at->name, err)))
		return -1;

	if (!(n = vs_ymap_get(m, "parent"))) {
		vs_error_at(err, doc->path, m->mark,
		            "attach: missing required key 'parent'");
		return -1;
	}
	if (vs_y_int(doc, n, "parent", &at->parent_id, err))
		return -1;
	at->parent_mark = n->mark;

	if (!(n = vs_ymap_get(m, "type"))) {
		vs_error_at(err, doc->path, m->mark,
		            "attach: missing required key 'type'");
		return -1;
	}
	if (vs_y_string(doc, n, "type", &s, err))
		return -1;
	at->type_mark = n->mark;
	if (strcmp(s, "trailer") == 0) {
		at->type = VS_ATTACH_TRAILER;
	} else if (strcmp(s, "fixed") == 0) {
		at->type = VS_ATTACH_FIXED;
	} else {
		vs_error_at(err, doc->path, n->mark,
		            "type must be 'trailer' or 'fixed', got '%s'", s);
		return -1;
	}

	if ((n = vs_ymap_get(m, "offset")) &&
	    vs_y_vec(doc, n, "offset", 3, at->offset, err))
		return -1;
	if (parse_angle(doc, m, "heading", &at->heading, err) ||
	    parse_angle(doc, m, "slope", &at->slope, err))
		return -1;
	n = vs_ymap_get(m, "slope");
	at->slope_mark = n ? n->mark : m->mark;
	/* A trailer's wheels stay on the ground (docs/scenario.md), so a tilt
	 * would be dropped without a word: say so instead. */
	if (n && at->type == VS_ATTACH_TRAILER && at->slope != 0) {
		vs_error_at(err, doc->path, n->mark,
		            "slope: a trailer's wheels stay on the ground, so its "
		            "slope must be 0 (type fixed tilts a child)");
		return -1;
	}

	/* Defaults: the child's hitch if its asset has one, else Front;
	 * the parent's Rear. */
	const vs_asset *as = &scn->assets[a->asset];
	at->child_point = (vs_attach_point){VS_POINT_FRONT, "Front", -1, m->mark};
	for (int k = 0; k < as->n_points; k++) {
		if (strcmp(as->points[k].name, "hitch") == 0) {
			at->child_point.kind = VS_POINT_IMPORTED;
			strcpy(at->child_point.name, "hitch");
		}
	}
	at->parent_point = (vs_attach_point){VS_POINT_REAR, "Rear", -1, m->mark};
	if ((n = vs_ymap_get(m, "child_point")) &&
	    parse_point(doc, n, "child_point", &at->child_point, err))
		return -1;
	if ((n = vs_ymap_get(m, "parent_point")) &&
	    parse_point(doc, n, "parent_point", &at->parent_point, err))
		return -1;
	return 0;
}

/* ---- checks across actors -------------------------------------------- */

typedef struct id_idx {
	int64_t id;
	int idx;
} id_idx;

static int id_idx_cmp(const void *pa, const void *pb)
{
	const id_idx *a = pa, *b = pb;
	return (a->id > b->id) - (a->id < b->id);
}

/* Resolves an imported point's index on the asset. */
static int resolve_point(const vs_scenario *scn, const vs_asset *as,
                         const char *what, vs_attach_point *pt, vs_error *err)
{
	if (pt->kind != VS_POINT_IMPORTED)
		return 0;
	for (int k = 0; k < as->n_points; k++) {
		if (strcmp(as->points[k].name, pt->name) == 0) {
			pt->index = k;
			return 0;
		}
	}
	char list[512] = "";
	for (int k = 0; k < as->n_points; k++)
		vs_y_join(list, sizeof list, as->points[k].name);
	vs_error_at(err, scn->path, pt->mark,
	            "%s: asset '%s' has no point '%s'; %s%s", what, as->name,
	            pt->name, as->n_points ? "its points: " : "it has none "
	            "(add points: to the asset, or use Front, Origin or Rear)",
	            list);
	return -1;
}

static int check_one(vs_scenario *scn, int i, const id_idx *sorted,
                     vs_error *err)
{
	vs_actor_spec *a = &scn->actors[i];
	vs_attach *at = &a->attach;
	id_idx key = {at->parent_id, 0};
	const id_idx *hit = bsearch(&key, sorted, (size_t)scn->n_actors,
	                            sizeof *sorted, id_idx_cmp);
	if (!hit) {
		vs_error_at(err, scn->path, at->parent_mark,
		            "attach: parent %lld is not an actor of this scenario "
		            "(give the ID of the actor to attach to)",
		            (long long)at->parent_id);
		return -1;
	}
	if (hit->idx == i) {
		vs_error_at(err, scn->path, at->parent_mark,
		            "attach: actor %lld cannot be attached to itself",
		            (long long)a->id);
		return -1;
	}
	at->parent = hit->idx;
	const vs_asset *as = &scn->assets[a->asset];
	const vs_asset *pas = &scn->assets[scn->actors[hit->idx].asset];
	if (at->type == VS_ATTACH_TRAILER && as->n_axles == 0) {
		vs_error_at(err, scn->path, at->type_mark,
		            "attach: type trailer needs a vehicle (an asset with "
		            "axles); asset '%s' has none, so use type fixed",
		            as->name);
		return -1;
	}
	if (resolve_point(scn, as, "child_point", &at->child_point, err) ||
	    resolve_point(scn, pas, "parent_point", &at->parent_point, err))
		return -1;
	if (at->type == VS_ATTACH_TRAILER) {
		double hitch[3];
		vs_attach_point_pos(scn, i, &at->child_point, hitch);
		/* all of a trailer's axles are unsteered: their middle
		 * is where it turns */
		double yc = vs_geom_axle_centre(as->axle_y, as->n_axles);
		if (!(hitch[1] - yc > VS_GEOM_MIN_TOW)) {
			vs_error_at(err, scn->path, at->child_point.mark,
			            "attach: a trailer's contact point must lie "
			            "ahead of its axles' centre (y = %g m); "
			            "child_point %s is at y = %g m", yc,
			            at->child_point.name, hitch[1]);
			return -1;
		}
	}
	return 0;
}

/* Parents form a forest: following parent links from any actor reaches an
 * unattached one. Colours: 0 unseen, 1 on the current path, 2 done. */
static int check_cycles(const vs_scenario *scn, vs_error *err)
{
	int n = scn->n_actors, rc = 0;
	unsigned char *colour = vs_xcalloc((size_t)n, 1);
	for (int i = 0; i < n && !rc; i++) {
		int j = i;
		while (colour[j] == 0 && scn->actors[j].attach.present) {
			colour[j] = 1;
			j = scn->actors[j].attach.parent;
		}
		if (colour[j] == 1 && scn->actors[j].attach.present) {
			/* j is on a cycle: name it from j round to j. */
			char path[512] = "";
			int k = j;
			do {
				size_t len = strlen(path);
				snprintf(path + len, sizeof path - len, "%lld -> ",
				         (long long)scn->actors[k].id);
				k = scn->actors[k].attach.parent;
			} while (k != j);
			size_t len = strlen(path);
			snprintf(path + len, sizeof path - len, "%lld",
			         (long long)scn->actors[j].id);
			vs_error_at(err, scn->path,
			            scn->actors[j].attach.parent_mark,
			            "attach: parents form a cycle (%s); a chain of "
			            "attachments must end at an unattached actor",
			            path);
			rc = -1;
		}
		for (j = i; colour[j] == 1; j = scn->actors[j].attach.parent)
			colour[j] = 2;
	}
	free(colour);
	return rc;
}

int vs_attach_check(vs_scenario *scn, vs_error *err)
{
	int any = 0;
	for (int i = 0; i < scn->n_actors; i++)
		any |= scn->actors[i].attach.present;
	if (!any)
		return 0;
	id_idx *sorted = vs_xcalloc((size_t)scn->n_actors, sizeof *sorted);
	for (int i = 0; i < scn->n_actors; i++)
		sorted[i] = (id_idx){scn->actors[i].id, i};
	qsort(sorted, (size_t)scn->n_actors, sizeof *sorted, id_idx_cmp);
	int rc = 0;
	for (int i = 0; i < scn->n_actors && !rc; i++)
		if (scn->actors[i].attach.present)
			rc = check_one(scn, i, sorted, err);
	free(sorted);
	return rc ? rc : check_cycles(scn, err);
}

void vs_attach_point_pos(const vs_scenario *scn, int i,
                         const vs_attach_point *pt, double out[3])
{
	const vs_actor_spec *a = &scn->actors[i];
	const vs_asset *as = &scn->assets[a->asset];
	vs_geom_body body = {.length = a->length,
	                     .front_overhang = a->front_overhang,
	                     .rear_overhang = a->rear_overhang,
	                     .asset_length = as->length,
	                     .n_axles = as->n_axles,
	                     .asset_axle_y = as->axle_y};
	/* unresolved imported points (vs_attach_check refuses them) give
	 * the origin */
	const double *asset_p =
		pt->kind == VS_POINT_IMPORTED && pt->index >= 0 &&
		        pt->index < as->n_points
			? as->points[pt->index].p
			: NULL;
	vs_geom_point_pos(&body, (vs_geom_point)pt->kind, asset_p, out);
}
