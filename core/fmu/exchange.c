/* Getting and setting the values vsweep exchanges with an FMU (fmu_adapter.h):
 * FMI 2.0 has one function for its Reals; FMI 3.0 has one per type, so a
 * list of variables mixing Float64 and Float32 goes in two calls, the
 * Float64s' values in one and the Float32s' in the other.
 *
 * A Float32 is read with fmi3GetFloat32 and widened to double, which is
 * exact. One is set with fmi3SetFloat32 after the double is rounded to
 * the nearest float (C's conversion, IEC 60559 round to nearest): a
 * finite value whose nearest float would be infinite (|x| at or above
 * VS_F32_OVERFLOW) is not set at all, and the caller says so; INF and NaN
 * are floats too and pass as they are, as with a Float64. */
#include "fmu/fmu_adapter.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

void vs_fmu_batch_make(fmu_batch *b, const fmu_var *const *vars,
                       const size_t *at, size_t n)
{
	b->n = n;
	b->n64 = 0;
	b->vr = vs_xcalloc(n + 1, sizeof *b->vr);
	b->at = vs_xcalloc(n + 1, sizeof *b->at);
	b->var = vs_xcalloc(n + 1, sizeof *b->var);
	/* The Float64s first, then the Float32s, each in the order given:
	 * the calls are the same at every step. */
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			if (vars[i]->float32 != pass)
				continue;
			b->vr[k] = vars[i]->vr;
			b->at[k] = at ? at[i] : i;
			b->var[k++] = vars[i];
			if (!pass)
				b->n64 = k;
		}
}

void vs_fmu_batch_free(fmu_batch *b)
{
	free(b->vr);
	free(b->at);
	free(b->var);
	b->vr = NULL;
	b->at = NULL;
	b->var = NULL;
	b->n = b->n64 = 0;
}

int vs_fmu_f32_holds(double x)
{
	return !isfinite(x) || fabs(x) < VS_F32_OVERFLOW;
}

/* Halfway from f to the next float up is a double (floats have 24 bits,
 * doubles 53); it rounds to whichever of the two is even (last bit 0),
 * so it is the answer when f is even and the double below it when f is
 * odd. FLT_MAX is odd and its next "float" is 2^128: halfway is
 * VS_F32_OVERFLOW, which rounds to infinity. */
double vs_fmu_f32_upper(float f)
{
	if (f >= FLT_MAX)
		return nextafter(VS_F32_OVERFLOW, 0);
	double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
	return (float)mid == f ? mid : nextafter(mid, -INFINITY);
}

/* Rounding to nearest is symmetric about 0. */
double vs_fmu_f32_lower(float f)
{
	return -vs_fmu_f32_upper(-f);
}

int vs_fmu_get_batch(const vs_fmu *f, void *c, const fmu_batch *b,
                     double *v, fmu_scratch *sc)
{
	size_t n64 = b->n64, n32 = b->n - b->n64;
	int st = FMI2_OK;
	if (n64)
		st = f->md.fmi == 2
		             ? (int)f->f2.get_real(c, (const fmi2_vr *)b->vr,
		                                   n64, sc->d)
		             : (int)f->f3.get_float64(c, b->vr, n64, sc->d, n64);
	if (n32 && st < FMI2_DISCARD) {
		int st2 = (int)f->f3.get_float32(c, b->vr + n64, n32, sc->s, n32);
		st = st2 > st ? st2 : st;
	}
	/* Values only from calls that succeeded: after Discard or worse
	 * the variant fails, and v stays as it was. */
	if (st >= FMI2_DISCARD)
		return st;
	for (size_t k = 0; k < n64; k++)
		v[b->at[k]] = sc->d[k];
	for (size_t k = 0; k < n32; k++)
		v[b->at[n64 + k]] = (double)sc->s[k];
	return st;
}

int vs_fmu_set_batch(const vs_fmu *f, void *c, const fmu_batch *b,
                     const double *v, fmu_scratch *sc, size_t *bad)
{
	size_t n64 = b->n64, n32 = b->n - b->n64;
	for (size_t k = 0; k < n64; k++)
		sc->d[k] = v[b->at[k]];
	/* Every value is checked before any is set: a refused one leaves
	 * the FMU as it was. */
	for (size_t k = 0; k < n32; k++) {
		double x = v[b->at[n64 + k]];
		if (!vs_fmu_f32_holds(x)) {
			*bad = n64 + k;
			return VS_FMU_F32_RANGE;
		}
		sc->s[k] = (float)x;
	}
	int st = FMI2_OK;
	if (n64)
		st = f->md.fmi == 2
		             ? (int)f->f2.set_real(c, (const fmi2_vr *)b->vr,
		                                   n64, sc->d)
		             : (int)f->f3.set_float64(c, b->vr, n64, sc->d, n64);
	if (n32 && st < FMI2_DISCARD) {
		int st2 = (int)f->f3.set_float32(c, b->vr + n64, n32, sc->s, n32);
		st = st2 > st ? st2 : st;
	}
	return st;
}

int vs_fmu_set_one(const vs_fmu *f, void *c, const fmu_var *var, double x)
{
	if (!var->float32)
		return f->md.fmi == 2
		               ? (int)f->f2.set_real(c, (const fmi2_vr *)&var->vr,
		                                     1, &x)
		               : (int)f->f3.set_float64(c, &var->vr, 1, &x, 1);
	if (!vs_fmu_f32_holds(x))
		return VS_FMU_F32_RANGE;
	float y = (float)x;
	return (int)f->f3.set_float32(c, &var->vr, 1, &y, 1);
}
