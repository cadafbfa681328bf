/* FP8 e4m3 scalar reference conversion (integer bit manipulation, independent of the FPU
 * rounding mode) and the bulk quantize/dequantize helpers. Semantics in fp8.h. */
#include "quant/fp8.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

uint8_t i8_fp8_from_f32(float x) {
    uint32_t u = i8_f32_bits(x);
    uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
    uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return I8_FP8_E4M3_NAN;
    if (a > 0x43E00000u) return (uint8_t)(sign | I8_FP8_E4M3_MAX_CODE); /* > 448, Inf: satfinite */
    int e = (int)(a >> 23) - 127;
    if (e < -25) return sign; /* below 2^-25 (float subnormals too): far under 2^-10 */
    uint32_t m = (a & 0x7FFFFFu) | 0x800000u; /* value = m * 2^(e-23) */
    /* The e4m3 quantum is 2^(e-3) for normals (e >= -6) and 2^-9 for subnormals; drop the bits
     * of m below it and round to nearest even. */
    int shift = e >= -6 ? 20 : 14 - e; /* 20 .. 39 */
    uint32_t q, rem, half;
    if (shift >= 32) {
        return sign; /* m < 2^24 <= half a quantum */
    }
    q = m >> shift;
    rem = m & ((1u << shift) - 1u);
    half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) q++;
    /* Normal: q in [8, 16]; code = (e + 7) * 8 + (q - 8), a carry into the next binade falls
     * out naturally. Subnormal: code = q (q == 8 is the smallest normal, 0x08). */
    uint32_t code = e >= -6 ? (uint32_t)(e + 6) * 8u + q : q;
    return (uint8_t)(sign | code); /* code <= 0x7E because |x| <= 448 here */
}

uint8_t i8_fp8_from_f16(uint16_t h) {
    /* Every half value is exact in float32, so converting through float rounds only once. */
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0x1F) {
        bits = sign | 0x7F800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    } else if (man == 0) {
        bits = sign;
    } else { /* half subnormal man * 2^-24: normalize */
        int msb = 9;
        while (!(man >> msb)) msb--;
        bits = sign | ((uint32_t)(msb - 24 + 127) << 23) | ((man ^ (1u << msb)) << (23 - msb));
    }
    return i8_fp8_from_f32(i8_bits_f32(bits));
}

float i8_fp8_to_f32(uint8_t q) {
    uint32_t sign = (uint32_t)(q & 0x80u) << 24;
    uint32_t e = (q >> 3) & 0xFu;
    uint32_t m = q & 7u;
    if (e == 15 && m == 7) return i8_bits_f32(0x7FFFFFFFu);
    if (e != 0) return i8_bits_f32(sign | ((e + 120u) << 23) | (m << 20));
    if (m == 0) return i8_bits_f32(sign);
    int msb = 2;
    while (!(m >> msb)) msb--;
    return i8_bits_f32(sign | ((uint32_t)(msb - 9 + 127) << 23) | ((m ^ (1u << msb)) << (23 - msb)));
}

float i8_fp8_inv_scale(float scale) { return 1.0f / scale; }

int i8_fp8_scale_usable(float s) { return s >= FLT_MIN && s <= FLT_MAX && i8_fp8_inv_scale(s) <= FLT_MAX; }

float i8_fp8_scale_from_amax(float amax) {
    float s = amax / I8_FP8_E4M3_MAX;
    /* Rejects 0, subnormal results, NaN and Inf in one comparison chain. */
    if (!(s >= FLT_MIN && s <= FLT_MAX)) return 1.0f;
    return s;
}

void i8_fp8_quantize(const float *x, size_t n, float scale, uint8_t *q) {
    float inv = i8_fp8_inv_scale(scale);
    for (size_t i = 0; i < n; i++) q[i] = i8_fp8_from_f32(x[i] * inv);
}

void i8_fp8_dequantize(const uint8_t *q, size_t n, float scale, float *x) {
    for (size_t i = 0; i < n; i++) x[i] = i8_fp8_to_f32(q[i]) * scale;
}

/* i8_fp8_to_f32(i8_fp8_from_f32(x * inv_scale)) * scale bit for bit (test_fp8 checks every
 * float), on the float's bits instead of through the code and without branches, so that the
 * emulation's loops over every FP8 read vectorize. */
static inline float fake_quant_bits(float x, float inv_scale, float scale) {
    const uint32_t u = i8_f32_bits(x * inv_scale), sign = u & 0x80000000u, a = u & 0x7FFFFFFFu;
    const uint32_t normal = (a + 0x7FFFFu + ((a >> 20) & 1u)) & 0xFFF00000u; /* 3 bits, ties even */
    const uint32_t subnormal = i8_f32_bits((i8_bits_f32(a) + 16384.0f) - 16384.0f); /* multiples of 2^-9 */
    uint32_t r = i8_bits_pick(i8_bits_at_least(a, 0x3C800000u), normal, subnormal) | sign;
    r = i8_bits_pick(i8_bits_at_least(a, 0x43E00001u), 0x43E00000u | sign, r); /* > 448, Inf: satfinite */
    r = i8_bits_pick(i8_bits_at_least(a, 0x7F800001u), 0x7FFFFFFFu, r);        /* NaN: the code 0x7F */
    return i8_bits_f32(r) * scale;
}

float i8_fp8_fake_quant(float x, float inv_scale, float scale) { return fake_quant_bits(x, inv_scale, scale); }

void i8_fp8_fake_quant_array(const float *x, float *y, size_t n, float scale) {
    const float inv = i8_fp8_inv_scale(scale);
#pragma omp parallel for schedule(static) if (n >= 65536)
    for (size_t i = 0; i < n; i++) y[i] = fake_quant_bits(x[i], inv, scale);
}

static bool either_nan(uint8_t a, uint8_t b) { return (a & 0x7f) == I8_FP8_E4M3_NAN || (b & 0x7f) == I8_FP8_E4M3_NAN; }

void i8_fp8_codes_compare(const uint8_t *want, const uint8_t *got, size_t count, i8_fp8_codes_diff *d) {
    memset(d, 0, sizeof *d);
    d->count = count;
    for (size_t i = 0; i < count; i++) {
        const bool nan = either_nan(want[i], got[i]);
        d->nan += nan;
        if (!nan) d->max_want = fmaxf(d->max_want, fabsf(i8_fp8_to_f32(want[i])));
    }
    for (size_t i = 0; i < count; i++) {
        if (want[i] == got[i]) continue;
        d->differ++;
        if (either_nan(want[i], got[i])) continue; /* counted as NaN */
        d->far += i8_fp8_code_far(want[i], got[i], d->max_want);
    }
}

int i8_fp8_code_steps(uint8_t a, uint8_t b) {
    /* signed code numbers: neighbours on the e4m3 grid differ by one */
    int ia = a & 0x80 ? -(int)(a & 0x7f) : (int)a, ib = b & 0x80 ? -(int)(b & 0x7f) : (int)b;
    return abs(ia - ib);
}

bool i8_fp8_code_far(uint8_t want, uint8_t got, float max_want) {
    return i8_fp8_code_steps(want, got) > 1 &&
           fabsf(i8_fp8_to_f32(want) - i8_fp8_to_f32(got)) > I8_FP8_NEAR_ZERO * max_want;
}

bool i8_fp8_codes_diff_close(const i8_fp8_codes_diff *d) { return d->nan == 0 && d->far == 0 && d->differ * 100 <= d->count; }

bool i8_fp8_codes_close(const uint8_t *want, const uint8_t *got, size_t count) {
    i8_fp8_codes_diff d;
    i8_fp8_codes_compare(want, got, count, &d);
    return i8_fp8_codes_diff_close(&d);
}
