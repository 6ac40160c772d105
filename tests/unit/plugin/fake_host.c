#include "plugin/fake_host.h"

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char log_buf[16384];
static int log_errors;

static void fake_log(void *ctx, vs_log_level level, const char *fmt, ...)
	VS_PRINTF(3, 4);
static void fake_log(void *ctx, vs_log_level level, const char *fmt, ...)
{
	(void)ctx;
	size_t n = strlen(log_buf);
	if (n + 2 < sizeof log_buf) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(log_buf + n, sizeof log_buf - n - 1, fmt, ap);
		va_end(ap);
		strcat(log_buf, "\n");
	}
	if (level == VS_LOG_ERROR)
		log_errors++;
}

static size_t fake_actor_ids(void *ctx, const int64_t **ids)
{
	(void)ctx;
	static const int64_t one[] = {1};
	*ids = one;
	return 1;
}

static const vs_state *fake_previous_state(void *ctx, int64_t id)
{
	(void)ctx;
	(void)id;
	return NULL; /* the plugins under test must not need other actors */
}

const vs_host fake_host = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_host),
	.log = fake_log,
	.actor_ids = fake_actor_ids,
	.previous_state = fake_previous_state,
};

void fake_log_clear(void)
{
	log_buf[0] = 0;
	log_errors = 0;
}

const char *fake_log_text(void)
{
	return log_buf;
}

int fake_log_errors(void)
{
	return log_errors;
}

char *build_path(const char *rel)
{
	const char *root = getenv("VSWEEP_BUILD_ROOT");
	ck_assert_msg(root && *root,
	              "VSWEEP_BUILD_ROOT is not set: run through meson test");
	size_t n = strlen(root) + strlen(rel) + 2;
	char *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	snprintf(p, n, "%s/%s", root, rel);
	return p;
}

void open_built(const char *rel, vs_loaded_plugin *out)
{
	char *path = build_path(rel);
	vs_error err = {{0}};
	int rc = vs_plugin_open(path, &fake_host, out, &err);
	ck_assert_msg(rc == 0, "%s: %s", path, err.msg);
	free(path);
}

vs_actor_info sedan_info(void)
{
	static const double speed10[] = {10.0};
	vs_actor_info a;
	memset(&a, 0, sizeof a);
	a.struct_size = sizeof a;
	a.id = 1;
	a.name = "ego";
	a.length = 4.8;
	a.width = 1.9;
	a.height = 1.5;
	a.front_overhang = 0.9;
	a.rear_overhang = 0.9;
	a.wheelbase = 3.0;
	a.front_axle_y = 1.5;
	a.rear_axle_y = -1.5;
	a.track = 1.6;
	a.wheel_radius = 0.34;
	a.n_axles = 2;
	a.steering_ratio = 15.0;
	a.speed = speed10;
	a.n_speed = 1;
	a.step = 0.01;
	return a;
}

void default_params(const vs_plugin *d, double *params, size_t n)
{
	ck_assert_uint_le(d->n_params, n);
	for (size_t i = 0; i < d->n_params; i++)
		params[i] = d->params[i].default_value;
}

void set_param(const vs_plugin *d, double *params, const char *name,
               double value)
{
	for (size_t i = 0; i < d->n_params; i++)
		if (strcmp(d->params[i].name, name) == 0) {
			params[i] = value;
			return;
		}
	ck_abort_msg("plugin %s has no param %s", d->name, name);
}

void *create_ok(const vs_plugin *d, const vs_actor_info *a,
                const double *params)
{
	vs_create_args args = {sizeof args, a, params, NULL,
	                       &fake_host, NULL, d};
	void *inst = NULL;
	fake_log_clear();
	vs_status st = d->create(&args, &inst);
	ck_assert_msg(st == VS_OK, "%s create: status %d, log: %s", d->name,
	              (int)st, fake_log_text());
	ck_assert_ptr_nonnull(inst);
	return inst;
}

void rear_axle(const vs_state *s, double rear_axle_y, double *x, double *y)
{
	double h = s->yaw + PI / 2.0;
	*x = s->x + rear_axle_y * cos(h);
	*y = s->y + rear_axle_y * sin(h);
}
