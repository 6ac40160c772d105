/* crash_<fault> — test behaviours that fail the way a careless plugin
 * does, for the crash containment tests (core/run/contain.c). Built once
 * per fault (meson.build: -DCRASH_<FAULT>, name "crash_<fault>").
 *
 * Drives straight ahead at the route's first speed. When its parameter
 * `trigger` equals `armed` (default 17) and the step is fault_step
 * (default 5), it faults: SEGV dereferences NULL, ABORT calls abort(),
 * EXIT calls exit(0), KILL raises SIGKILL (as the OOM killer ends a
 * process: no handler runs), UEXIT calls _Exit(2) (no atexit hook
 * runs), FPE divides by zero with the divide-by-zero trap
 * enabled, HANG loops without end. From that step on, at every step,
 * LEAK allocates and touches 16 MiB it never frees (64 times at most:
 * 1 GiB, should the limit under test not work; with LEAK_SHARED, as
 * crash_shmleak, once, in shared memory: MAP_SHARED | MAP_ANONYMOUS),
 * PRINT prints a line on
 * stdout and one on stderr. GARBLE prints, at fault_step only, lines no
 * terminal or UTF-8 reader should see raw (control characters, a NUL,
 * bytes that are not UTF-8: garbled[] below), on stdout, then on stderr.
 * With in_destroy = 1 the fault comes in destroy instead, after the
 * steps. When trigger equals `stall` (default -1) it
 * sleeps stall_seconds (default 3) at fault_step first: a slow variant,
 * to hold the writer back while later ones finish, or to be killed in
 * the middle of. When the environment names a file in CRASH_MARK, a line
 * is appended to it at each fault: how many times a faulting variant was
 * simulated; one in CRASH_STALL_MARK, at each stall before it sleeps:
 * when a stalling one is asleep; one in CRASH_STALL_GATE holds a stalling
 * variant for as long as the file exists. The control it returns never depends
 * on trigger, so the variants of a sweep over trigger differ only in the
 * one that faults. */
#define _GNU_SOURCE /* feenableexcept */
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <vsweep/plugin.h>

static const vs_param params[] = {
	{"trigger", 0.0, -1e9, 1e9, "", "faults when equal to armed"},
	{"armed", 17.0, -1e9, 1e9, "", "the trigger value that faults"},
	{"fault_step", 5.0, 0.0, 1e9, "", "step index to fault at"},
	{"stall", -1.0, -1e9, 1e9, "", "the trigger value that sleeps"},
	{"stall_seconds", 3.0, 0.0, 60.0, "s", "how long it sleeps"},
	{"in_destroy", 0.0, 0.0, 1.0, "",
	 "1: fault in destroy, after the steps, instead of at fault_step"},
};

typedef struct crash {
	long long trigger, armed, fault_step, stall;
	double stall_s; /* s */
	int in_destroy; /* fault in destroy instead */
	int n_leaked;
	double speed; /* m/s */
} crash;

static vs_status c_create(const vs_create_args *args, void **instance)
{
	crash *c = calloc(1, sizeof *c);
	if (!c)
		return VS_ERROR;
	c->trigger = llround(args->params[0]);
	c->armed = llround(args->params[1]);
	c->fault_step = llround(args->params[2]);
	c->stall = llround(args->params[3]);
	c->stall_s = args->params[4];
	c->in_destroy = args->params[5] > 0.5;
	const vs_actor_info *a = args->actor;
	c->speed = a->speed && a->n_speed > 0 ? a->speed[0] : 0.0;
	*instance = c;
	return VS_OK;
}

static vs_status c_reset(void *instance, vs_state *state)
{
	(void)instance;
	(void)state;
	return VS_OK;
}

static int fopen_exists(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

/* Volatile, so that the compiler keeps the faults it could prove;
 * maybe unused, as each build uses one. */
static volatile int zero __attribute__((unused));
static volatile double zero_d __attribute__((unused));
static int *volatile null_ptr __attribute__((unused));
#if defined(CRASH_LEAK)
static char *volatile leaked[64];
#if defined(LEAK_SHARED)
#define LEAKS 1 /* allocations of 16 MiB */
#else
#define LEAKS 64
#endif
#endif

#if defined(CRASH_GARBLE)
/* What GARBLE prints on stdout, a line each (tests/e2e/test_output.py
 * writes out by hand what the log view keeps of each). */
#define LINE(s) {s, sizeof s - 1}
static const struct {
	const char *s;
	size_t n;
} garbled[] = {
	LINE("\xff\xfe abc"),
	LINE("lone \x80 continuation"),
	LINE("cut \xe2\x82 short"),
	LINE("cut at the end \xe2\x82"),
	LINE("\x1b[31mred\x1b[0m"),
	LINE("bell\x07"),
	LINE("tab\there\r"),
	LINE("nul\0after"),
	LINE("del\x7f overlong \xc0\xaf surrogate \xed\xa0\x80"),
	LINE("kept: 45\xc2\xb0 \xe2\x82\xac \xf0\x9f\x9a\x97"),
};

static void garble(void)
{
	for (size_t k = 0; k < sizeof garbled / sizeof garbled[0]; k++) {
		fwrite(garbled[k].s, 1, garbled[k].n, stdout);
		fputc('\n', stdout);
	}
	static char escs[4100]; /* bytes: a line longer than a row keeps */
	memset(escs, 0x1b, sizeof escs);
	fwrite(escs, 1, sizeof escs, stdout);
	fputc('\n', stdout);
	/* before stderr's lines, and before a crash could lose them */
	fflush(stdout);
	fprintf(stderr, "stderr \x1b]0;title\x07\n");
	fprintf(stderr, "vsweep: spoof \x1b[2J\x07\n");
}
#endif

static void fault(crash *c, long long step)
{
	(void)c;
	(void)step;
#if defined(CRASH_LEAK)
	if (c->n_leaked < LEAKS) {
		size_t n = (size_t)16 << 20; /* bytes */
#if defined(LEAK_SHARED)
		/* shared memory, as a plugin's worker pool or IPC buffer
		 * takes it: counted against the limit as any other */
		char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		p = p == MAP_FAILED ? NULL : p;
#else
		char *p = malloc(n);
#endif
		if (p)
			memset(p, 1 + c->n_leaked, n); /* resident, not promised */
		leaked[c->n_leaked++] = p; /* kept: no compiler drops it */
	}
#elif defined(CRASH_PRINT)
	printf("stdout: step %lld\n", step);
	fprintf(stderr, "stderr: step %lld\n", step);
#elif defined(CRASH_GARBLE)
	if (step == c->fault_step)
		garble();
#elif defined(CRASH_SEGV)
	*null_ptr = 1;
#elif defined(CRASH_ABORT)
	abort();
#elif defined(CRASH_EXIT)
	exit(0);
#elif defined(CRASH_KILL)
	raise(SIGKILL); /* as the kernel's OOM killer ends a process */
#elif defined(CRASH_UEXIT)
	_Exit(2); /* no atexit hook runs */
#elif defined(CRASH_FPE)
	feenableexcept(FE_DIVBYZERO);
	zero_d = 1.0 / zero_d;
#elif defined(CRASH_HANG)
	for (;;)
		zero++;
#else
#error "build with one -DCRASH_<FAULT>"
#endif
}

/* Sleeps seconds, or, when the environment names a file in CRASH_STALL_GATE
 * and it exists, until it is removed (120 s at most): a test that must act
 * while a run is surely unfinished holds it there as long as it needs,
 * however slow or starved the machine. */
static void stall(double seconds)
{
	const char *gate = getenv("CRASH_STALL_GATE");
	if (gate && fopen_exists(gate)) {
		struct timespec nap = {0, 10 * 1000 * 1000}; /* 10 ms */
		for (int i = 0; i < 12000 && fopen_exists(gate); i++)
			nanosleep(&nap, NULL);
		return;
	}
	struct timespec ts = {(time_t)seconds,
	                      (long)((seconds - floor(seconds)) * 1e9)};
	nanosleep(&ts, NULL);
}

static vs_status c_step(void *instance, double t, double dt,
                        const vs_state *self, vs_control *control)
{
	(void)self;
	crash *c = instance;
	long long step = llround(t / dt);
	if (c->trigger == c->stall && step == c->fault_step) {
		const char *mark = getenv("CRASH_STALL_MARK");
		FILE *f = mark ? fopen(mark, "a") : NULL;
		if (f) {
			fprintf(f, "%lld\n", c->trigger);
			fclose(f);
		}
		stall(c->stall_s);
	}
	if (c->trigger == c->armed && !c->in_destroy &&
	    step >= c->fault_step) {
		const char *mark = getenv("CRASH_MARK");
		FILE *f = mark && step == c->fault_step ? fopen(mark, "a") : NULL;
		if (f) {
			fprintf(f, "%lld\n", c->trigger);
			fclose(f);
		}
		fault(c, step);
	}
	control->speed = c->speed;
	control->steering_wheel = 0.0;
	return VS_OK;
}

static void c_destroy(void *instance)
{
	crash *c = instance;
	if (c && c->in_destroy && c->trigger == c->armed)
		fault(c, -1);
	free(instance);
}

static const vs_plugin descriptor = {
	.abi_major = VS_ABI_MAJOR,
	.abi_minor = VS_ABI_MINOR,
	.struct_size = sizeof(vs_plugin),
	.kind = VS_KIND_BEHAVIOUR,
	.name = CRASH_NAME,
	.version = "0.0.1",
	.doc = "test behaviour: straight ahead, faults in one variant",
	.params = params,
	.n_params = sizeof params / sizeof *params,
	.create = c_create,
	.reset = c_reset,
	.behaviour_step = c_step,
	.destroy = c_destroy,
};

VS_EXPORT const vs_plugin *vsweep_plugin_entry(const vs_host *h)
{
	(void)h;
	return &descriptor;
}
