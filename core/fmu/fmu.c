/* Opening an FMU as a vehicle model (fmu.h): unpack, read the model
 * description, load the binary for this platform, find vsweep's inputs
 * and outputs among its variables, and build the vs_plugin descriptor the
 * simulation steps through (adapter.c).
 *
 * Everything that can be wrong with the file is found here, before any
 * variant runs, and said with the FMU's path. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "fmu/fmu_adapter.h"

#include <dlfcn.h>
#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Where FMI puts this platform's binary: FMI 3 names it <arch>-<os>,
 * FMI 2 linux64 / linux32. */
#if defined(__x86_64__)
#define FMI3_PLATFORM "x86_64-linux"
#define FMI2_PLATFORM "linux64"
#elif defined(__aarch64__)
#define FMI3_PLATFORM "aarch64-linux"
#define FMI2_PLATFORM "linux64"
#else
#define FMI3_PLATFORM "x86-linux"
#define FMI2_PLATFORM "linux32"
#endif

_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "function and object pointers differ in size");

const char *const vs_fmu_role_names[N_ROLES] = {
	"speed", "steering_wheel", "accel",
	"x", "y", "yaw", "z", "roll", "pitch",
	"vx", "vy", "vz", "wx", "wy", "wz", "speed", "steer",
	"x0", "y0", "yaw0"};

static int role_causality(int role)
{
	if (role <= IN_ACCEL)
		return FMU_CAUS_INPUT;
	if (role >= START_X0)
		return FMU_CAUS_PARAMETER;
	return FMU_CAUS_OUTPUT;
}

/* dlsym into a function pointer of any type (POSIX: same representation). */
static int sym(vs_fmu *f, const char *name, void *fnp, vs_error *err)
{
	dlerror();
	void *p = dlsym(f->so, name);
	if (!p) {
		vs_error_set(err, "%s: its binary (%s) does not export %s, which "
		             "an FMI %d.0 co-simulation FMU must", f->path,
		             f->md.model_id, name, f->md.fmi);
		return -1;
	}
	memcpy(fnp, &p, sizeof p);
	return 0;
}

static int find_functions(vs_fmu *f, vs_error *err)
{
	if (f->md.fmi == 2)
		return sym(f, "fmi2Instantiate", &f->f2.instantiate, err) ||
		       sym(f, "fmi2FreeInstance", &f->f2.free_instance, err) ||
		       sym(f, "fmi2SetupExperiment", &f->f2.setup, err) ||
		       sym(f, "fmi2EnterInitializationMode", &f->f2.enter_init,
		           err) ||
		       sym(f, "fmi2ExitInitializationMode", &f->f2.exit_init,
		           err) ||
		       sym(f, "fmi2Terminate", &f->f2.terminate, err) ||
		       sym(f, "fmi2SetReal", &f->f2.set_real, err) ||
		       sym(f, "fmi2GetReal", &f->f2.get_real, err) ||
		       sym(f, "fmi2DoStep", &f->f2.do_step, err)
		           ? -1 : 0;
	return sym(f, "fmi3InstantiateCoSimulation", &f->f3.instantiate,
	           err) ||
	       sym(f, "fmi3FreeInstance", &f->f3.free_instance, err) ||
	       sym(f, "fmi3EnterInitializationMode", &f->f3.enter_init, err) ||
	       sym(f, "fmi3ExitInitializationMode", &f->f3.exit_init, err) ||
	       sym(f, "fmi3Terminate", &f->f3.terminate, err) ||
	       sym(f, "fmi3SetFloat64", &f->f3.set_float64, err) ||
	       sym(f, "fmi3GetFloat64", &f->f3.get_float64, err) ||
	       sym(f, "fmi3DoStep", &f->f3.do_step, err)
	           ? -1 : 0;
}

/* fmi3GetFloat32 and fmi3SetFloat32, when a variable vsweep exchanges
 * is a Float32 (an FMU without any needs neither). */
static int float32_functions(vs_fmu *f, vs_error *err)
{
	int any = 0;
	for (int r = 0; r < N_ROLES; r++)
		any |= f->role[r] && f->role[r]->float32;
	any |= f->param_batch.n > f->param_batch.n64 ||
	       f->output_batch.n > f->output_batch.n64;
	if (!any)
		return 0;
	return sym(f, "fmi3GetFloat32", &f->f3.get_float32, err) ||
	       sym(f, "fmi3SetFloat32", &f->f3.set_float32, err)
	           ? -1 : 0;
}

/* The platforms the archive has binaries for, for the message. */
static void list_platforms(const char *dir, char *buf, size_t cap)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/binaries", dir);
	buf[0] = 0;
	DIR *d = opendir(p);
	if (!d)
		return;
	struct dirent *e;
	size_t n = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
		                 e->d_name);
		if (w < 0 || (size_t)w >= cap - n)
			break;
		n += (size_t)w;
	}
	closedir(d);
}

static int load_binary(vs_fmu *f, vs_error *err)
{
	const char *plat = f->md.fmi == 2 ? FMI2_PLATFORM : FMI3_PLATFORM;
	size_t n = strlen(f->dir) + strlen(plat) + strlen(f->md.model_id) + 32;
	char *so = vs_xcalloc(n, 1);
	snprintf(so, n, "%s/binaries/%s/%s.so", f->dir, plat, f->md.model_id);
	struct stat st;
	int rc = -1;
	if (stat(so, &st) != 0) {
		char have[256];
		list_platforms(f->dir, have, sizeof have);
		vs_error_set(err, "%s: no binary for this platform: the archive "
		             "has no binaries/%s/%s.so (it has binaries for: %s)",
		             f->path, plat, f->md.model_id,
		             have[0] ? have : "none");
		goto out;
	}
	dlerror();
	f->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!f->so) {
		const char *e = dlerror();
		vs_error_set(err, "%s: cannot load its binary %s: %s", f->path,
		             f->md.model_id, e ? e : "?");
		goto out;
	}
	rc = find_functions(f, err);
out:
	free(so);
	return rc;
}

/* "an input", "an output", "a parameter", or what else it is. */
static const char *causality_phrase(int c)
{
	switch (c) {
	case FMU_CAUS_PARAMETER: return "a parameter";
	case FMU_CAUS_INPUT: return "an input";
	case FMU_CAUS_OUTPUT: return "an output";
	default: return "neither an input, an output nor a parameter";
	}
}

/* A variable of the name vsweep wants for role r, but of another
 * causality: said with its line (a mapped or required role), where "has
 * no Real output 'x'" would hide the one the FMU has. */
static void wrong_causality(const vs_fmu *f, const fmu_var *v, int r,
                            vs_error *err)
{
	vs_error_set(err, "%s: modelDescription.xml:%d: variable '%s' is %s, "
	             "but vsweep exchanges %s as %s", f->path, v->line,
	             v->name, causality_phrase(v->causality),
	             vs_fmu_role_names[r],
	             causality_phrase(role_causality(r)));
}

/* What the FMU's standard calls the scalar types vsweep exchanges. */
static const char *real_word(const vs_fmu *f)
{
	return f->md.fmi == 2 ? "Real" : "Float64 or Float32";
}

/* Whether another role than r has r's name and causality c: "speed" is
 * both an input (commanded) and an optional output, so one mapping of it
 * names the role whose causality its variable has. */
static int name_shared_with(int r, int c)
{
	for (int k = 0; k < N_ROLES; k++)
		if (k != r && !strcmp(vs_fmu_role_names[k], vs_fmu_role_names[r]) &&
		    role_causality(k) == c)
			return 1;
	return 0;
}

/* Resolves vsweep's names (mapped by `variables:`) to FMU variables. */
static int find_roles(vs_fmu *f, const char *const *from,
                      const char *const *to, int n_map, vs_error *err)
{
	const fmu_var *other[N_ROLES] = {NULL}; /* named so, other causality */
	for (int i = 0; i < n_map; i++) {
		int known = 0;
		for (int r = 0; r < N_ROLES; r++)
			known |= !strcmp(vs_fmu_role_names[r], from[i]);
		if (!known) {
			vs_error_set(err, "%s: variables: '%s' is not a name vsweep "
			             "exchanges with a vehicle model (speed, "
			             "steering_wheel, accel, x, y, yaw, z, roll, "
			             "pitch, vx, vy, vz, wx, wy, wz, steer, x0, y0, "
			             "yaw0)", f->path, from[i]);
			return -1;
		}
	}
	for (int r = 0; r < N_ROLES; r++) {
		const char *name = vs_fmu_role_names[r];
		int mapped = 0;
		for (int i = 0; i < n_map; i++)
			if (!strcmp(from[i], name)) {
				name = to[i];
				mapped = 1;
			}
		const fmu_var *v = vs_fmu_md_find(&f->md, name);
		int want = role_causality(r);
		if (v && v->causality == want && !v->is_real) {
			/* Said as it is: "has no Real output 'x'" would hide
			 * the one it has. */
			char what[64];
			snprintf(what, sizeof what, v->array
			         ? "an array (%s with <Dimension>)" : "of type %s",
			         v->type);
			vs_error_set(err, "%s: modelDescription.xml:%d: variable "
			             "'%s' is %s, but vsweep exchanges %s as a "
			             "scalar %s; not supported", f->path, v->line,
			             v->name, what, vs_fmu_role_names[r],
			             real_word(f));
			return -1;
		}
		if (v && v->causality != want) {
			if (!name_shared_with(r, v->causality))
				other[r] = v;
			v = NULL;
			if (mapped && !other[r]) {
				f->role[r] = NULL; /* the other role's variable */
				continue;
			}
		}
		if (!v && mapped && other[r]) {
			wrong_causality(f, other[r], r, err);
			return -1;
		}
		if (!v && mapped) {
			vs_error_set(err, "%s: variables: %s -> '%s': the FMU has "
			             "no %s %s of that name", f->path,
			             vs_fmu_role_names[r], name, real_word(f),
			             want == FMU_CAUS_INPUT    ? "input"
			             : want == FMU_CAUS_OUTPUT ? "output"
			                                       : "parameter");
			return -1;
		}
		f->role[r] = v;
	}
	static const int required[] = {IN_SPEED, IN_STEERING_WHEEL, OUT_X,
	                               OUT_Y, OUT_YAW};
	for (size_t k = 0; k < sizeof required / sizeof *required; k++)
		if (!f->role[required[k]]) {
			int r = required[k];
			if (other[r]) {
				wrong_causality(f, other[r], r, err);
				return -1;
			}
			vs_error_set(err, "%s: not a vehicle model: it has no %s "
			             "%s '%s' (map another name with variables: "
			             "{%s: NAME})", f->path, real_word(f),
			             r <= IN_ACCEL ? "input" : "output",
			             vs_fmu_role_names[r], vs_fmu_role_names[r]);
			return -1;
		}
	f->world = f->role[START_X0] && f->role[START_Y0] &&
	           f->role[START_YAW0];
	return 0;
}

/* The dimension each role needs, as BaseUnit exponents (kg, m, s, A, K,
 * mol, cd, rad): lengths m, speeds m/s, accel m/s^2, angles rad, angular
 * velocities rad/s. */
enum { D_LEN, D_SPEED, D_ACCEL, D_ANGLE, D_RATE };
static const int dims[][8] = {
	[D_LEN] = {0, 1, 0, 0, 0, 0, 0, 0},
	[D_SPEED] = {0, 1, -1, 0, 0, 0, 0, 0},
	[D_ACCEL] = {0, 1, -2, 0, 0, 0, 0, 0},
	[D_ANGLE] = {0, 0, 0, 0, 0, 0, 0, 1},
	[D_RATE] = {0, 0, -1, 0, 0, 0, 0, 1},
};
static const char *const dim_names[] = {"m", "m/s", "m/s2", "rad",
                                        "rad/s"};
static const int role_dim[N_ROLES] = {
	D_SPEED, D_ANGLE, D_ACCEL,
	D_LEN, D_LEN, D_ANGLE, D_LEN, D_ANGLE, D_ANGLE,
	D_SPEED, D_SPEED, D_SPEED, D_RATE, D_RATE, D_RATE, D_SPEED, D_ANGLE,
	D_LEN, D_LEN, D_ANGLE};

/* Whether exponents e are dimension d. SI counts the radian as
 * dimensionless: an angle's unit may leave rad out. */
static int same_dim(const int *e, int d)
{
	for (int k = 0; k < 8; k++)
		if (e[k] != dims[d][k] && !(k == 7 && e[k] == 0))
			return 0;
	return 1;
}

/* "kg^a m^b ..." of exponents e into buf ("1": none). */
static void dim_text(const int *e, char *buf, size_t cap)
{
	static const char *const n[8] = {"kg", "m", "s", "A", "K", "mol", "cd",
	                                 "rad"};
	size_t len = 0;
	buf[0] = 0;
	for (int k = 0; k < 8 && len < cap; k++)
		if (e[k]) {
			int w = snprintf(buf + len, cap - len, "%s%s", len ? " " : "",
			                 n[k]);
			if (w > 0)
				len += (size_t)w;
			if (e[k] != 1 && len < cap) {
				w = snprintf(buf + len, cap - len, "^%d", e[k]);
				if (w > 0)
					len += (size_t)w;
			}
		}
	if (!buf[0])
		snprintf(buf, cap, "1 (dimensionless)");
}

/* Each role's unit: none, or the role's SI unit by name ("m/s" for a
 * speed: nothing to convert, whether UnitDefinitions has it or not), or
 * a unit of UnitDefinitions whose BaseUnit is the role's dimension, whose
 * factor and offset convert. Any other unit that is not defined, defined
 * without a BaseUnit, or of another dimension is refused: taking it as
 * SI would be silently wrong. */
static int role_units(vs_fmu *f, vs_error *err)
{
	for (int r = 0; r < N_ROLES; r++) {
		f->unit_factor[r] = 1.0;
		f->unit_offset[r] = 0.0;
		const fmu_var *v = f->role[r];
		if (!v || !*v->unit)
			continue;
		const char *need = dim_names[role_dim[r]];
		const fmu_unit *u = vs_fmu_md_unit(&f->md, v->unit);
		if ((!u || !u->has_base) && !strcmp(v->unit, need))
			continue;
		if (!u) {
			vs_error_set(err, "%s: modelDescription.xml:%d: variable '%s' "
			             "has unit \"%s\", which UnitDefinitions does not "
			             "define, so vsweep cannot tell what it is; as %s "
			             "it needs %s (or a unit defined with that "
			             "BaseUnit)", f->path, v->line, v->name, v->unit,
			             vs_fmu_role_names[r], need);
			return -1;
		}
		if (!u->has_base) {
			vs_error_set(err, "%s: modelDescription.xml:%d: variable '%s' "
			             "has unit \"%s\", whose definition has no "
			             "BaseUnit, so vsweep cannot convert it; as %s it "
			             "needs %s", f->path, v->line, v->name, v->unit,
			             vs_fmu_role_names[r], need);
			return -1;
		}
		if (!same_dim(u->exp, role_dim[r])) {
			char have[96];
			dim_text(u->exp, have, sizeof have);
			vs_error_set(err, "%s: modelDescription.xml:%d: variable '%s' "
			             "has unit \"%s\" (BaseUnit %s), but vsweep uses "
			             "it as %s, which needs %s", f->path, v->line,
			             v->name, v->unit, have, vs_fmu_role_names[r],
			             need);
			return -1;
		}
		f->unit_factor[r] = u->factor;
		f->unit_offset[r] = u->offset;
	}
	return 0;
}

static int has_role(const vs_fmu *f, const fmu_var *v)
{
	for (int r = 0; r < N_ROLES; r++)
		if (f->role[r] == v)
			return 1;
	return 0;
}

/* The batches the adapter gets and sets (exchange.c): params, other
 * outputs, and the state roles, whose values go to v[role - OUT_X]. */
static void build_batches(vs_fmu *f, const fmu_var **pv, size_t np,
                          const fmu_var **ov, size_t no)
{
	const fmu_var *sv[N_ROLES];
	size_t at[N_ROLES], ns = 0;
	for (int r = OUT_X; r <= OUT_STEER; r++)
		if (f->role[r]) {
			sv[ns] = f->role[r];
			at[ns++] = (size_t)(r - OUT_X);
		}
	vs_fmu_batch_make(&f->param_batch, pv, NULL, np);
	vs_fmu_batch_make(&f->output_batch, ov, NULL, no);
	vs_fmu_batch_make(&f->state_batch, sv, at, ns);
	f->max_batch = np > no ? np : no;
	f->max_batch = ns > f->max_batch ? ns : f->max_batch;
}

/* Params: every Real parameter with a finite start value, except the
 * start pose the host sets (a param's default is a usable value; FMI 3
 * allows start="INF", which stays the FMU's own). A Float32's range is
 * at most a float's, [-FLT_MAX, FLT_MAX], and holds every double whose
 * nearest float (what the FMU is set to) is in it: a scenario or sweep
 * value is checked against the range as that float, and one whose
 * nearest float is infinite is refused with the file's line. Outputs:
 * every Real output that is not a state field. */
static void build_descriptor(vs_fmu *f)
{
	const fmu_md *md = &f->md;
	size_t cap = (size_t)md->n_vars + 1;
	f->params = vs_xcalloc(cap, sizeof *f->params);
	f->outputs = vs_xcalloc(cap, sizeof *f->outputs);
	const fmu_var **pv = vs_xcalloc(cap, sizeof *pv);
	const fmu_var **ov = vs_xcalloc(cap, sizeof *ov);
	size_t np = 0, no = 0;
	for (int i = 0; i < md->n_vars; i++) {
		const fmu_var *v = &md->vars[i];
		if (!v->is_real || has_role(f, v))
			continue;
		if (v->causality == FMU_CAUS_PARAMETER && v->has_start &&
		    isfinite(v->start)) {
			double lo = v->min, hi = v->max;
			if (v->float32) {
				lo = vs_fmu_f32_lower(lo > -FLT_MAX ? (float)lo
				                                    : -FLT_MAX);
				hi = vs_fmu_f32_upper(hi < FLT_MAX ? (float)hi
				                                   : FLT_MAX);
			}
			f->params[np] = (vs_param){v->name, v->start, lo, hi,
			                           v->unit, v->doc};
			pv[np++] = v;
		} else if (v->causality == FMU_CAUS_OUTPUT) {
			f->outputs[no] = (vs_output){v->name, v->unit, v->doc};
			ov[no++] = v;
		}
	}
	build_batches(f, pv, np, ov, no);
	free(pv);
	free(ov);
	snprintf(f->version, sizeof f->version, "FMI %d.0 %s%s%s", md->fmi,
	         md->model_id, *md->version ? " " : "", md->version);
	snprintf(f->doc, sizeof f->doc, "FMU %s (%s)", md->model_name,
	         f->path);
	f->desc = (vs_plugin){
		.abi_major = VS_ABI_MAJOR,
		.abi_minor = VS_ABI_MINOR,
		.struct_size = sizeof(vs_plugin),
		.kind = VS_KIND_VEHICLE_MODEL,
		.name = "fmu",
		.version = f->version,
		.doc = f->doc,
		.params = f->params,
		.n_params = np,
		.create = vs_fmu_create,
		.reset = vs_fmu_reset,
		.vehicle_step = vs_fmu_step,
		.behaviour_step = NULL,
		.destroy = vs_fmu_destroy,
		.outputs = f->outputs,
		.n_outputs = no,
	};
}

/* The resources directory as FMI wants it, from the unpacked directory
 * made absolute: FMI 2.0's fmuResourceLocation is an RFC 3986 URI,
 * file:///PATH with every byte of PATH other than an unreserved character
 * (ALPHA DIGIT - . _ ~) or '/' percent-encoded, so that a space, '%', '#'
 * or a UTF-8 byte in $TMPDIR reads back as it is; FMI 3.0's resourcePath
 * is an absolute native path ending in '/'. */
static int resource_location(vs_fmu *f, vs_error *err)
{
	char *abs = realpath(f->dir, NULL);
	if (!abs) {
		vs_error_set(err, "%s: cannot resolve the directory it was "
		             "unpacked into (%s)", f->path, f->dir);
		return -1;
	}
	size_t n = strlen(abs);
	f->resource_path = vs_xcalloc(n + 16, 1);
	snprintf(f->resource_path, n + 16, "%s/resources/", abs);
	char *u = vs_xcalloc(3 * n + 32, 1);
	size_t k = (size_t)sprintf(u, "file://");
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
		unsigned char c = *p;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
		    c == '~' || c == '/') {
			u[k++] = (char)c;
		} else {
			u[k++] = '%';
			u[k++] = hex[c >> 4];
			u[k++] = hex[c & 15];
		}
	}
	strcpy(u + k, "/resources");
	f->resource_uri = u;
	free(abs);
	return 0;
}

static int supported(const vs_fmu *f, vs_error *err)
{
	char where[4200];
	snprintf(where, sizeof where, "%s: modelDescription.xml", f->path);
	return vs_fmu_md_supported(where, &f->md, err);
}

int vs_fmu_check_step(const vs_fmu *f, double step, vs_error *err)
{
	char where[4200];
	snprintf(where, sizeof where, "%s: modelDescription.xml", f->path);
	return vs_fmu_md_step_ok(where, &f->md, step, err);
}

vs_fmu *vs_fmu_open(const char *path, const char *const *map_from,
                    const char *const *map_to, int n_map, vs_error *err)
{
	vs_fmu *f = vs_xcalloc(1, sizeof *f);
	f->path = vs_strdup(path);
	f->dir = vs_fmu_unpack(path, err);
	/* What vsweep does not drive is refused before its binary is
	 * loaded: a tool's front, say, would start its tool. */
	if (!f->dir || vs_fmu_md_read(path, f->dir, &f->md, err) ||
	    supported(f, err) || load_binary(f, err) ||
	    find_roles(f, map_from, map_to, n_map, err)) {
		vs_fmu_close(f);
		return NULL;
	}
	if (role_units(f, err) || resource_location(f, err)) {
		vs_fmu_close(f);
		return NULL;
	}
	f->live = vs_xcalloc(1, sizeof *f->live);
	build_descriptor(f);
	if (float32_functions(f, err)) {
		vs_fmu_close(f);
		return NULL;
	}
	return f;
}

const vs_plugin *vs_fmu_plugin(const vs_fmu *f)
{
	return &f->desc;
}

int vs_fmu_once(const vs_fmu *f)
{
	return f->md.once;
}

static const char *causality_name(int c)
{
	switch (c) {
	case FMU_CAUS_PARAMETER: return "parameter";
	case FMU_CAUS_INPUT: return "input";
	case FMU_CAUS_OUTPUT: return "output";
	default: return "other";
	}
}

/* What vsweep does with a variable, for the listing (into buf). */
static const char *use_of(const vs_fmu *f, const fmu_var *v, char *buf,
                          size_t cap)
{
	for (int r = 0; r < N_ROLES; r++)
		if (f->role[r] == v) {
			const char *what =
				r >= START_X0
					? (f->world ? "set from the start pose"
					            : "start pose (needs x0, y0, yaw0)")
				: r <= IN_ACCEL ? "vsweep control"
				                : "vsweep state";
			if (f->unit_factor[r] == 1.0 && f->unit_offset[r] == 0.0)
				return what;
			snprintf(buf, cap, "%s, in %s: %s = %.10g * %s%s%.10g", what,
			         v->unit, dim_names[role_dim[r]],
			         f->unit_factor[r], v->unit,
			         f->unit_offset[r] < 0 ? " - " : " + ",
			         fabs(f->unit_offset[r]));
			return buf;
		}
	if (v->array)
		return "not used (an array)";
	if (!v->is_real)
		return "not used (not Real)";
	if (v->causality == FMU_CAUS_PARAMETER)
		return !v->has_start        ? "not settable (no start)"
		       : !isfinite(v->start) ? "not settable (start not finite)"
		                             : "param";
	return v->causality == FMU_CAUS_OUTPUT ? "signal fmu.NAME" : "";
}

void vs_fmu_print(const vs_fmu *f, FILE *out)
{
	fprintf(out, "%s: FMI %d.0 co-simulation, model %s (%s)%s\n", f->path,
	        f->md.fmi, f->md.model_name, f->md.model_id,
	        f->md.once ? ", one instance per process" : "");
	fprintf(out, "start pose: %s\n",
	        f->world ? "set through x0, y0, yaw0"
	                 : "outputs taken in the actor's start frame");
	static const int order[] = {FMU_CAUS_PARAMETER, FMU_CAUS_INPUT,
	                            FMU_CAUS_OUTPUT};
	for (int k = 0; k < 3; k++) {
		fprintf(out, "\n%ss:\n", causality_name(order[k]));
		for (int i = 0; i < f->md.n_vars; i++) {
			const fmu_var *v = &f->md.vars[i];
			if (v->causality != order[k])
				continue;
			char start[32] = "", use[160];
			if (v->has_start)
				snprintf(start, sizeof start, "%g", v->start);
			fprintf(out, "  %-16s %-8s start %-10s %-8s %s%s%s%s\n",
			        v->name, v->type, *start ? start : "-",
			        *v->unit ? v->unit : "-", v->doc,
			        *v->doc ? " " : "", "— ",
			        use_of(f, v, use, sizeof use));
		}
	}
}

void vs_fmu_close(vs_fmu *f)
{
	if (!f)
		return;
	if (f->so)
		dlclose(f->so);
	vs_fmu_md_free(&f->md);
	if (f->dir) {
		vs_fmu_dir_remove(f->dir);
		free(f->dir);
	}
	free(f->resource_uri);
	free(f->resource_path);
	free(f->live);
	free(f->params);
	vs_fmu_batch_free(&f->param_batch);
	free(f->outputs);
	vs_fmu_batch_free(&f->output_batch);
	vs_fmu_batch_free(&f->state_batch);
	free(f->path);
	free(f);
}
