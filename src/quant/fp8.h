/* FP8 e4m3 (OCP "e4m3fn") scalar reference conversion and bulk quantize/dequantize.
 *
 * Format: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities; S.1111.111 (0x7F, 0xFF)
 * is NaN; largest finite 448 (0x7E), smallest subnormal 2^-9 (0x01).
 *
 * Float -> e4m3 follows CUDA's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3) (the PTX
 * instruction cvt.rn.satfinite.e4m3x2.f32 on sm_89+):
 *   - round to nearest, ties to even, from the exact input value;
 *   - |x| > 448 (including +-Inf) saturates to +-448 (0x7E / 0xFE);
 *   - NaN (any sign, any payload) gives 0x7F;
 *   - the sign is kept for zeros and for values that underflow (-2^-11 -> 0x80).
 * This is the scalar reference: every fast path (SIMD, CUDA) must match it bit for bit, which
 * tests/unit/test_fp8.c checks against tables produced on the GPU by tools/fp8-table.cu
 * (tests/fixtures/fp8/, made on an H200, sm_90, CUDA 13.0: the hardware cvt instructions and
 * the header's software path agreed on every input, NaN of either sign included).
 *
 * Scaling convention (shared with the GPU kernels, so CPU emulation and device agree bit for
 * bit): a tensor with scale s is quantized as  q = e4m3(x * inv_scale)  with
 * inv_scale = 1.0f / s computed ONCE in float32 (never x / s), and dequantized as
 * x' = (float)e4m3_value(q) * s (one float32 multiply, no fused multiply-add). */
#ifndef I8_QUANT_FP8_H
#define I8_QUANT_FP8_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/i8.h"

#define I8_FP8_E4M3_MAX 448.0f
#define I8_FP8_E4M3_NAN ((uint8_t)0x7F)
#define I8_FP8_E4M3_MAX_CODE ((uint8_t)0x7E)

/* float32 -> e4m3 code with the semantics above. Pure, never fails. */
uint8_t i8_fp8_from_f32(float x);
/* IEEE binary16 bits -> e4m3 code; equals __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E4M3)
 * (rounded once from the exact half value; half NaN -> 0x7F). */
uint8_t i8_fp8_from_f16(uint16_t h);
/* e4m3 code -> its exact float32 value; 0x7F and 0xFF give the canonical NaN 0x7FFFFFFF
 * (what CUDA's fp8 -> half -> float conversion produces); 0x80 gives -0.0f. */
float i8_fp8_to_f32(uint8_t q);

/* The inverse scale used by every quantizing path: 1.0f / scale in float32. */
float i8_fp8_inv_scale(float scale);
/* 1 when a static scale can serve an FP8 read: a normal float whose float inverse is finite
 * (the executors that emulate FP8 refuse a graph with another). */
int i8_fp8_scale_usable(float scale);
/* Scale for a tensor whose largest magnitude is amax: amax / 448 in float32. When that is not a
 * positive normal float (amax == 0, amax < 448 * FLT_MIN, or amax not finite) the scale is
 * 1.0f: such a tensor is all (near-)zeros, quantizes to zeros, and 1/scale stays finite. */
float i8_fp8_scale_from_amax(float amax);

/* q[i] = i8_fp8_from_f32(x[i] * i8_fp8_inv_scale(scale)) for i < n. */
void i8_fp8_quantize(const float *x, size_t n, float scale, uint8_t *q);
/* x[i] = i8_fp8_to_f32(q[i]) * scale for i < n. */
void i8_fp8_dequantize(const uint8_t *q, size_t n, float scale, float *x);
/* Quantize-then-dequantize of one value: i8_fp8_to_f32(i8_fp8_from_f32(x * inv_scale)) * scale,
 * computed without branches. The array form (y may be x; inv_scale = i8_fp8_inv_scale(scale))
 * vectorizes and runs on the OpenMP threads. */
float i8_fp8_fake_quant(float x, float inv_scale, float scale);
void i8_fp8_fake_quant_array(const float *x, float *y, size_t n, float scale);

/* Do two kernels' e4m3 outputs of one tensor (same scale) agree? At most 1% of the codes differ,
 * neither side has a NaN code, and codes more than one step apart must differ in value by at most
 * I8_FP8_NEAR_ZERO times the largest |value| wanted, which such codes do only near zero: there
 * the tensor cores' FP8 sums (fewer bits than fp32 within a K slice) cancel to a few of their
 * ulps, so codes several steps apart are rounding, not a wrong kernel. */
#define I8_FP8_NEAR_ZERO 2e-3
bool i8_fp8_codes_close(const uint8_t *want, const uint8_t *got, size_t count);
/* What i8_fp8_codes_close decides on, for reports of a rejected kernel: NaN codes (either side),
 * codes differing, codes more than one step apart beyond the near-zero allowance, the largest
 * |value| wanted (of the codes that are not NaN). Close = no NaN, no far code, differ <= 1%. */
typedef struct i8_fp8_codes_diff {
    size_t count, nan, differ, far;
    float max_want;
} i8_fp8_codes_diff;
void i8_fp8_codes_compare(const uint8_t *want, const uint8_t *got, size_t count, i8_fp8_codes_diff *d);
/* Steps between two non-NaN codes on the e4m3 grid (signed: +x and -x are 2 |code| apart). */
int i8_fp8_code_steps(uint8_t a, uint8_t b);
/* One pair of non-NaN codes: more than one e4m3 grid step apart and more than
 * I8_FP8_NEAR_ZERO * max_want apart in value (what i8_fp8_codes_compare counts as far). */
bool i8_fp8_code_far(uint8_t want, uint8_t got, float max_want);
bool i8_fp8_codes_diff_close(const i8_fp8_codes_diff *d);

#endif
