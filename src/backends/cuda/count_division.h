/* x / d rounded once, as IEEE division rounds it, for an average pool's window count d (a small
 * positive integer) and r = 1/d rounded to nearest: q = x r is within an ulp of x / d, the
 * remainder x - q d is exact in one fma, and q + remainder x r rounds to the nearest (Markstein's
 * correction). Three operations where the GPU's division takes about ten and a branch; every
 * average pool kernel divides through it, so they all give the CPU reference's quotients.
 * tests/unit/test_count_division.c checks every fp32 significand against division for d = 1..64.
 * The correction would turn an infinite x into NaN and -0 into +0, so those (and NaN) keep q = x r.
 * Host C and CUDA:
 * the same three roundings, spelled so that neither compiler contracts them differently. */
#ifndef I8_COUNT_DIVISION_H
#define I8_COUNT_DIVISION_H

#ifdef __CUDACC__
__device__ __forceinline__ float i8_div_by_count(float x, float d, float r) {
    const float q = __fmul_rn(x, r);
    const float corrected = __fmaf_rn(__fmaf_rn(-q, d, x), r, q);
    return fabsf(q) < INFINITY && q != 0.0f ? corrected : q;
}
#else
#include <math.h>
static inline float i8_div_by_count(float x, float d, float r) {
    const float q = x * r;
    const float corrected = fmaf(fmaf(-q, d, x), r, q);
    return fabsf(q) < INFINITY && q != 0.0f ? corrected : q;
}
#endif

#endif
