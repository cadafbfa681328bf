/* Tests of the FP8 e4m3 conversion (src/quant/fp8.c) and the per-channel weight scales
 * (src/quant/scales.c) against (1) an independent reference written differently: the 256 e4m3
 * values as doubles, nearest value with ties to the even code, clamp at 448; (2) hand-computed
 * cases; (3) when present, the tables produced on the GPU by tools/fp8-table.cu
 * (tests/fixtures/fp8/fp8_*.bin): they must then match bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i8.h"
#include "quant/fp8.h"
#include "quant/fp8_vectors.h"
#include "quant/scales.h"
#include "float_bits.h"

/* ---- independent reference ---- */

static double ref_value[256]; /* NaN for 0x7F, 0xFF */

static void ref_init(void) {
    for (int c = 0; c < 256; c++) {
        int e = (c >> 3) & 15, m = c & 7;
        double v = e == 0 ? ldexp((double)m, -9) : ldexp((double)(8 + m), e - 10);
        if (e == 15 && m == 7) v = NAN;
        ref_value[c] = (c & 0x80) ? -v : v;
    }
}

/* Nearest e4m3 code of a double (exact for every float and half input). */
static uint8_t ref_from_double(double v) {
    if (isnan(v)) return 0x7F;
    uint8_t sign = signbit(v) ? 0x80 : 0;
    double a = fabs(v);
    if (a >= 448.0) return sign | 0x7E;
    /* Positive codes 0..0x7E are increasing: binary search the first code with value >= a. */
    int lo = 0, hi = 0x7E;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (ref_value[mid] >= a) hi = mid;
        else lo = mid + 1;
    }
    int best = lo;
    if (lo > 0) {
        double up = ref_value[lo] - a, down = a - ref_value[lo - 1];
        if (down < up || (down == up && ((lo - 1) & 1) == 0)) best = lo - 1;
    }
    return (uint8_t)(sign | best);
}

static double half_to_double(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(1024 + m), e - 25);
    return s ? -v : v;
}

static int setup(void **state) {
    (void)state;
    ref_init();
    return 0;
}

/* ---- hand cases ---- */

static void test_hand_cases(void **state) {
    (void)state;
    assert_int_equal(i8_fp8_from_f32(448.0f), 0x7E);
    assert_int_equal(i8_fp8_from_f32(464.0f), 0x7E);  /* tie between 448 and (virtual) 480 */
    assert_int_equal(i8_fp8_from_f32(480.0f), 0x7E);  /* saturate */
    assert_int_equal(i8_fp8_from_f32(-1000.0f), 0xFE);
    assert_int_equal(i8_fp8_from_f32(INFINITY), 0x7E);
    assert_int_equal(i8_fp8_from_f32(-INFINITY), 0xFE);
    assert_int_equal(i8_fp8_from_f32(ldexpf(1.0f, -9)), 0x01);
    assert_int_equal(i8_fp8_from_f32(ldexpf(1.0f, -10)), 0x00);  /* tie to even: 0 */
    assert_int_equal(i8_fp8_from_f32(-ldexpf(1.0f, -10)), 0x80); /* sign kept on underflow */
    assert_int_equal(i8_fp8_from_f32(ldexpf(3.0f, -10)), 0x02);  /* 1.5 * 2^-9: tie to even 2 */
    assert_int_equal(i8_fp8_from_f32(1.0f), 0x38);
    assert_int_equal(i8_fp8_from_f32(1.0625f), 0x38); /* tie between 0x38 and 0x39 */
    assert_int_equal(i8_fp8_from_f32(1.1875f), 0x3A); /* tie between 0x39 and 0x3A */
    assert_int_equal(i8_fp8_from_f32(nextafterf(1.0625f, 2.0f)), 0x39);
    assert_int_equal(i8_fp8_from_f32(0.015625f), 0x08); /* 2^-6, smallest normal */
    assert_int_equal(i8_fp8_from_f32(0.0f), 0x00);
    assert_int_equal(i8_fp8_from_f32(-0.0f), 0x80);
    assert_int_equal(i8_fp8_from_f32(NAN), 0x7F);
    assert_int_equal(i8_fp8_from_f32(-NAN), 0x7F);
    assert_int_equal(i8_fp8_from_f32(from_bits(0xFF800001u)), 0x7F);
    assert_int_equal(i8_fp8_from_f16(0x3C00), 0x38);                 /* 1.0 */
    assert_int_equal(i8_fp8_from_f16(0x7C00), 0x7E);                 /* +Inf */
    assert_int_equal(i8_fp8_from_f16(0xFE00), 0x7F);                 /* -NaN */
    assert_int_equal(i8_fp8_from_f16(0x1400), 0x00);                 /* 2^-10: tie to even */
    assert_int_equal(i8_fp8_from_f16(0x1800), 0x01);                 /* 2^-9 */
    assert_int_equal(i8_fp8_from_f16(0x1401), 0x01);                 /* just above 2^-10 */
    assert_float_equal(i8_fp8_to_f32(0x7E), 448.0f, 0.0f);
    assert_float_equal(i8_fp8_to_f32(0x01), ldexpf(1.0f, -9), 0.0f);
    assert_float_equal(i8_fp8_to_f32(0xB9), -1.125f, 0.0f);
    assert_int_equal(to_bits(i8_fp8_to_f32(0x7F)), 0x7FFFFFFFu);
    assert_int_equal(to_bits(i8_fp8_to_f32(0xFF)), 0x7FFFFFFFu);
    assert_int_equal(to_bits(i8_fp8_to_f32(0x80)), 0x80000000u);
}

static void test_all_codes_and_round_trip(void **state) {
    (void)state;
    for (int c = 0; c < 256; c++) {
        float f = i8_fp8_to_f32((uint8_t)c);
        if (isnan(ref_value[c])) {
            assert_true(isnan(f));
            assert_int_equal(i8_fp8_from_f32(f), 0x7F);
            continue;
        }
        assert_true((double)f == ref_value[c]);
        assert_int_equal(signbit(f) != 0, (c & 0x80) != 0);
        assert_int_equal(i8_fp8_from_f32(f), c);
    }
}

static void test_f16_exhaustive_vs_reference(void **state) {
    (void)state;
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        uint8_t got = i8_fp8_from_f16((uint16_t)h), want = ref_from_double(half_to_double((uint16_t)h));
        if (got != want && bad++ < 5) printf("f16 0x%04x: got 0x%02x, reference 0x%02x\n", h, got, want);
    }
    assert_int_equal(bad, 0);
}

static void check_f32(uint32_t bits, int *bad) {
    float x = from_bits(bits);
    uint8_t got = i8_fp8_from_f32(x), want = ref_from_double((double)x);
    if (got != want && (*bad)++ < 5) printf("f32 0x%08x: got 0x%02x, reference 0x%02x\n", bits, got, want);
}

static void test_f32_sampled_vs_reference(void **state) {
    (void)state;
    int bad = 0;
    /* Strided sweep of all 2^32 patterns (stride prime, ~1M values). */
    for (uint64_t u = 0; u < (1ull << 32); u += 4093) check_f32((uint32_t)u, &bad);
    /* Dense sweep of every float in [2^-11, 512): each e4m3 interval sampled at every 64th float. */
    for (uint32_t u = 0x3A000000u; u < 0x44000000u; u += 64) check_f32(u, &bad);
    /* The GPU table's inputs (ties, subnormals, > 448, NaN, Inf) and random patterns. */
    for (uint32_t k = 0; k < I8_FP8_VEC_COUNT; k++) check_f32(i8_fp8_vec_bits(I8_FP8_VEC_SEED, k), &bad);
    i8_rng rng;
    i8_rng_seed(&rng, 7);
    for (int k = 0; k < (1 << 20); k++) check_f32((uint32_t)i8_rng_next(&rng), &bad);
    assert_int_equal(bad, 0);
}

/* The emulation's fast paths against the compositions they replace, bit for bit (NaN payloads
 * too), for every float v (every 61st block of 2^16 under INFER8_TEST_QUICK, as in the sanitizer
 * build; about 25 s on 2 cores otherwise): i8_fp8_fake_quant_array (scale 1) against
 * i8_fp8_to_f32(i8_fp8_from_f32(v)), i8_f16_round_array (in place) against
 * i8_f16_to_f32(i8_f32_to_f16(v)), and the scalar forms (the same inline code) on every 17th
 * value; then with real scales on random inputs, where x * inv is rounded once as in the
 * composition. */
static void test_fast_paths_every_float(void **state) {
    (void)state;
    const uint64_t block = 1u << 16, every = getenv("INFER8_TEST_QUICK") ? 61 : 1;
    float *x = malloc(block * sizeof(float)), *q = malloc(block * sizeof(float)), *r = malloc(block * sizeof(float));
    assert_true(x && q && r);
    unsigned long bad8 = 0, bad16 = 0;
    for (uint64_t start = 0; start < (1ull << 32); start += block * every) {
        for (uint64_t i = 0; i < block; i++) x[i] = r[i] = from_bits((uint32_t)(start + i));
        i8_fp8_fake_quant_array(x, q, (size_t)block, 1.0f);
        i8_f16_round_array(r, r, (size_t)block);
#pragma omp parallel for reduction(+ : bad8, bad16) schedule(static)
        for (int64_t i = 0; i < (int64_t)block; i++) {
            const uint32_t want8 = to_bits(i8_fp8_to_f32(i8_fp8_from_f32(x[i])));
            const uint32_t want16 = to_bits(i8_f16_to_f32(i8_f32_to_f16(x[i])));
            bad8 += to_bits(q[i]) != want8;
            bad16 += to_bits(r[i]) != want16;
            if (i % 17 == 0) {
                bad8 += to_bits(i8_fp8_fake_quant(x[i], 1.0f, 1.0f)) != want8;
                bad16 += to_bits(i8_f16_round(x[i])) != want16;
            }
        }
    }
    i8_rng rng;
    i8_rng_seed(&rng, 11);
    for (int k = 0; k < 1024; k++) {
        const float scale = (float)(1e-3 + i8_rng_uniform(&rng)), inv = i8_fp8_inv_scale(scale);
        for (int i = 0; i < 1024; i++) x[i] = from_bits((uint32_t)i8_rng_next(&rng));
        i8_fp8_fake_quant_array(x, q, 1024, scale);
        for (int i = 0; i < 1024; i++) {
            const uint32_t want = to_bits(i8_fp8_to_f32(i8_fp8_from_f32(x[i] * inv)) * scale);
            bad8 += (to_bits(q[i]) != want) + (to_bits(i8_fp8_fake_quant(x[i], inv, scale)) != want);
        }
    }
    free(x), free(q), free(r);
    if (bad8 || bad16) printf("fast paths differ: fake quant %lu, f16 round %lu values\n", bad8, bad16);
    assert_int_equal(bad8, 0);
    assert_int_equal(bad16, 0);
}

/* The generator must produce what its header promises (else the GPU table tests less). */
static void test_vectors_cover_cases(void **state) {
    (void)state;
    int nan = 0, inf = 0, sat = 0, sub = 0, ties = 0;
    for (uint32_t k = 0; k < I8_FP8_VEC_COUNT; k++) {
        float x = from_bits(i8_fp8_vec_bits(I8_FP8_VEC_SEED, k));
        double a = fabs((double)x);
        if (isnan(x)) nan++;
        else if (isinf(x)) inf++;
        else if (a > 448.0) sat++;
        else if (a > 0 && a < 0.015625) sub++;
        if (!isnan(x) && a <= 464.0) {
            uint8_t c = ref_from_double(a);
            double v = ref_value[c], other = a > v ? (c == 0x7E ? 480.0 : ref_value[c + 1]) : (c ? ref_value[c - 1] : 0);
            if (a != v && fabs(a - v) == fabs(a - other)) ties++;
        }
    }
    printf("vectors: %d NaN, %d Inf, %d > 448, %d e4m3 subnormal range, %d exact ties\n", nan, inf, sat, sub, ties);
    assert_true(nan > 1000 && inf > 1000 && sat > 10000 && sub > 10000 && ties > 10000);
}

/* ---- CUDA tables ---- */

static uint8_t *read_fixture(const char *name, size_t want_size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/fp8/%s", INFER8_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("fixture absent: %s (compared with the reference only)\n", path);
        return NULL;
    }
    uint8_t *buf = malloc(want_size + 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, want_size + 1, f);
    fclose(f);
    if (got != want_size) {
        printf("%s: %zu bytes, expected %zu\n", path, got, want_size);
        fail();
    }
    return buf;
}

static void test_cuda_tables(void **state) {
    (void)state;
    int bad = 0;
    uint8_t *t16 = read_fixture("fp8_from_f16.bin", 65536);
    if (t16) {
        for (uint32_t h = 0; h < 65536; h++) {
            uint8_t got = i8_fp8_from_f16((uint16_t)h);
            if (got != t16[h] && bad++ < 5) printf("f16 0x%04x: got 0x%02x, CUDA 0x%02x\n", h, got, t16[h]);
        }
        free(t16);
    }
    uint8_t *t32 = read_fixture("fp8_from_f32.bin", I8_FP8_VEC_COUNT);
    if (t32) {
        for (uint32_t k = 0; k < I8_FP8_VEC_COUNT; k++) {
            uint32_t bits = i8_fp8_vec_bits(I8_FP8_VEC_SEED, k);
            uint8_t got = i8_fp8_from_f32(from_bits(bits));
            if (got != t32[k] && bad++ < 10)
                printf("f32 #%u 0x%08x: got 0x%02x, CUDA 0x%02x\n", k, bits, got, t32[k]);
        }
        free(t32);
    }
    uint8_t *tto = read_fixture("fp8_to_f32.bin", 1024);
    if (tto) {
        for (int c = 0; c < 256; c++) {
            uint32_t want = (uint32_t)tto[4 * c] | (uint32_t)tto[4 * c + 1] << 8 | (uint32_t)tto[4 * c + 2] << 16 |
                            (uint32_t)tto[4 * c + 3] << 24;
            uint32_t got = to_bits(i8_fp8_to_f32((uint8_t)c));
            if (got != want && bad++ < 15) printf("code 0x%02x: got 0x%08x, CUDA 0x%08x\n", c, got, want);
        }
        free(tto);
    }
    assert_int_equal(bad, 0);
}

/* ---- bulk helpers and scales ---- */

static void test_bulk_quantize(void **state) {
    (void)state;
    enum { N = 4096 };
    float x[N], back[N];
    uint8_t q[N];
    i8_rng rng;
    i8_rng_seed(&rng, 11);
    for (int i = 0; i < N; i++) x[i] = (float)(i8_rng_normal(&rng) * 3.0);
    const float scale = 0.037f;
    i8_fp8_quantize(x, N, scale, q);
    i8_fp8_dequantize(q, N, scale, back);
    float inv = 1.0f / scale;
    for (int i = 0; i < N; i++) {
        assert_int_equal(q[i], ref_from_double((double)(x[i] * inv)));
        assert_true(back[i] == (float)ref_value[q[i]] * scale);
        assert_true(i8_fp8_fake_quant(x[i], inv, scale) == back[i]);
        /* |x| <= 448 * scale here, so the error is at most half a step: 2^-4 relative or 2^-10 * scale. */
        assert_true(fabs((double)back[i] - x[i]) <= fmax(fabs((double)x[i]) / 16.0, ldexp(scale, -10)) * 1.0001);
    }
    assert_float_equal(i8_fp8_scale_from_amax(448.0f), 1.0f, 0.0f);
    assert_float_equal(i8_fp8_scale_from_amax(896.0f), 2.0f, 0.0f);
    assert_float_equal(i8_fp8_scale_from_amax(0.0f), 1.0f, 0.0f);
    assert_float_equal(i8_fp8_scale_from_amax(1e-40f), 1.0f, 0.0f);
    assert_float_equal(i8_fp8_scale_from_amax(NAN), 1.0f, 0.0f);
    assert_float_equal(i8_fp8_scale_from_amax(INFINITY), 1.0f, 0.0f);
    assert_true(i8_fp8_scale_from_amax(FLT_MAX) == FLT_MAX / 448.0f);
}

static void test_weight_scales(void **state) {
    (void)state;
    /* Weight [3][2][1][2] (O, I, kh, kw): channel 0 amax 4.48, channel 1 all zero, channel 2
     * amax 896 (negative). */
    const float w[3][4] = {{4.48f, -1.0f, 0.5f, 0.0f}, {0.0f, -0.0f, 0.0f, 0.0f}, {-896.0f, 2.0f, 3.0f, 464.0f}};
    float amax[3], scales[3];
    i8_err err = {0};
    assert_int_equal(i8_fp8_weight_scales(&w[0][0], 3, 4, "conv.weight", amax, scales, &err), INFER8_OK);
    assert_true(amax[0] == 4.48f && amax[1] == 0.0f && amax[2] == 896.0f);
    assert_true(scales[0] == 4.48f / 448.0f);
    assert_true(scales[1] == 1.0f);
    assert_true(scales[2] == 2.0f);
    uint8_t q[12];
    assert_int_equal(i8_fp8_quantize_weights(&w[0][0], 3, 4, scales, q, &err), INFER8_OK);
    /* channel 0: 4.48 * (1/0.01) ~ 448 -> 0x7E; -1 -> -100 -> 96 or 104: 100 is a tie between 96
     * (0x6C) and 104 (0x6D) only if exact; 1/0.01f is not exact, so compare with the reference. */
    float inv0 = 1.0f / scales[0];
    assert_int_equal(q[0], 0x7E);
    assert_int_equal(q[1], ref_from_double((double)(-1.0f * inv0)));
    assert_int_equal(q[2], ref_from_double((double)(0.5f * inv0)));
    assert_int_equal(q[3], 0x00);
    assert_int_equal(q[4], 0x00);
    assert_int_equal(q[5], 0x80);
    assert_int_equal(q[8], 0xFE);  /* -896 / 2 = -448 */
    assert_int_equal(q[9], 0x38);  /* 2 / 2 = 1 */
    assert_int_equal(q[10], 0x3C); /* 3 / 2 = 1.5 */
    assert_int_equal(q[11], 0x76); /* 464 / 2 = 232 -> tie between 224 (0x76) and 240 (0x77): even */

    const float bad_w[2][2] = {{1.0f, 2.0f}, {NAN, 0.0f}};
    float keep[2] = {-1.0f, -1.0f};
    assert_int_equal(i8_fp8_weight_scales(&bad_w[0][0], 2, 2, "stem.weight", NULL, keep, &err), INFER8_E_FORMAT);
    assert_non_null(strstr(err.msg, "stem.weight"));
    assert_non_null(strstr(err.msg, "channel 1"));
    assert_true(keep[0] == -1.0f); /* untouched on failure */
    const float bad_scales[3] = {1.0f, 0.0f, 1.0f};
    memset(q, 0xAA, sizeof q);
    assert_int_equal(i8_fp8_quantize_weights(&w[0][0], 3, 4, bad_scales, q, &err), INFER8_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.msg, "channel 1"));
    assert_int_equal(q[0], 0xAA);
}

/* i8_fp8_codes_close: how the CUDA tuner compares a candidate kernel's e4m3 output with the
 * reference kernel's. 200 codes, the largest 448 (0x7E). */
static void test_codes_close(void **state) {
    (void)state;
    uint8_t want[200], got[200];
    for (int i = 0; i < 200; i++) want[i] = (uint8_t)(i % 2 ? 0x30 + i % 64 : 0x80 | (0x10 + i % 80));
    want[7] = 0x7E;
    memcpy(got, want, sizeof got);
    assert_true(i8_fp8_codes_close(want, got, 200));
    got[10] = (uint8_t)(want[10] + 1); /* one step, 2 of 200 = 1% */
    got[11] = (uint8_t)(want[11] - 1);
    assert_true(i8_fp8_codes_close(want, got, 200));
    got[12] = (uint8_t)(want[12] + 1); /* 1.5% differ */
    assert_false(i8_fp8_codes_close(want, got, 200));
    got[10] = want[10], got[11] = want[11], got[12] = want[12];
    /* several steps apart but near zero: 2^-9 vs 2^-6, 0.0137 apart, within 2e-3 * 448 = 0.896 */
    want[20] = 0x01, got[20] = 0x08;
    assert_true(i8_fp8_codes_close(want, got, 200));
    got[20] = 0x81; /* the other sign, still near zero */
    assert_true(i8_fp8_codes_close(want, got, 200));
    want[20] = 0x3C, got[20] = 0x3E; /* 1.5 vs 1.75: two steps, 0.25 apart: near zero too */
    assert_true(i8_fp8_codes_close(want, got, 200));
    want[20] = 0x48, got[20] = 0x4A; /* 4 vs 5: two steps and 1.0 > 0.896 apart */
    assert_false(i8_fp8_codes_close(want, got, 200));
    want[20] = 0x00, got[20] = 0x48; /* a large value where zero is wanted: not rounding */
    assert_false(i8_fp8_codes_close(want, got, 200));
    want[20] = got[20] = 0x48;
    assert_true(i8_fp8_codes_close(want, got, 200));
    got[30] = 0x7F; /* a NaN code on either side fails */
    assert_false(i8_fp8_codes_close(want, got, 200));
    got[30] = want[30], want[31] = got[31] = 0xFF;
    assert_false(i8_fp8_codes_close(want, got, 200));
}

/* the counts behind i8_fp8_codes_close (a rejected kernel's report), and the same decisions */
static void test_codes_compare(void **state) {
    (void)state;
    uint8_t want[400], got[400];
    for (int i = 0; i < 400; i++) want[i] = (uint8_t)(i % 2 ? 0x30 + i % 64 : 0x80 | (0x10 + i % 80));
    memcpy(got, want, sizeof got);
    i8_fp8_codes_diff d;
    i8_fp8_codes_compare(want, got, 400, &d);
    assert_int_equal(d.count, 400);
    assert_int_equal(d.nan + d.differ + d.far, 0);
    /* the largest |value|: code 0x6F (i = 63) = 2^(13 - 7) * (1 + 7/8) = 120 */
    assert_float_equal(d.max_want, 120.0f, 0.0f);
    got[1] = (uint8_t)(want[1] + 1), got[2] = (uint8_t)(want[2] + 1); /* one step each */
    want[3] = 0x01, got[3] = 0x08;                                      /* far in steps, near zero */
    want[5] = 0x48, got[5] = 0x4C;                                      /* 4 vs 6: far */
    want[7] = 0x50, got[7] = 0x40;                                      /* 8 vs 2: far */
    i8_fp8_codes_compare(want, got, 400, &d);
    assert_int_equal(d.differ, 5);
    assert_int_equal(d.far, 2);
    assert_int_equal(d.nan, 0);
    assert_false(i8_fp8_codes_diff_close(&d));
    assert_false(i8_fp8_codes_close(want, got, 400));
    got[5] = want[5], got[7] = want[7]; /* 3 of 400 differ, none far: close */
    i8_fp8_codes_compare(want, got, 400, &d);
    assert_int_equal(d.differ, 3);
    assert_int_equal(d.far, 0);
    assert_true(i8_fp8_codes_diff_close(&d));
    assert_true(i8_fp8_codes_close(want, got, 400));
    got[4] = (uint8_t)(want[4] + 1), got[6] = (uint8_t)(want[6] - 1); /* 5 of 400 = 1.25%: too many */
    i8_fp8_codes_compare(want, got, 400, &d);
    assert_false(i8_fp8_codes_diff_close(&d));
    assert_false(i8_fp8_codes_close(want, got, 400));
    got[4] = want[4], got[6] = want[6];
    got[9] = 0x7F, want[11] = 0xFF, got[11] = 0xFF; /* a NaN on either side, differing or not */
    i8_fp8_codes_compare(want, got, 400, &d);
    assert_int_equal(d.nan, 2);
    assert_int_equal(d.differ, 4);
    assert_int_equal(d.far, 0);
    assert_false(i8_fp8_codes_close(want, got, 400));
}

/* the per-pair rule behind the far count: grid steps (signed, so +x and -x are 2 |code| steps
 * apart) and the near-zero allowance relative to the largest wanted value */
static void test_code_far(void **state) {
    (void)state;
    assert_int_equal(i8_fp8_code_steps(0x40, 0x41), 1);
    assert_int_equal(i8_fp8_code_steps(0x00, 0x80), 0);   /* +0, -0 */
    assert_int_equal(i8_fp8_code_steps(0x38, 0xB8), 112); /* 1, -1 */
    assert_int_equal(i8_fp8_code_steps(0xB8, 0x38), 112);
    assert_false(i8_fp8_code_far(0x40, 0x40, 448.0f)); /* equal */
    assert_false(i8_fp8_code_far(0x40, 0x41, 1.0f));   /* neighbours: 2 vs 2.25, one step */
    assert_false(i8_fp8_code_far(0x00, 0x80, 448.0f)); /* +0 and -0: code numbers both 0 */
    assert_true(i8_fp8_code_far(0x48, 0x4C, 8.0f));    /* 4 vs 6, 4 steps: 2 > 2e-3 * 8 */
    assert_false(i8_fp8_code_far(0x01, 0x08, 8.0f));   /* 2^-9 vs 2^-6, 7 steps: within 2e-3 * 8 */
    assert_true(i8_fp8_code_far(0x01, 0x08, 1.0f));    /* the same pair, max 1: 0.0137 > 2e-3 */
    assert_true(i8_fp8_code_far(0x38, 0xB8, 1.0f));    /* 1 vs -1: 112 steps, 2 apart */
    assert_false(i8_fp8_code_far(0x01, 0x81, 448.0f)); /* +-2^-9: 2 steps, tiny against 448 */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codes_close),
        cmocka_unit_test(test_codes_compare),
        cmocka_unit_test(test_code_far),
        cmocka_unit_test(test_hand_cases),
        cmocka_unit_test(test_all_codes_and_round_trip),
        cmocka_unit_test(test_f16_exhaustive_vs_reference),
        cmocka_unit_test(test_f32_sampled_vs_reference),
        cmocka_unit_test(test_fast_paths_every_float),
        cmocka_unit_test(test_vectors_cover_cases),
        cmocka_unit_test(test_cuda_tables),
        cmocka_unit_test(test_bulk_quantize),
        cmocka_unit_test(test_weight_scales),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
