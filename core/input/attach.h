/* Attachments: an actor's attach: block (RoadRunner's ActorAttachmentPoint)
 * and the checks that need every actor (parents, cycles, contact points).
 *
 *   attach:
 *     name: tow              # optional; RoadRunner keeps it, nothing uses it
 *     parent: 1              # the parent actor's ID (required)
 *     type: trailer          # trailer | fixed (required)
 *     offset: [0, 0, 0]      # m, parent frame, from the parent's contact
 *                            # point to the child's (default 0)
 *     heading: 0             # deg in [-180, 180], child relative to parent,
 *     slope: 0               #   + about +Z / nose up about +X (default 0)
 *     child_point: hitch     # Front | Origin | Rear (computed) or an
 *     parent_point: Rear     #   imported point of the asset's points:
 *
 * Contact points, in the actor frame (X right, Y forward, Z up):
 *   Front  (0, +length/2, 0)  centre of the bounding box's front, on the
 *   Origin (0, 0, 0)          ground, as RoadRunner computes them from the
 *   Rear   (0, -length/2, 0)  box; they follow a varied length;
 *   imported: the asset's points: entry, named "hitch" or beginning with
 *     "attach". Like the axles (sweep.c), it is measured from the front
 *     bumper: a length change moves it by dlength/2 in y with the front
 *     half of the box, so a kingpin keeps its place behind the front.
 * Defaults: child_point is the child asset's "hitch" when it has one, else
 * Front (the drawbar end of a trailer); parent_point is Rear (a tow ball).
 *
 * An attached actor is moved by its parent: it has no vehicle model, no
 * behaviour and no route (speed, waypoints, yaw are errors), and its own
 * start, if given, is overridden by the attachment. */
#ifndef VS_ATTACH_H
#define VS_ATTACH_H

#include <stdint.h>

#include "common/error.h"

struct vs_ydoc;
struct vs_ynode;
struct vs_scenario;
struct vs_actor_spec;

#define VS_ATTACH_NAME_MAX 64 /* bytes, NUL included */

typedef enum vs_attach_type {
	VS_ATTACH_NONE = 0,
	VS_ATTACH_TRAILER = 1, /* own no-slip kinematics about the hitch */
	VS_ATTACH_FIXED = 2    /* rigidly locked to the parent */
} vs_attach_type;

typedef enum vs_point_kind {
	VS_POINT_FRONT = 1,
	VS_POINT_ORIGIN = 2,
	VS_POINT_REAR = 3,
	VS_POINT_IMPORTED = 4  /* one of the asset's points: */
} vs_point_kind;

/* A contact point: computed from the box, or named in the asset. */
typedef struct vs_attach_point {
	vs_point_kind kind;
	char name[VS_ATTACH_NAME_MAX]; /* as written, or the default's name */
	int index;                     /* imported: into the asset's points,
	                                  set by vs_attach_check */
	vs_mark mark;                  /* the value, or attach: for a default */
} vs_attach_point;

/* Fixed size, no pointers: vs_actor_spec copies stay plain copies. */
typedef struct vs_attach {
	int present;                   /* the actor has an attach: block */
	char name[VS_ATTACH_NAME_MAX]; /* "" when none */
	int64_t parent_id;
	int parent;                    /* actor index, set by vs_attach_check */
	vs_attach_type type;
	double offset[3];              /* m, parent frame */
	double heading;                /* rad, about the child's +Z */
	double slope;                  /* rad, the child's pitch relative to
	                                  the parent: Rx, about its X (right)
	                                  axis, nose up positive */
	vs_attach_point child_point, parent_point;
	vs_mark mark;                  /* the attach: mapping */
	vs_mark parent_mark, type_mark, slope_mark;
} vs_attach;

/* Reads the attach: value of the actor mapping actor_map into a->attach.
 * a->asset must be set already. Also refuses what an attached actor must
 * not have (vehicle_model, behaviour, speed, waypoints, yaw). Returns 0,
 * or -1 with err set to "FILE:LINE:COL: message" at the offending node. */
int vs_attach_parse(const struct vs_ydoc *doc, const struct vs_ynode *actor_map,
                    const struct vs_ynode *attach,
                    const struct vs_scenario *scn, struct vs_actor_spec *a,
                    vs_error *err);

/* The checks across actors, once every actor is read and IDs are known to
 * be unique: the parent exists and is not the actor itself, no cycles,
 * contact points exist on their assets (resolving their indices), trailers
 * are vehicles whose hitch lies ahead of their axles. Returns 0, or -1
 * with err set to "FILE:LINE:COL: message" at the offending node. */
int vs_attach_check(struct vs_scenario *scn, vs_error *err);

/* Where a contact point of actor i lies in its actor frame (m), for the
 * actor's current (possibly varied) length. */
void vs_attach_point_pos(const struct vs_scenario *scn, int i,
                         const vs_attach_point *pt, double out[3]);

/* "trailer", "fixed", or NULL for VS_ATTACH_NONE. */
const char *vs_attach_type_name(vs_attach_type t);

#endif
