/* probe_map — a test behaviour that asks the ABI 1.1 host services about
 * every actor each step and logs what it got (at info level, one line per
 * actor), so that an end-to-end test can compare it with the stored
 * map_location, lane_info and actor_info rows of the previous step. It
 * drives straight ahead at the route's first speed. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <vsweep/plugin.h>

static const vs_host *host;

typedef struct probe {
	void *ctx;
	double speed; /* m/s */
} probe;

static vs_status probe_create(const vs_create_args *args, void **instance)
{
	*instance = NULL;
	if (host->struct_size < offsetof(vs_host, actor_attr) +
	                                sizeof host->actor_attr) {
		host->log(args->host_ctx, VS_LOG_ERROR, "host is ABI 1.0");
		return VS_ERROR;
	}
	probe *p = calloc(1, sizeof *p);
	if (!p)
		return VS_ERROR;
	p->ctx = args->host_ctx;
	p->speed = args->actor->n_speed ? args->actor->speed[0] : 0.0;
	*instance = p;
	return VS_OK;
}

static vs_status probe_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

static void probe_one(const probe *p, int64_t id)
{
	const vs_actor_attr *a = host->actor_attr(p->ctx, id);
	vs_lane_location l;
	if (host->map_location(p->ctx, id, &l)) {
		host->log(p->ctx, VS_LOG_INFO, "probe id=%" PRId64 " nomap", id);
		return;
	}
	vs_lane_point c;
	if (host->lane_point(p->ctx, l.lane, l.s, &c)) {
		host->log(p->ctx, VS_LOG_ERROR, "lane_point refused %s", l.lane);
		return;
	}
	host->log(p->ctx, VS_LOG_INFO,
	          "probe id=%" PRId64 " lane=%s on=%d s=%.12g p=%.14g "
	          "len=%.12g lat=%.12g w=%.12g ang=%.14g",
	          id, l.lane, l.is_on_lane, l.s, l.position, l.length,
	          l.lateral, l.width, l.angle);
	host->log(p->ctx, VS_LOG_INFO,
	          "centre id=%" PRId64 " cx=%.12g cy=%.12g ch=%.12g cw=%.12g",
	          id, c.x, c.y, c.heading, c.width);
	host->log(p->ctx, VS_LOG_INFO,
	          "links id=%" PRId64 " left=%s right=%s succ=%s", id,
	          or_none(host->lane_link(p->ctx, l.lane, VS_LANE_LEFT)),
	          or_none(host->lane_link(p->ctx, l.lane, VS_LANE_RIGHT)),
	          or_none(host->lane_link(p->ctx, l.lane, VS_LANE_SUCCESSOR)));
	host->log(p->ctx, VS_LOG_INFO,
	          "attr id=%" PRId64 " kind=%s L=%.12g W=%.12g H=%.12g "
	          "parent=%" PRId64 " children=%zu child0=%" PRId64,
	          id, a->kind, a->length, a->width, a->height, a->parent_id,
	          a->n_children, a->n_children ? a->children[0] : 0);
}

static vs_status probe_step(void *instance, double t, double dt,
                            const vs_state *self, vs_control *control)
{
	(void)t;
	(void)dt;
	(void)self;
	const probe *p = instance;
	const int64_t *ids;
	size_t n = host->actor_ids(p->ctx, &ids);
	for (size_t i = 0; i < n; i++)
		probe_one(p, ids[i]);
	if (host->actor_attr(p->ctx, -5) != NULL ||
	    host->lane_point(p->ctx, "{nope}", 0.0, &(vs_lane_point){0}) == 0)
		host->log(p->ctx, VS_LOG_ERROR, "unknown ID or lane answered");
	control->speed = p->speed;
	control->steering_wheel = 0.0;
	return VS_OK;
}

static void probe_destroy(void *instance)
{
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = "probe_map",
	.version = "1.0.0",
	.doc = "test: logs what the ABI 1.1 host services answer",
	.create = probe_create,
	.reset = probe_reset,
	.behaviour_step = probe_step,
	.destroy = probe_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	host = h;
	return &descriptor;
}
